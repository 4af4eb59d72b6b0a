"""The client's errors: one class per kind of answer the API gives, mapped from its error body
`{"error": {"code", "message", "field"}}` and the status. `MemoryApiError` is the base, so code
written against the single class of earlier versions keeps catching everything."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


class MemoryApiError(Exception):
    """A non-2xx answer (or no answer at all: `status` 0), with the API's error code, message,
    the offending field when one is at fault, and every problem found for a 422 (`details`)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        field: str | None,
        *,
        details: list[dict[str, Any]] | None = None,
        retry_after_seconds: float | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" (field: {field})" if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.details = details or []
        self.retry_after_seconds = retry_after_seconds


class Invalid(MemoryApiError):
    """The request was refused as it stands (400, 415, 422): `field` names what to fix."""


class PayloadTooLarge(Invalid):
    """Content over the API's ceiling (413); the message names the limit."""


class Unauthorized(MemoryApiError):
    """No valid API key (401, from `agentmem serve` with AGENTMEM_API_KEYS)."""


class Forbidden(MemoryApiError):
    """The caller's role or principals do not allow this (403, docs/access.md)."""


class NotFound(MemoryApiError):
    """No such resource or route (404)."""


class Conflict(MemoryApiError):
    """The request conflicts with stored state (409), e.g. an idempotency key reused for
    another body."""


class Gone(MemoryApiError):
    """The subject was erased (410, code `subject_erased`): nothing more is written about it."""


class Throttled(MemoryApiError):
    """The backend is throttled or busy (429, 503) and the client's retries ran out, or the
    server asked for a wait longer than the client may sleep; `retry_after_seconds` says when."""


class ServerError(MemoryApiError):
    """A fault on the server's side (500, 502, 504)."""


class TransportFailed(MemoryApiError):
    """No answer: the connection failed or timed out on every attempt (status 0)."""


class NoCredentials(MemoryApiError):
    """SigV4 signing was asked for but the credential chain found no AWS credentials."""


_BY_STATUS: dict[int, type[MemoryApiError]] = {
    400: Invalid,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    410: Gone,
    413: PayloadTooLarge,
    415: Invalid,
    422: Invalid,
    429: Throttled,
    503: Throttled,
}


def error_class(status: int) -> type[MemoryApiError]:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status >= 500 else MemoryApiError


def error_from_answer(status: int, content: bytes, retry_after_seconds: float | None) -> MemoryApiError:
    """The typed error for a non-2xx answer. A body that is not the API's error shape (a proxy's
    HTML page, say) still gives the class of its status, with code `http_error`."""
    error: Mapping[str, Any] = {}
    try:
        payload = json.loads(content) if content else None
    except ValueError:
        payload = None
    if isinstance(payload, dict) and isinstance(payload.get("error"), dict):
        error = payload["error"]
    # API Gateway's own refusals (a bad signature, a missing route) answer {"message": ...}.
    fallback = payload.get("message", "") if isinstance(payload, dict) else ""
    details = error.get("details")
    return error_class(status)(
        status,
        str(error.get("code") or "http_error"),
        str(error.get("message") or fallback or content[:200].decode("utf-8", "replace")),
        error.get("field"),
        details=details if isinstance(details, list) else None,
        retry_after_seconds=retry_after_seconds,
    )
