"""One rule for who may append events (access.may_append_events, docs/access.md): every caller the
tenant admits, whatever its role, on every transport: the HTTP API (raw and through the SDK
client), MCP in process and MCP over streamable HTTP at /mcp (stdio: test_mcp_transports.py).
The writer role still guards what is authored: a reader's review is refused on each."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from agentmem.access import Caller
from agentmem.api.app import build_resolver
from agentmem.client import Forbidden, MemoryClient
from agentmem.entrypoints.mcp_server.http import mcp_mount
from agentmem.entrypoints.server import ApiKeys, LocalServer
from agentmem.wiring import Services
from tests.functional.conftest import Call
from tests.functional.mcp_session import READER_TOOLS, error, names, ok, seeded, session, unlock

READER_KEY = "reader-key-0123456789"
READER = Caller.of(["analyst"])
EVENT = {"subject_id": "priya", "round": 0, "agent": "analyst", "kind": "note"}


@pytest.fixture
def served(services: Services) -> Iterator[str]:
    """`agentmem serve` as deployed with keys: the API and /mcp, one reader key."""
    keys = ApiKeys.from_setting(json.dumps({READER_KEY: {"principals": ["analyst"], "role": "reader"}}))
    mount = mcp_mount(services, loopback=True)
    with LocalServer(
        lambda: build_resolver(services), port=0, api_keys=keys, mounts=[mount.route], lifespan=mount.lifespan
    ) as server:
        yield server.url


def contents(services: Services) -> list[Any]:
    return [event.content for event in services.episodic.list_events("s1").items]


@pytest.mark.parametrize(
    ("principals", "role"), [("analyst", None), ("writer,analyst", "reader"), (None, None)]
)
def test_over_http_a_reader_or_an_anonymous_caller_appends(
    api: Call, services: Services, principals: str | None, role: str | None
) -> None:
    status, ack = api(
        "POST", "/v1/sessions/s1/events", {**EVENT, "content": "by http"}, principals=principals, role=role
    )
    assert (status, ack["seq"]) == (201, 1), ack
    assert contents(services) == ["by http"]


def test_a_reader_appends_on_every_transport_and_reviews_on_none(services: Services, served: str) -> None:
    seeded(services)  # libraries with entries: the reader's set is checked behind the gate too
    client = MemoryClient(served, api_key=READER_KEY)
    assert client.append_event("s1", **EVENT, content="sdk client").seq == 1
    with pytest.raises(Forbidden):
        client.review_session("s1")

    async def over_mcp(connect: Callable[[], Any], content: str) -> None:
        async with connect() as mcp:
            await unlock(mcp)
            assert await names(mcp) == READER_TOOLS
            ok(await mcp.call_tool("memory_append", {"session_id": "s1", **EVENT, "content": content}))
            refused = error(await mcp.call_tool("review_session", {"session_id": "s1"}))
            assert refused["code"] == "unknown_tool"

    def streamable() -> Client:
        headers = {"authorization": f"Bearer {READER_KEY}"}
        http = httpx2.AsyncClient(headers=headers, timeout=60)
        return Client(streamable_http_client(f"{served}/mcp", http_client=http), mode="legacy")

    transports: list[tuple[Callable[[], Any], str]] = [
        (lambda: session(services, READER), "mcp in process"),
        (streamable, "mcp at /mcp"),
    ]
    for connect, content in transports:
        anyio.run(over_mcp, connect, content)
    assert contents(services) == ["sdk client", "mcp in process", "mcp at /mcp"]
    assert all(status == "approved" for _, _, status, _ in services.skills.stamps())  # no review drafts


def test_a_reader_on_an_empty_library_sees_memory_append_in_its_first_list(services: Services) -> None:
    async def test() -> None:
        async with session(services, READER) as mcp:
            assert await names(mcp) == READER_TOOLS
            ack = ok(await mcp.call_tool("memory_append", {"session_id": "s1", **EVENT, "content": "first"}))
            assert ack["seq"] == 1

    anyio.run(test)
    assert contents(services) == ["first"]
