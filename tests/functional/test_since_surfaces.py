"""`since` on every surface besides the HTTP route (test_since_reads.py): the in-process
`Memory.context`, the MCP `memory_context` tool and the LangGraph store, sync and async."""

from __future__ import annotations

import asyncio
from pathlib import Path

import anyio

from agentmem import Memory
from agentmem.api.app import build_resolver
from agentmem.client import AsyncMemoryClient, MemoryClient
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import LocalServer
from agentmem.integrations.langgraph import AgentMemStore
from agentmem.settings import Settings
from agentmem.wiring import Services
from tests.functional.mcp_session import ok, seeded, session


def test_memory_context_leads_with_what_changed_since(tmp_path: Path) -> None:
    with Memory(tmp_path, subject="maya", session="chat-1", settings=Settings()) as memory:
        memory.append("Maya lives in Lisbon.")
        memory.flush()
        first = memory.context("Where does Maya live?", budget_tokens=300)
        memory.append("I live in Porto now.", agent="user", session="chat-2")
        memory.flush()
        again = memory.context("Where does Maya live?", budget_tokens=300, since=first.trace.watermark)
    assert again.trace.new_since == ["belief:city"]
    assert again.markdown.split("\n\n")[1].startswith("## Changed since your last read\n- **city**:")
    assert "Porto" in again.markdown.split("\n\n")[1]


def test_the_mcp_tool_takes_since(services: Services) -> None:
    facts = [{"key": "risk_tolerance", "text": "Priya's risk tolerance is cautious.", "value": "cautious"}]
    later = [{"key": "risk_tolerance", "text": "Priya's risk tolerance is balanced.", "value": "balanced"}]
    append = {"session_id": "s1", "subject_id": "priya", "round": 0, "agent": "intake", "kind": "profile"}
    read = {"subject_id": "priya", "session_id": "s1", "agent": "planner", "query": "risk"}
    library = seeded(services)

    async def test() -> None:
        async with session(library, search_gate=False) as client:
            ok(await client.call_tool("memory_append", {**append, "content": "Cautious.", "facts": facts}))
            await anyio.to_thread.run_sync(local_worker(library).run_once)
            first = ok(await client.call_tool("memory_context", read))
            ok(await client.call_tool("memory_append", {**append, "content": "Balanced.", "facts": later}))
            await anyio.to_thread.run_sync(local_worker(library).run_once)
            since = first["trace"]["watermark"]
            again = ok(await client.call_tool("memory_context", {**read, "since": since}))
        assert again["trace"]["since"]["changed_beliefs"] == 1
        assert "belief:risk_tolerance" in again["trace"]["new_since"]
        assert "(was: cautious)" in again["markdown"]

    anyio.run(test)


def test_the_langgraph_store_reads_since_sync_and_async(services: Services) -> None:
    worker = local_worker(services)
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        store = AgentMemStore(MemoryClient(server.url), async_client=AsyncMemoryClient(server.url))
        store.put(("maya", "profile"), "home", {"city": "Lisbon"})
        worker.run_once()
        first = store.context("maya", "where does she live?", budget_tokens=300)
        store.put(("maya", "profile"), "home", {"city": "Porto"})
        worker.run_once()
        again = store.context("maya", "where does she live?", budget_tokens=300, since=first.trace.watermark)
        also = asyncio.run(store.acontext("maya", "where does she live?", since=first.trace.watermark))
    assert again.trace.since is not None and again.trace.since.changed_beliefs == 1
    assert also.trace.new_since == again.trace.new_since and again.trace.new_since
