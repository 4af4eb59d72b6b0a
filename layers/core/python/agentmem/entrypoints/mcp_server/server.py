"""The MCP server, on the SDK's low-level `Server`: the tool list is computed per request from
the caller's role, the server's --read-only flag and the session's search gate.

Both protocol eras the SDK speaks are served. On a handshake-era connection (2025-11-25 and
before) the gate opening is announced with `notifications/tools/list_changed` on the session; on
a 2026-07-28 connection, which has no session channel, on the `subscriptions/listen` streams the
client opened (the spec's way of delivering list changes in that era)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from agentmem import __version__
from agentmem.access import Caller
from agentmem.entrypoints.mcp_server.backend import MemoryBackend
from agentmem.entrypoints.mcp_server.gate import SearchGate, session_key
from agentmem.entrypoints.mcp_server.identity import Identity
from agentmem.entrypoints.mcp_server.resources import Resources
from agentmem.entrypoints.mcp_server.results import (
    error_result,
    failure_result,
    invalid_arguments,
    tool_result,
)
from agentmem.entrypoints.mcp_server.tools import SEARCHES, TOOLS, ToolSpec, searches_of

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Shared memory for a team of agents. Where the skill libraries hold entries, search them first "
    "(search_functions and search_guidance) for what you are about to do: the other tools appear "
    "once you have, and the server announces the change. Where both libraries are empty, or the "
    "operator turned the search gate off (agentmem mcp --no-gate, AGENTMEM_MCP_SEARCH_GATE=off), "
    "every tool is listed from the start. Read your context with memory_context before you act, "
    "and append your output with memory_append."
)


@dataclass
class ConnectionScope:
    """What the lifespan yields: once per connection on stdio and in-process, once per process on
    streamable HTTP (where the gate tells sessions apart by key)."""

    gate: SearchGate
    bus: InMemorySubscriptionBus = field(default_factory=InMemorySubscriptionBus)
    listen: ListenHandler = field(init=False)

    def __post_init__(self) -> None:
        self.listen = ListenHandler(self.bus)


@dataclass(frozen=True)
class ServerOptions:
    read_only: bool = False
    search_gate: bool = True


class AgentMemServer(Server[ConnectionScope]):
    """A low-level `Server` that always declares its tool list may change: the in-process and
    stdio transports build their initialization options without arguments."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


def tool_set(backend: MemoryBackend, caller: Caller, options: ServerOptions) -> list[ToolSpec]:
    """Every tool this caller may have: what its role permits (the API routes' own rules), no
    write tool on a --read-only server, no skill tool when the tier is switched off."""
    return [
        t
        for t in TOOLS
        if t.permitted(caller)
        and not (t.writes and options.read_only)
        and (backend.procedural_enabled or not t.procedural)
    ]


def _listed(tool: ToolSpec) -> types.Tool:
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.input_schema(),
        output_schema=tool.output_schema(),
        annotations=types.ToolAnnotations(read_only_hint=not tool.writes, open_world_hint=False),
    )


def _caller_key(caller: Caller) -> str:
    return f"{caller.role}:{','.join(sorted(caller.principals))}"


def build_server(
    backend: MemoryBackend, identity: Identity, options: ServerOptions | None = None
) -> Server[Any]:
    options = options or ServerOptions()
    listed = {tool.name: _listed(tool) for tool in TOOLS}  # schemas are built once, not per list

    @asynccontextmanager
    async def lifespan(_: Server[ConnectionScope]) -> AsyncIterator[ConnectionScope]:
        yield ConnectionScope(SearchGate(enabled=options.search_gate and backend.procedural_enabled))

    async def visible(
        ctx: ServerRequestContext[ConnectionScope], caller: Caller
    ) -> tuple[list[ToolSpec], list[str], str]:
        """The caller's tools this session may see now, the searches it still misses, its key."""
        session = session_key(ctx.request, _caller_key(caller))
        gate = ctx.lifespan_context.gate
        if gate.meets(session):
            gate.start(session, await anyio.to_thread.run_sync(partial(_asked, backend)))
        missing = gate.missing(session)
        tools = tool_set(backend, caller, options)
        return [t for t in tools if not missing or t.searches], missing, session

    async def list_tools(
        ctx: ServerRequestContext[ConnectionScope], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools, _, _ = await visible(ctx, identity.caller(ctx.request))
        return types.ListToolsResult(tools=[listed[t.name] for t in tools])

    async def call_tool(
        ctx: ServerRequestContext[ConnectionScope], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        caller = identity.caller(ctx.request)
        tools, missing, session = await visible(ctx, caller)
        tool = next((t for t in tools if t.name == params.name), None)
        if tool is None:
            return _refusal(params.name, missing, [t.name for t in tool_set(backend, caller, options)])
        try:
            arguments = tool.arguments.model_validate(params.arguments or {})
        except ValidationError as exc:
            return invalid_arguments(exc)
        try:
            # The backends block (SQLite, the embedder, HTTP): a worker thread keeps the loop free.
            answer = await anyio.to_thread.run_sync(partial(tool.run, backend, arguments, caller))
        except Exception as exc:
            return failure_result(exc)
        if ctx.lifespan_context.gate.record(session, tool.name):
            logger.info("search gate opened", extra={"session": session[:80]})
            await _announce_tools_changed(ctx)
        return tool_result(answer)

    resources = Resources(backend)
    return AgentMemServer(
        "agentmem",
        version=__version__,
        title="agentmem shared memory",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=resources.list_resources,
        on_list_resource_templates=resources.list_templates,
        on_read_resource=resources.read,
        on_subscriptions_listen=_listen,
    )


def _asked(backend: MemoryBackend) -> tuple[str, ...]:
    """The searches a new session must run: one per library with entries. Should the libraries
    not answer, it is both, as if stocked: the gate's usual ask, and the searches' own errors
    then tell the agent what is wrong."""
    try:
        return searches_of(backend.stocked_libraries())
    except Exception as exc:
        logger.warning(
            "could not tell which skill libraries hold entries; gating on both",
            extra={"error_type": type(exc).__name__, "error": str(exc)[:200]},
        )
        return SEARCHES


def _refusal(name: str, missing: list[str], allowed: list[str]) -> types.CallToolResult:
    if name in allowed:
        return error_result(
            "search_required",
            f"{name} is available once this session has searched the skill libraries: call "
            f"{' and '.join(missing)} first",
            field="name",
            missing=missing,
        )
    return error_result(
        "unknown_tool", f"no tool {name!r} for this caller; its tools are {', '.join(allowed)}", field="name"
    )


async def _announce_tools_changed(ctx: ServerRequestContext[ConnectionScope]) -> None:
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        await ctx.lifespan_context.bus.publish(ToolsListChanged())
    else:
        await ctx.session.send_tool_list_changed()


async def _listen(
    ctx: ServerRequestContext[ConnectionScope], params: types.SubscriptionsListenRequestParams
) -> types.SubscriptionsListenResult:
    return await ctx.lifespan_context.listen(ctx, params)
