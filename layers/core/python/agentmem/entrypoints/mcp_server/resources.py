"""Read-only resources for a client to attach to a conversation: a subject's current beliefs (the
JSON of `GET /v1/subjects/{id}/beliefs`) and a guidance document (its markdown).

They are addressed by URI template, so nothing is listed up front: a subject or a guidance id is
named by whoever attaches it. Resources are the client application's to read, not the model's
tools, so the search gate does not apply to them. An unknown subject or guidance, or a malformed
URI, is an invalid-params error whose data is the API's error body, naming the field."""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import TypeAdapter, ValidationError

from agentmem.entrypoints.mcp_server.backend import MemoryBackend
from agentmem.errors import AgentMemError
from agentmem.model.common import Identifier

BELIEFS = "agentmem://subjects/{subject_id}/beliefs"
GUIDANCE = "agentmem://guidance/{guidance_id}"
_BELIEFS = re.compile(r"^agentmem://subjects/(?P<id>[^/]+)/beliefs$")
_GUIDANCE = re.compile(r"^agentmem://guidance/(?P<id>[^/]+)$")
_ID: TypeAdapter[str] = TypeAdapter(Identifier)

TEMPLATES = [
    types.ResourceTemplate(
        name="beliefs",
        title="Current beliefs of a subject",
        uri_template=BELIEFS,
        description="Every current belief about the subject, with versions, flags and provenance.",
        mime_type="application/json",
    ),
    types.ResourceTemplate(
        name="guidance",
        title="A guidance document",
        uri_template=GUIDANCE,
        description="A written procedure of the skill library, as markdown.",
        mime_type="text/markdown",
    ),
]


def _invalid(message: str, field: str) -> MCPError:
    return MCPError(
        INVALID_PARAMS, message, {"error": {"code": "invalid_uri", "message": message, "field": field}}
    )


def _identifier(raw: str, field: str) -> str:
    try:
        return _ID.validate_python(raw)
    except ValidationError:
        raise _invalid(f"{field} {raw[:130]!r} is not an id ([A-Za-z0-9._:-], 1 to 128)", field) from None


class Resources:
    def __init__(self, backend: MemoryBackend) -> None:
        self._backend = backend

    async def list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])

    async def list_templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=TEMPLATES)

    async def read(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            text, mime = await anyio.to_thread.run_sync(lambda: self._contents(uri))
        except AgentMemError as exc:
            body = {"error": {"code": exc.code, "message": exc.message, "field": exc.field}}
            raise MCPError(INVALID_PARAMS, exc.message, body) from None
        except MCPError:
            raise
        except Exception as exc:
            from agentmem.client import MemoryApiError

            if isinstance(exc, MemoryApiError):
                body = {"error": {"code": exc.code, "message": exc.message, "field": exc.field}}
                raise MCPError(
                    INVALID_PARAMS if exc.status < 500 else INTERNAL_ERROR, exc.message, body
                ) from None
            raise
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
        )

    def _contents(self, uri: str) -> tuple[str, str]:
        if found := _BELIEFS.match(uri):
            subject_id = _identifier(found["id"], "subject_id")
            beliefs = self._backend.beliefs(subject_id)
            return json.dumps(beliefs.model_dump(mode="json"), ensure_ascii=False), "application/json"
        if found := _GUIDANCE.match(uri):
            guidance = self._backend.guidance(_identifier(found["id"], "guidance_id"))
            uses = (
                f"\n\nFunctions it uses: {', '.join(guidance.function_ids)}" if guidance.function_ids else ""
            )
            return f"# {guidance.title}\n\n{guidance.content}{uses}\n", "text/markdown"
        raise _invalid(f"no resource at {uri[:200]!r}; the templates are {BELIEFS} and {GUIDANCE}", "uri")
