"""The search gate follows the skill libraries, through a real SDK client session: with both empty
(a memory-only host, which may cache its first `tools/list`) every tool is listed from the start
and no change is ever announced; a session is asked only for the search of each library holding
approved entries; what a session was asked for holds while it runs. The gate with both libraries
stocked, and the setting that turns it off, are pinned in test_mcp_server.py; `--no-gate` and an
empty data dir over stdio in test_mcp_transports.py; a deployed tenant below."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.entrypoints.mcp_server.identity import FixedIdentity, remote_caller
from agentmem.entrypoints.mcp_server.remote import RemoteBackend
from agentmem.entrypoints.mcp_server.server import INSTRUCTIONS, build_server
from agentmem.entrypoints.server import LocalServer
from agentmem.procedural.model import FunctionSpec, GuidanceSpec
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.functional.mcp_session import (
    READ_TOOLS,
    SEARCHES,
    WRITE_TOOLS,
    Recorder,
    error,
    names,
    ok,
    seeded,
    session,
)

ALL_TOOLS = READ_TOOLS + WRITE_TOOLS
APPEND = {"session_id": "s1", "subject_id": "priya", "round": 0, "agent": "intake", "kind": "note"}
FUNCTION = FunctionSpec(function_id="net", name="net_revenue", implementation="def net_revenue(m): ...")
GUIDANCE = GuidanceSpec(guidance_id="close", title="Month-end close", content="Net the month's revenue.")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_with_both_libraries_empty_every_tool_is_listed_from_the_first_list(
    services: Services, mode: str
) -> None:
    async def test() -> None:
        recorder = Recorder()
        async with session(services, mode=mode, recorder=recorder) as client:
            assert await names(client) == ALL_TOOLS
            ok(await client.call_tool("memory_append", {**APPEND, "content": "no search needed"}))
            ok(await client.call_tool("search_functions", {"task": "anything"}))  # still callable
            ok(await client.call_tool("search_guidance", {"task": "anything"}))
            assert await names(client) == ALL_TOOLS and recorder.tools_changed() == 0  # nothing changed

    anyio.run(test)
    assert [e.content for e in services.episodic.list_events("s1").items] == ["no search needed"]


def test_drafts_alone_leave_the_libraries_empty_for_the_gate(services: Services) -> None:
    # A search never finds a draft, so asking for it would find nothing.
    services.skills.put_function(FUNCTION)
    services.skills.put_guidance(GUIDANCE)

    async def test() -> None:
        async with session(services) as client:
            assert await names(client) == ALL_TOOLS

    anyio.run(test)


def test_a_session_is_asked_only_for_the_search_of_the_library_with_entries(services: Services) -> None:
    services.skills.put_function(FUNCTION)
    services.skills.approve("function", "net")
    services.skill_search.sync()

    async def test() -> None:
        recorder = Recorder()
        async with session(services, recorder=recorder) as client:
            assert await names(client) == SEARCHES
            refused = error(await client.call_tool("memory_context", {"x": 1}))
            assert (refused["code"], refused["missing"]) == ("search_required", ["search_functions"])
            assert "call search_functions first" in refused["message"]
            ok(await client.call_tool("search_guidance", {"task": "month-end close"}))
            assert recorder.tools_changed() == 0  # guidance has nothing to find: it opens nothing
            ok(await client.call_tool("search_functions", {"task": "net revenue"}))
            assert recorder.tools_changed() == 1
            assert await names(client) == ALL_TOOLS

    anyio.run(test)


def test_a_session_keeps_its_list_when_skills_are_approved_under_it(services: Services) -> None:
    async def test() -> None:
        async with session(services) as running:
            assert await names(running) == ALL_TOOLS
            await anyio.to_thread.run_sync(seeded, services)
            assert await names(running) == ALL_TOOLS  # a host that cached the list is still right
            ok(await running.call_tool("get_function", {"function_id": "vehicle"}))
            async with session(services) as started_after:
                assert await names(started_after) == SEARCHES

    anyio.run(test)


def test_the_instructions_say_when_the_gate_applies_and_how_to_turn_it_off(services: Services) -> None:
    async def test() -> None:
        async with session(services) as client:
            assert client.instructions == INSTRUCTIONS

    anyio.run(test)
    assert (
        "both libraries are empty" in INSTRUCTIONS and "every tool is listed from the start" in INSTRUCTIONS
    )
    assert "--no-gate" in INSTRUCTIONS and "AGENTMEM_MCP_SEARCH_GATE=off" in INSTRUCTIONS


# -- a deployed tenant: the proxy asks the tenant's listing routes ---------------------------------


@pytest.mark.parametrize(
    ("procedural", "stocked", "first_list"),
    [(True, False, ALL_TOOLS), (True, True, SEARCHES), (False, False, ALL_TOOLS)],
    ids=["empty libraries", "stocked libraries", "procedural tier off"],
)
def test_a_tenant_gates_by_its_own_libraries(
    settings: Settings, procedural: bool, stocked: bool, first_list: list[str]
) -> None:
    services = bootstrap(settings.model_copy(update={"procedural_enabled": procedural}))
    if stocked:
        seeded(services)
    with LocalServer(lambda: build_resolver(services), port=0) as local:
        backend = RemoteBackend(MemoryClient(local.url, local_principals="writer"))
        server = build_server(backend, FixedIdentity(remote_caller(read_only=False)))

        async def test() -> None:
            async with Client(server, mode="legacy") as client:
                assert await names(client) == first_list

        anyio.run(test)
