"""Map every failure to the one JSON error shape: {"error": {"code", "message", "field"}}."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError as RouteNotFoundError
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from pydantic import BaseModel, Field

from agentmem import errors
from agentmem.api.json_body import BodyNumberError

logger = logging.getLogger(__name__)


class ErrorDetail(BaseModel):
    field: str | None
    message: str
    type: str


class ErrorBody(BaseModel):
    code: str = Field(description="Stable machine-readable code, e.g. validation_error.")
    message: str
    field: str | None = Field(description="The request field at fault, when one is.")
    details: list[ErrorDetail] | None = Field(default=None, description="Every problem found, for 422s.")


class ErrorResponse(BaseModel):
    error: ErrorBody


ERROR_DESCRIPTIONS = {
    400: "Body is not JSON, not UTF-8, nests too deeply, or holds a number that cannot be read.",
    403: "The caller's role or principals do not allow this write (see docs/access.md).",
    404: "No such resource or route.",
    405: "The route exists but not for this method.",
    409: "The request conflicts with stored state (e.g. an idempotency key reused for another body).",
    410: "The subject was erased: nothing more can be written or read about it.",
    413: "Content over the request ceiling; the message names the limit.",
    415: "The body is not sent as application/json.",
    422: "A field breaks a rule; `error.field` names it.",
    503: "Backend throttled or unavailable; retry after `Retry-After` seconds. Nothing was written.",
}


def error_responses(*statuses: int) -> dict[int, OpenAPIResponse]:
    """OpenAPI entries documenting the shared error shape for `statuses`."""
    return {
        status: {
            "description": ERROR_DESCRIPTIONS[status],
            "content": {"application/json": {"model": ErrorResponse}},
        }
        for status in statuses
    }


STATUS_BY_ERROR: dict[type[errors.AgentMemError], HTTPStatus] = {
    errors.InvalidInputError: HTTPStatus.UNPROCESSABLE_ENTITY,
    errors.ForbiddenError: HTTPStatus.FORBIDDEN,
    errors.NotFoundError: HTTPStatus.NOT_FOUND,
    errors.ConflictError: HTTPStatus.CONFLICT,
    errors.PayloadTooLargeError: HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
    errors.SubjectErasedError: HTTPStatus.GONE,
    errors.BackendUnavailableError: HTTPStatus.SERVICE_UNAVAILABLE,
}


def error_response(
    status: HTTPStatus,
    code: str,
    message: str,
    *,
    field: str | None = None,
    details: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> Response[dict[str, Any]]:
    error: dict[str, Any] = {"code": code, "message": message, "field": field}
    if details:
        error["details"] = details
    return Response(
        status_code=int(status),
        content_type=content_types.APPLICATION_JSON,
        body={"error": error},
        headers=headers,
    )


def _field_of(location: tuple[Any, ...]) -> str | None:
    """`("body", "content", "str")` names the field `content`; the union tag after it is noise."""
    if not location:
        return None
    if location[0] == "body":
        return str(location[1]) if len(location) > 1 and isinstance(location[1], str) else "body"
    return str(location[1]) if len(location) > 1 else str(location[0])


def _status_of(error: errors.AgentMemError) -> HTTPStatus:
    for cls in type(error).__mro__:
        if cls in STATUS_BY_ERROR:
            return STATUS_BY_ERROR[cls]
    return HTTPStatus.INTERNAL_SERVER_ERROR


PROCEDURAL_PREFIXES = ("/v1/functions", "/v1/guidance", "/v1/library")


def register_error_handlers(app: APIGatewayRestResolver, *, procedural_enabled: bool = True) -> None:
    @app.exception_handler(RequestValidationError)
    def _validation(exc: RequestValidationError) -> Response[dict[str, Any]]:
        problems = list(exc.errors())
        first = problems[0] if problems else {"loc": ("body",), "msg": "invalid request", "type": "invalid"}
        details = [
            {"field": _field_of(tuple(p["loc"])), "message": p["msg"], "type": p["type"]} for p in problems
        ]
        if first["type"] == "json_invalid":
            context = first.get("ctx") or {}
            reason = context.get("error", "") if isinstance(context, dict) else ""
            return error_response(
                HTTPStatus.BAD_REQUEST,
                "malformed_json",
                f"request body is not valid JSON: {reason}",
                field="body",
            )
        field = _field_of(tuple(first["loc"]))
        return error_response(
            HTTPStatus.UNPROCESSABLE_ENTITY,
            "validation_error",
            f"{field}: {first['msg']}",
            field=field,
            details=details,
        )

    @app.exception_handler(RecursionError)
    def _too_deep(exc: RecursionError) -> Response[dict[str, Any]]:
        return error_response(
            HTTPStatus.BAD_REQUEST, "malformed_json", "request body nests too deeply", field="body"
        )

    @app.exception_handler(BodyNumberError)
    def _unreadable_number(exc: BodyNumberError) -> Response[dict[str, Any]]:
        return error_response(HTTPStatus.BAD_REQUEST, exc.code, str(exc), field=exc.field)

    @app.exception_handler(UnicodeDecodeError)
    def _not_utf8(exc: UnicodeDecodeError) -> Response[dict[str, Any]]:
        return error_response(
            HTTPStatus.BAD_REQUEST,
            "invalid_encoding",
            f"request body is not UTF-8: {exc.reason}",
            field="body",
        )

    @app.exception_handler(errors.AgentMemError)
    def _domain(exc: errors.AgentMemError) -> Response[dict[str, Any]]:
        status = _status_of(exc)
        headers = None
        if isinstance(exc, errors.BackendUnavailableError):
            headers = {"Retry-After": str(exc.retry_after_seconds)}
            logger.warning("backend unavailable", extra={"code": exc.code, "reason": exc.message})
        return error_response(status, exc.code, exc.message, field=exc.field, headers=headers)

    @app.exception_handler(Exception)
    def _unexpected(exc: Exception) -> Response[dict[str, Any]]:
        # A bug, not a backend fault: log it whole, answer without internals.
        logger.exception("unhandled error", extra={"error_type": type(exc).__name__})
        return error_response(HTTPStatus.INTERNAL_SERVER_ERROR, "internal_error", "internal error")

    @app.not_found
    def _no_route(exc: RouteNotFoundError) -> Response[dict[str, Any]]:
        event = app.current_event
        if not procedural_enabled and event.path.startswith(PROCEDURAL_PREFIXES):
            return error_response(
                HTTPStatus.NOT_FOUND,
                "tier_disabled",
                "the procedural tier (functions, guidance, skills) is switched off for this deployment",
            )
        allowed = sorted(
            {r.method for r in app._static_routes + app._dynamic_routes if r.rule.match(event.path)}
        )
        if allowed:
            return error_response(
                HTTPStatus.METHOD_NOT_ALLOWED,
                "method_not_allowed",
                f"{event.path} answers {', '.join(allowed)}, not {event.http_method}",
                headers={"Allow": ", ".join(allowed)},
            )
        return error_response(
            HTTPStatus.NOT_FOUND, "no_route", f"no route for {event.http_method} {event.path}", field=None
        )
