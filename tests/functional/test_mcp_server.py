"""The MCP server through a real SDK client session, in process: the compulsory search gate and
its list-changed notification in both protocol eras, the scoped tool sets, every tool's happy
path with the API's budgets and traces, bad arguments naming the field, and the resources."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from agentmem.access import WRITER, Caller
from agentmem.compose import authoring
from agentmem.compose.model import Asset, ComposerSkillSpec, Scope
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.mcp_server.backend import LocalBackend
from agentmem.entrypoints.mcp_server.identity import FixedIdentity
from agentmem.entrypoints.mcp_server.server import build_server
from agentmem.wiring import Services
from tests.functional.mcp_session import (
    READ_TOOLS,
    SEARCHES,
    WRITE_TOOLS,
    WRITER_CALLER,
    Recorder,
    error,
    names,
    ok,
    seeded,
    session,
    unlock,
)

APPEND = {"session_id": "s1", "subject_id": "priya", "round": 0, "agent": "intake", "kind": "profile"}


@pytest.fixture
def library(services: Services) -> Services:
    return seeded(services)


def run(test: Any) -> None:
    anyio.run(test)


# -- the compulsory search gate ---------------------------------------------------------------


def test_a_session_lists_only_the_two_searches_until_it_has_run_both(library: Services) -> None:
    async def test() -> None:
        recorder = Recorder()
        async with session(library, recorder=recorder) as client:
            assert client.server_capabilities.tools is not None
            assert client.server_capabilities.tools.list_changed is True
            assert await names(client) == SEARCHES
            ok(await client.call_tool("search_functions", {"task": "savings target"}))
            assert await names(client) == SEARCHES and recorder.tools_changed() == 0
            ok(await client.call_tool("search_guidance", {"task": "savings target"}))
            assert recorder.tools_changed() == 1
            assert await names(client) == READ_TOOLS + WRITE_TOOLS
            ok(await client.call_tool("search_guidance", {"task": "again"}))
            assert recorder.tools_changed() == 1  # announced once, when the gate opened

    run(test)


def test_a_hidden_tool_is_refused_naming_the_searches_still_missing(library: Services) -> None:
    async def test() -> None:
        async with session(library) as client:
            refused = error(await client.call_tool("memory_append", {**APPEND, "content": "x"}))
            assert refused["code"] == "search_required" and refused["missing"] == SEARCHES
            assert "call search_functions and search_guidance first" in refused["message"]
            ok(await client.call_tool("search_functions", {"task": "savings target"}))
            refused = error(await client.call_tool("memory_context", {"x": 1}))  # refused before parsing
            assert refused["missing"] == ["search_guidance"]

    run(test)
    assert library.episodic.list_events("s1").items == []  # the refused append wrote nothing


def test_a_failed_search_does_not_count_and_names_its_field(library: Services) -> None:
    async def test() -> None:
        async with session(library) as client:
            bad = error(await client.call_tool("search_functions", {"task": "savings", "k": 0}))
            assert (bad["code"], bad["field"]) == ("validation_error", "k")
            ok(await client.call_tool("search_guidance", {"task": "savings"}))
            refused = error(await client.call_tool("get_function", {"function_id": "vehicle"}))
            assert refused["missing"] == ["search_functions"]

    run(test)


def test_in_the_2026_era_the_opening_arrives_on_the_listen_stream(library: Services) -> None:
    async def test() -> None:
        async with session(library, mode="auto") as client:
            assert client.protocol_version == "2026-07-28"
            assert await names(client) == SEARCHES
            async with client.listen(tools_list_changed=True) as changes:
                await unlock(client)
                with anyio.fail_after(30):  # generous: the event is published before the call returns
                    event = await changes.__anext__()
            assert type(event).__name__ == "ToolsListChanged"
            assert await names(client) == READ_TOOLS + WRITE_TOOLS

    run(test)


def test_each_connection_has_its_own_gate(library: Services) -> None:
    server = build_server(LocalBackend(library), FixedIdentity(WRITER_CALLER))

    async def test() -> None:
        async with Client(server, mode="legacy") as first, Client(server, mode="legacy") as second:
            await unlock(first)
            assert len(await names(first)) == len(READ_TOOLS + WRITE_TOOLS)
            assert await names(second) == SEARCHES

    run(test)


def test_the_tenant_setting_turns_the_gate_off(library: Services) -> None:
    async def test() -> None:
        async with session(library, search_gate=False) as client:
            assert await names(client) == READ_TOOLS + WRITE_TOOLS
            ok(await client.call_tool("get_function", {"function_id": "vehicle"}))

    run(test)


# -- scoped tool sets -------------------------------------------------------------------------


def test_a_read_only_server_has_no_tool_that_writes_even_for_a_writer(library: Services) -> None:
    async def test() -> None:
        async with session(library, WRITER_CALLER, read_only=True) as client:
            await unlock(client)
            assert await names(client) == READ_TOOLS
            refused = error(await client.call_tool("memory_append", {**APPEND, "content": "x"}))
            assert (refused["code"], refused["field"]) == ("unknown_tool", "name")
            assert (
                error(await client.call_tool("review_session", {"session_id": "s1"}))["code"]
                == "unknown_tool"
            )

    run(test)
    assert library.episodic.list_events("s1").items == []
    # A reader's set (it may append, as over HTTP, but not review): tests/functional/test_append_access.py


# -- the tools ---------------------------------------------------------------------------------


def test_each_library_is_searched_alone_within_its_budget(library: Services) -> None:
    async def test() -> None:
        async with session(library) as client:
            task = {"task": "monthly saving for each goal of a funding plan", "budget_tokens": 300}
            functions = ok(await client.call_tool("search_functions", task))
            guidance = ok(await client.call_tool("search_guidance", task))
        row = next(f for f in functions["functions"] if f["function_id"] == "funding_row")
        assert row["closure"] == ["monthly_saving", "vehicle", "funding_row"]
        assert row["guidance_ids"] == ["plan-savings-goals"]
        ids = [i for ranked in functions["trace"]["candidates"].values() for i in ranked]
        assert ids and all(i.startswith("function:") for i in ids)
        assert [f["rank"] for f in functions["trace"]["fused"]] == list(
            range(1, len(functions["trace"]["fused"]) + 1)
        )
        assert 0 < functions["used_tokens"] <= 300 and "Turn a client's goals" not in functions["markdown"]
        assert {g["guidance_id"] for g in guidance["guidance"]} == {
            "plan-savings-goals",
            "house-affordability",
        }
        assert all(i.startswith("guidance:") for r in guidance["trace"]["candidates"].values() for i in r)
        assert 0 < guidance["used_tokens"] <= 300 and "def monthly_saving" not in guidance["markdown"]

    run(test)


def test_a_function_arrives_with_its_dependency_closure_and_guidance_in_full(library: Services) -> None:
    async def test() -> None:
        async with session(library, search_gate=False) as client:
            closure = ok(await client.call_tool("get_function", {"function_id": "funding_row"}))
            guidance = ok(await client.call_tool("get_guidance", {"guidance_id": "plan-savings-goals"}))
            missing = error(await client.call_tool("get_function", {"function_id": "ghost"}))
        assert [f["function_id"] for f in closure["items"]] == ["monthly_saving", "vehicle", "funding_row"]
        assert "def monthly_saving" in closure["items"][0]["implementation"]
        assert guidance["function_ids"] == ["funding_row"] and "funding_row" in guidance["content"]
        assert missing["code"] == "not_found"

    run(test)


def test_an_append_becomes_context_and_beliefs_with_budgets_and_traces(library: Services) -> None:
    facts = [{"key": "risk_tolerance", "text": "Priya's risk tolerance is cautious.", "value": "cautious"}]

    async def test() -> None:
        async with session(library, search_gate=False) as client:
            ack = ok(
                await client.call_tool("memory_append", {**APPEND, "content": "Cautious.", "facts": facts})
            )
            assert (ack["seq"], ack["session_id"], ack["stored"]) == (1, "s1", "inline")
            await anyio.to_thread.run_sync(local_worker(library).run_once)
            read = {"subject_id": "priya", "session_id": "s1", "agent": "planner", "query": "risk"}
            context = ok(await client.call_tool("memory_context", {**read, "budget_tokens": 120}))
            found = ok(await client.call_tool("beliefs_search", {"subject_id": "priya", "query": "risk"}))
            chain = ok(
                await client.call_tool("belief_history", {"subject_id": "priya", "key": "risk_tolerance"})
            )
        trace = context["trace"]
        assert trace["budget_tokens"] == 120 and 0 < trace["used_tokens"] <= 120
        assert trace["log_watermark_seq"] == 1 and trace["episodic_window"]["ranked"] == 1
        # The trace says why the event itself is not there: the belief it stated stands for it.
        assert {
            "item_id": "event:s1:1",
            "source": "episodic",
            "reason": "stands as belief risk_tolerance",
        } in (trace["dropped"])
        assert "cautious" in context["markdown"] and trace["tokens_by_source"]["semantic"] > 0
        assert [b["value"] for b in (h["belief"] for h in found["items"])] == ["cautious"]
        assert chain["current"][0]["value"] == "cautious" and len(chain["history"]) == 1

    run(test)


def test_a_writer_reviews_a_session_into_drafts(library: Services) -> None:
    async def test() -> None:
        async with session(library, search_gate=False) as client:
            code = "def add_one(x):\n    return x + 1\n"
            ok(await client.call_tool("memory_append", {**APPEND, "kind": "code", "content": code}))
            review = ok(await client.call_tool("review_session", {"session_id": "s1"}))
        assert [(f["function_id"], f["status"]) for f in review["functions"]] == [("add_one.s1", "draft")]

    run(test)


def test_a_bad_argument_names_the_field_and_writes_nothing(library: Services) -> None:
    async def test() -> None:
        async with session(library, search_gate=False) as client:
            bad = error(await client.call_tool("memory_append", {**APPEND, "round": -1, "content": "x"}))
            assert (bad["code"], bad["field"]) == ("validation_error", "round")
            bad = error(
                await client.call_tool("memory_append", {**APPEND, "content": "x", "facts": [{"key": "Bad"}]})
            )
            assert bad["field"] == "facts" and {d["field"] for d in bad["details"]} >= {
                "facts.0.key",
                "facts.0.text",
            }
            bad = error(await client.call_tool("memory_context", {"subject_id": "priya"}))
            assert bad["field"] in {"session_id", "agent", "query"}

    run(test)
    assert library.episodic.list_events("s1").items == []


# -- compose: principals are the server's ------------------------------------------------------


def _finance_catalogue(services: Services) -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    services.composer.catalogue.put_assets(
        [
            Asset(asset_id="table:finance.revenue", path="warehouse/finance/revenue", kind="table",
                  title="Revenue by month", body="Recognised revenue per month.", principals=["analyst"],
                  updated_at=now),
            Asset(asset_id="table:finance.ledger", path="warehouse/finance/ledger", kind="table",
                  title="General ledger revenue", body="Every revenue posting.", principals=["finance"],
                  updated_at=now),
        ]
    )  # fmt: skip
    spec = ComposerSkillSpec(intent="Finance questions.", scope=Scope(include=["warehouse/finance/**"]))
    authoring.put_skill(services.composer.catalogue, "finance-tables", spec)
    services.composer.indexer.sync()  # the local worker's job when serving


def test_compose_reads_as_the_server_identity_and_the_caller_cannot_widen_it(library: Services) -> None:
    _finance_catalogue(library)
    question = {"skill_id": "finance-tables", "question": "revenue postings by month", "budget_tokens": 2000}

    async def compose(caller: Caller, arguments: dict[str, Any]) -> Any:
        async with session(library, caller, search_gate=False) as client:
            return await client.call_tool("compose_skill", arguments)

    analyst = Caller.of(["analyst"], WRITER)
    answer = ok(anyio.run(compose, analyst, question))
    assert "table:finance.revenue" in answer["markdown"] and "table:finance.ledger" not in str(answer)
    assert answer["report"]["used_tokens"] <= 2000
    widened = error(anyio.run(compose, analyst, {**question, "principals": ["finance"]}))
    assert (widened["code"], widened["field"]) == ("validation_error", "principals")
    finance = ok(anyio.run(compose, Caller.of(["finance"]), question))
    assert "table:finance.ledger" in finance["markdown"]
    missing = error(anyio.run(compose, analyst, {**question, "skill_id": "nope"}))
    assert (missing["code"], missing["field"]) == ("not_found", "skill_id")


# -- resources ---------------------------------------------------------------------------------


def test_resources_serve_current_beliefs_and_guidance_read_only(library: Services) -> None:
    library.episodic.append(
        "s1",
        _append_request(facts=[{"key": "city", "text": "Priya lives in Austin.", "value": "Austin"}]),
    )
    local_worker(library).run_once()

    async def test() -> None:
        async with session(library) as client:  # resources are the application's: no gate
            templates = await client.list_resource_templates()
            beliefs = await client.read_resource("agentmem://subjects/priya/beliefs")
            guidance = await client.read_resource("agentmem://guidance/plan-savings-goals")
            with pytest.raises(MCPError) as unknown:
                await client.read_resource("agentmem://guidance/ghost")
            with pytest.raises(MCPError) as malformed:
                await client.read_resource("agentmem://guidance/not%20an%20id")
        assert {t.uri_template for t in templates.resource_templates} == {
            "agentmem://subjects/{subject_id}/beliefs",
            "agentmem://guidance/{guidance_id}",
        }
        assert '"value": "Austin"' in beliefs.contents[0].text  # type: ignore[union-attr]
        assert guidance.contents[0].text.startswith("# Turn a client's goals")  # type: ignore[union-attr]
        assert unknown.value.error.data["error"]["code"] == "not_found"
        assert malformed.value.error.data["error"]["field"] == "guidance_id"

    run(test)


def _append_request(**fields: Any) -> Any:
    from agentmem.model.events import AppendEventRequest

    body = {k: v for k, v in APPEND.items() if k != "session_id"}
    return AppendEventRequest.model_validate({**body, "content": "noted", **fields})
