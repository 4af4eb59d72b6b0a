"""Tool results and tool errors, in the API's shapes.

A result carries the API's answer twice, as MCP asks: as structured content (validated by the
client against the tool's output schema) and as its JSON text. An error is a tool result with
`isError` set, so the model reads it and can correct itself, carrying the API's error body
`{"error": {"code", "message", "field"}}` with the field at fault named, as a 4xx would."""

from __future__ import annotations

import json
import logging
from typing import Any

from mcp import types
from pydantic import BaseModel, ValidationError

from agentmem import errors

logger = logging.getLogger(__name__)


def _field_of(location: tuple[int | str, ...]) -> str | None:
    """The argument at fault: `("facts", 0, "key")` names `facts`, as the HTTP API names the
    body's top-level field; `details` keeps the full path."""
    return str(location[0]) if location else None


def _path_of(location: tuple[int | str, ...]) -> str | None:
    return ".".join(str(part) for part in location) or None


def tool_result(answer: BaseModel) -> types.CallToolResult:
    structured: dict[str, Any] = answer.model_dump(mode="json")
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(structured, ensure_ascii=False))],
        structured_content=structured,
    )


def error_result(code: str, message: str, *, field: str | None = None, **extra: Any) -> types.CallToolResult:
    body = {"error": {"code": code, "message": message, "field": field, **extra}}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(body, ensure_ascii=False))],
        structured_content=body,
        is_error=True,
    )


def invalid_arguments(exc: ValidationError) -> types.CallToolResult:
    problems = exc.errors(include_url=False, include_input=False)
    first = problems[0]
    field = _field_of(tuple(first["loc"]))
    details = [{"field": _path_of(tuple(p["loc"])), "message": p["msg"], "type": p["type"]} for p in problems]
    return error_result(
        "validation_error", f"{field or 'arguments'}: {first['msg']}", field=field, details=details
    )


def failure_result(exc: Exception) -> types.CallToolResult:
    """A failure of the backend call, as the API would have answered it."""
    from agentmem.client import MemoryApiError

    if isinstance(exc, errors.BackendUnavailableError):
        return error_result(
            exc.code, exc.message, field=exc.field, retry_after_seconds=exc.retry_after_seconds
        )
    if isinstance(exc, errors.AgentMemError):
        return error_result(exc.code, exc.message, field=exc.field)
    if isinstance(exc, MemoryApiError):
        return error_result(exc.code, exc.message, field=exc.field, status=exc.status)
    if isinstance(exc, ValidationError):  # an answer of the tenant's API that does not parse
        logger.warning("unreadable answer from the backend", extra={"errors": exc.error_count()})
        return error_result("bad_gateway", "the tenant's API answered something this server cannot read")
    # A bug, not a backend fault: logged whole, answered without internals (as the API does).
    logger.exception("tool failed", extra={"error_type": type(exc).__name__})
    return error_result("internal_error", "internal error")
