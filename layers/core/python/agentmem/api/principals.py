"""Who is calling: a caller's principals and role come from the auth context, never the request body.

Principals, in order: a Lambda authorizer's context `principals` (a comma-separated string, since
authorizer context values are flat), else the IAM caller's ARN looked up in the tenant's
`principal_map` (fnmatch patterns), else none. Everyone also holds `everyone`.

Role, in order: the authorizer context's `role` (`writer`, anything else is a reader), else
`writer` when the caller holds one of `writer_principals` (AGENTMEM_WRITER_PRINCIPALS), else
`reader`. The local server puts its `X-Agentmem-Principals` header into the authorizer context:
it is the loopback development stand-in for an authorizer, and API Gateway never forwards such a
context from a client. See docs/access.md."""

from __future__ import annotations

import fnmatch
import json
import logging
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from agentmem.access import READER, WRITER, Caller, Role

if TYPE_CHECKING:
    from aws_lambda_powertools.event_handler.router import APIGatewayRouter

    from agentmem.settings import Settings

AUTHORIZER_KEY = "principals"
ROLE_KEY = "role"
LOCAL_HEADER = "x-agentmem-principals"

logger = logging.getLogger(__name__)


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


def caller_of(
    request_context: Mapping[str, Any], principal_map: str | None, writer_principals: Collection[str]
) -> Caller:
    """The request's Caller: its principals (plus `everyone`) and its role."""
    principals = caller_principals(request_context, principal_map)
    authorizer = request_context.get("authorizer") or {}
    role: Role
    if ROLE_KEY in authorizer:
        claim = str(authorizer[ROLE_KEY] or "").strip().lower()
        role = WRITER if claim == WRITER else READER
        if claim not in (WRITER, READER):
            # Fail closed: an authorizer that says something else grants nothing beyond reading.
            logger.warning("unknown role claim, treated as reader", extra={"role": claim[:64]})
    else:
        caller = Caller.of(principals)
        role = WRITER if caller.shares(writer_principals) else READER
    return Caller.of(principals, role)


@dataclass(frozen=True)
class CallerRules:
    """The tenant's settings for resolving callers, and the one place routes get theirs from."""

    principal_map: str | None = None
    writer_principals: tuple[str, ...] = ("writer",)

    @classmethod
    def from_settings(cls, settings: Settings) -> CallerRules:
        return cls(settings.principal_map, settings.writer_principals)

    def of(self, request_context: Mapping[str, Any]) -> Caller:
        return caller_of(request_context, self.principal_map, self.writer_principals)

    def current(self, router: APIGatewayRouter) -> Callable[[], Caller]:
        """The caller of the request `router` is handling now (its event is per thread)."""
        return lambda: self.of(router.current_event.raw_event.get("requestContext") or {})
