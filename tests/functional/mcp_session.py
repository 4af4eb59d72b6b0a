"""Helpers for the MCP tests: a real SDK client session, notifications recorded, results read."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from mcp import Client, types

from agentmem.access import WRITER, Caller
from agentmem.demo import skill_library
from agentmem.entrypoints.mcp_server.backend import LocalBackend
from agentmem.entrypoints.mcp_server.identity import FixedIdentity
from agentmem.entrypoints.mcp_server.server import ServerOptions, build_server
from agentmem.wiring import Services

SEARCHES = ["search_functions", "search_guidance"]
READ_TOOLS = [
    *SEARCHES,
    "memory_context",
    "beliefs_search",
    "belief_history",
    "get_function",
    "get_guidance",
    "compose_skill",
]
WRITE_TOOLS = ["memory_append", "review_session"]
READER_TOOLS = [*READ_TOOLS, "memory_append"]
"""A reader appends, as every caller may (access.may_append_events), but reviews nothing."""
WRITER_CALLER = Caller.of(["writer", "analyst"], WRITER)


@dataclass
class Recorder:
    """Every notification the server sent the client, in order."""

    seen: list[Any] = field(default_factory=list)

    async def __call__(self, message: Any) -> None:
        self.seen.append(message)

    def tools_changed(self) -> int:
        return sum(
            1
            for m in self.seen
            if isinstance(m, types.ToolListChangedNotification)
            or getattr(getattr(m, "root", None), "method", "") == "notifications/tools/list_changed"
        )


def seeded(services: Services) -> Services:
    skill_library.install(services.skills)
    services.skill_search.sync()  # the local worker's job when serving: indexed before any search
    return services


@asynccontextmanager
async def session(
    services: Services,
    caller: Caller = WRITER_CALLER,
    *,
    mode: str = "legacy",
    recorder: Recorder | None = None,
    **options: Any,
) -> AsyncIterator[Client]:
    """An in-process session (memory streams in the handshake era; the SDK's direct dispatcher in
    the 2026-07-28 era), as the SDK's own tests connect to a server."""
    server = build_server(LocalBackend(services), FixedIdentity(caller), ServerOptions(**options))
    async with Client(server, mode=mode, message_handler=recorder, raise_exceptions=True) as client:
        yield client


async def names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


async def unlock(client: Client) -> None:
    for name in SEARCHES:
        result = await client.call_tool(name, {"task": "monthly savings plan for a goal"})
        assert not result.is_error, result


def ok(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    text = result.content[0]
    assert isinstance(text, types.TextContent) and json.loads(text.text) == result.structured_content
    return result.structured_content


def error(result: types.CallToolResult) -> dict[str, Any]:
    assert result.is_error, result.structured_content
    assert result.structured_content is not None
    body: dict[str, Any] = result.structured_content["error"]
    return body
