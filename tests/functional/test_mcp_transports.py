"""The MCP server over its real transports: `agentmem mcp` as a subprocess over stdio, `/mcp` on
`agentmem serve` over streamable HTTP, and a deployed tenant's API as the backend (the SigV4
proxy's path, here against a local server over HTTP)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.entrypoints.mcp_server.http import mcp_mount
from agentmem.entrypoints.mcp_server.identity import FixedIdentity, remote_caller
from agentmem.entrypoints.mcp_server.remote import RemoteBackend
from agentmem.entrypoints.mcp_server.server import build_server
from agentmem.entrypoints.server import ApiKeys, LocalServer
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.functional.mcp_session import (
    READ_TOOLS,
    READER_TOOLS,
    SEARCHES,
    WRITE_TOOLS,
    Recorder,
    error,
    names,
    ok,
    unlock,
)

ROOT = Path(__file__).resolve().parents[2]
WRITER_KEY = "writer-key-0123456789"
READER_KEY = "reader-key-0123456789"
KEYS = {
    WRITER_KEY: {"principals": ["planner"], "role": "writer"},
    READER_KEY: {"principals": ["analyst"], "role": "reader"},
}
APPEND = {"session_id": "s1", "subject_id": "priya", "round": 0, "agent": "planner", "kind": "note"}


@pytest.fixture
def data_dir(settings: Settings) -> Path:
    from agentmem.demo import skill_library

    skill_library.install(bootstrap(settings).skills)
    return settings.data_dir


def stdio(data_dir: Path, *flags: str, **env: str) -> StdioServerParameters:
    environ = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "layers" / "core" / "python"),
        "AGENTMEM_DATA_DIR": str(data_dir),
        **env,
    }
    return StdioServerParameters(
        command=sys.executable, args=["-m", "agentmem.entrypoints.cli", "mcp", *flags], env=environ
    )


# -- stdio -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_over_stdio_the_gate_opens_with_a_notification_and_a_key_scopes_the_set(data_dir: Path) -> None:
    async def test() -> None:
        recorder = Recorder()
        writer = stdio(data_dir, AGENTMEM_API_KEYS=json.dumps(KEYS), AGENTMEM_API_KEY=WRITER_KEY)
        async with Client(writer, mode="legacy", message_handler=recorder) as client:
            assert await names(client) == SEARCHES
            assert (
                error(await client.call_tool("memory_append", {**APPEND, "content": "x"}))["missing"]
                == SEARCHES
            )
            await unlock(client)
            assert recorder.tools_changed() == 1
            assert await names(client) == READ_TOOLS + WRITE_TOOLS
            assert ok(await client.call_tool("memory_append", {**APPEND, "content": "planned"}))["seq"] == 1
        reader = stdio(data_dir, AGENTMEM_API_KEYS=json.dumps(KEYS), AGENTMEM_API_KEY=READER_KEY)
        async with Client(reader) as client:  # the SDK's default: the 2026-07-28 era
            await unlock(client)
            assert await names(client) == READER_TOOLS  # a reader appends, as over HTTP
            closure = ok(await client.call_tool("get_function", {"function_id": "funding_row"}))
            assert [f["function_id"] for f in closure["items"]][-1] == "funding_row"
            ok(await client.call_tool("memory_append", {**APPEND, "agent": "analyst", "content": "read"}))

    anyio.run(test)
    assert [e.content for e in bootstrap(Settings(data_dir=data_dir)).episodic.list_events("s1").items] == [
        "planned",
        "read",
    ]


@pytest.mark.slow
def test_over_stdio_read_only_exposes_no_write_tool(data_dir: Path) -> None:
    async def test() -> None:
        async with Client(stdio(data_dir, "--read-only", "--principals", "writer")) as client:
            await unlock(client)
            assert await names(client) == READ_TOOLS

    anyio.run(test)


@pytest.mark.slow
def test_over_stdio_an_empty_library_or_no_gate_lists_every_tool_first(
    data_dir: Path, tmp_path: Path
) -> None:
    # A memory-only host (empty libraries) and a stocked one started --no-gate both see the memory
    # tools in their first tools/list, which such a host may cache for good; the stocked data dir
    # gates without the flag (the first stdio test).
    async def test() -> None:
        for directory, flags in ((tmp_path / "empty", ()), (data_dir, ("--no-gate",))):
            async with Client(stdio(directory, "--principals", "writer", *flags), mode="legacy") as client:
                assert await names(client) == READ_TOOLS + WRITE_TOOLS, flags

    anyio.run(test)


def test_a_server_without_its_key_refuses_to_start(data_dir: Path) -> None:
    command = [sys.executable, "-m", "agentmem.entrypoints.cli", "mcp", "--data-dir", str(data_dir)]
    environ = {**os.environ, "PYTHONPATH": str(ROOT / "layers" / "core" / "python")}
    environ["AGENTMEM_API_KEYS"] = json.dumps(KEYS)
    environ["AGENTMEM_API_KEY"] = "not-a-configured-key-0000"
    done = subprocess.run(
        command,
        check=False,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "AGENTMEM_API_KEY" in done.stderr and "not-a-configured-key" not in done.stderr


# -- streamable HTTP on agentmem serve ------------------------------------------------------------


@contextmanager
def serving(settings: Settings) -> Iterator[str]:
    services = bootstrap(settings)
    keys = ApiKeys.from_setting(json.dumps(KEYS))
    mount = mcp_mount(services, loopback=True)
    with LocalServer(
        lambda: build_resolver(services), port=0, api_keys=keys, mounts=[mount.route], lifespan=mount.lifespan
    ) as server:
        yield server.url


@pytest.fixture
def served(data_dir: Path) -> Iterator[str]:
    with serving(Settings(data_dir=data_dir)) as url:
        yield url


def http(url: str, key: str | None) -> Any:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    return streamable_http_client(f"{url}/mcp", http_client=httpx2.AsyncClient(headers=headers, timeout=60))


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_mcp_on_the_local_server_scopes_each_request_by_its_key(served: str, mode: str) -> None:
    async def test() -> None:
        async with Client(http(served, WRITER_KEY), mode=mode) as writer:
            assert await names(writer) == SEARCHES
            await unlock(writer)
            assert await names(writer) == READ_TOOLS + WRITE_TOOLS
            assert ok(await writer.call_tool("memory_append", {**APPEND, "content": "over http"}))["seq"] == 1
        async with Client(http(served, READER_KEY), mode=mode) as reader:
            # A new session (handshake era) or another caller (2026-07-28): the gate is closed again.
            assert await names(reader) == SEARCHES
            await unlock(reader)
            assert await names(reader) == READER_TOOLS

    anyio.run(test)


def test_the_gate_setting_as_a_tenant_writes_it_turns_off_mcp_on_the_local_server(data_dir: Path) -> None:
    settings = Settings.from_env({"AGENTMEM_DATA_DIR": str(data_dir), "AGENTMEM_MCP_SEARCH_GATE": "off"})

    async def test(url: str) -> None:
        async with Client(http(url, WRITER_KEY), mode="legacy") as writer:  # libraries stocked
            assert await names(writer) == READ_TOOLS + WRITE_TOOLS

    with serving(settings) as url:
        anyio.run(test, url)


def test_mcp_on_the_local_server_needs_a_key_once_keys_are_set(served: str) -> None:
    answer = httpx2.post(f"{served}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=30)
    assert answer.status_code == 401 and answer.json()["error"]["field"] == "authorization"


# -- a deployed tenant through the HTTP client ----------------------------------------------------


def test_a_tenant_reached_through_its_api_answers_the_same_tools(services: Services) -> None:
    from agentmem.demo import skill_library

    skill_library.install(services.skills)
    services.skill_search.sync()  # what the serving worker does before the first search
    with LocalServer(lambda: build_resolver(services), port=0) as local:
        client = MemoryClient(local.url, local_principals="writer")
        server = build_server(RemoteBackend(client), FixedIdentity(remote_caller(read_only=False)))

        async def test() -> None:
            async with Client(server, mode="legacy") as mcp:
                found = ok(
                    await mcp.call_tool("search_functions", {"task": "monthly saving", "budget_tokens": 200})
                )
                assert "monthly_saving" in [f["function_id"] for f in found["functions"]]
                assert found["used_tokens"] <= 200
                ok(await mcp.call_tool("search_guidance", {"task": "savings plan"}))
                closure = ok(await mcp.call_tool("get_function", {"function_id": "funding_row"}))
                assert [f["function_id"] for f in closure["items"]] == [
                    "monthly_saving",
                    "vehicle",
                    "funding_row",
                ]
                ack = ok(await mcp.call_tool("memory_append", {**APPEND, "content": "remote"}))
                assert ack["seq"] == 1
                context = ok(
                    await mcp.call_tool(
                        "memory_context",
                        {
                            "subject_id": "priya",
                            "session_id": "s1",
                            "agent": "planner",
                            "query": "what happened",
                        },
                    )
                )
                assert "remote" in context["markdown"] and context["trace"]["used_tokens"] <= 3000
                missing = error(await mcp.call_tool("compose_skill", {"skill_id": "nope", "question": "q"}))
                assert (missing["code"], missing["field"], missing["status"]) == (
                    "not_found",
                    "skill_id",
                    404,
                )

        anyio.run(test)
    events = services.episodic.list_events("s1").items
    assert [e.content for e in events] == ["remote"] and (events[0].idempotency_key or "").startswith("auto-")
