"""A caller's principals come from the auth context, never from the request body.

In order: a Lambda authorizer's context `principals` (a comma-separated string, since authorizer
context values are flat), else the IAM caller's ARN looked up in the tenant's `principal_map`
(fnmatch patterns), else none. Everyone also holds `everyone`, added by the composer. The local
server puts its `X-Agentmem-Principals` header into the authorizer context: it is the loopback
development stand-in for an authorizer, and API Gateway never forwards such a context from a
client."""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

AUTHORIZER_KEY = "principals"
LOCAL_HEADER = "x-agentmem-principals"


@lru_cache(maxsize=8)
def _parsed_map(principal_map: str) -> list[tuple[str, list[str]]]:
    raw = json.loads(principal_map)
    return sorted((str(pattern), [str(p) for p in principals]) for pattern, principals in raw.items())


def split_principals(value: Any) -> list[str]:
    if isinstance(value, list):
        return sorted({str(v).strip() for v in value if str(v).strip()})
    if isinstance(value, str):
        return sorted({v.strip() for v in value.split(",") if v.strip()})
    return []


def caller_principals(request_context: Mapping[str, Any], principal_map: str | None) -> list[str]:
    authorizer = request_context.get("authorizer") or {}
    if AUTHORIZER_KEY in authorizer:
        return split_principals(authorizer[AUTHORIZER_KEY])
    arn = (request_context.get("identity") or {}).get("userArn") or ""
    if arn and principal_map:
        found: set[str] = set()
        for pattern, principals in _parsed_map(principal_map):
            if fnmatch.fnmatchcase(arn, pattern):
                found.update(principals)
        return sorted(found)
    return []
