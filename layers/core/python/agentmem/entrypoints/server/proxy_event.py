"""One HTTP request as the API Gateway REST (v1) proxy event the Lambda handlers receive, so the
local server feeds the very same resolver and validation code."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit


class LocalContext:
    """The few LambdaContext attributes Powertools reads."""

    function_name = "agentmem-local"
    function_version = "$LATEST"
    memory_limit_in_mb = 0
    invoked_function_arn = "arn:aws:lambda:local:000000000000:function:agentmem-local"

    def __init__(self) -> None:
        self.aws_request_id = str(uuid.uuid4())

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


def to_proxy_event(
    method: str,
    raw_path: str,
    headers: Mapping[str, str],
    body: bytes,
    peer: str,
    authorizer: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The proxy event for one request. `authorizer` stands in for a Lambda authorizer's context
    (see agentmem.api.principals); the local server fills it from an API key or, in loopback
    development mode, from the `X-Agentmem-Principals` header."""
    parts = urlsplit(raw_path)
    path = unquote(parts.path)  # API Gateway hands the Lambda a decoded path
    multi = parse_qs(parts.query, keep_blank_values=True)
    try:
        text, encoded = (body.decode("utf-8"), False) if body else (None, False)
    except UnicodeDecodeError:
        # API Gateway hands undecodable bodies over base64-encoded; the resolver then answers 400.
        text, encoded = base64.b64encode(body).decode("ascii"), True
    request_id = str(uuid.uuid4())
    return {
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": dict(headers),
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": {k: v[-1] for k, v in multi.items()} or None,
        "multiValueQueryStringParameters": multi or None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "httpMethod": method,
            "path": path,
            "resourcePath": path,
            "stage": "local",
            "requestId": request_id,
            "identity": {"sourceIp": peer},
            **({"authorizer": dict(authorizer)} if authorizer else {}),
        },
        "body": text,
        "isBase64Encoded": encoded,
    }
