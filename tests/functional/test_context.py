"""`POST /v1/context` over real HTTP: both tiers, the flag, budgets, blobs, determinism, bad input."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.adapters.tokens import count_tokens
from agentmem.api.app import build_resolver
from agentmem.client import MemoryApiError, MemoryClient
from agentmem.entrypoints.server import LocalServer
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

CSV = "date,merchant,amount\n" + "".join(
    f"2026-01-{d % 28 + 1:02d},Grocer {d},{d * 3.5:.2f}\n" for d in range(2000)
)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MemoryClient, Services]]:
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("context") / "data"))
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        client = MemoryClient(server.url)

        def say(session: str, agent: str, content: Any, media_type: str | None = None) -> None:
            client.append_event(session, subject_id="priya", round=0, agent=agent, kind="note",
                                content=content, media_type=media_type)  # fmt: skip

        say("S1", "intake", {"risk_tolerance": "cautious", "note": "Dislikes individual stocks."})
        say("S1", "transactions", CSV, "text/csv")
        say(
            "S2", "intake", "She now wants to be aggressive in tech stocks. Her risk tolerance is aggressive."
        )
        say("S2", "goal-planning", "Her goal is a house down payment of 90,000 USD within five years.")
        say("S2", "market", "Tech valuations are stretched; rates are expected to stay high through 2027.")
        for n in range(3):  # a subject with events and nothing a belief could be projected from
            client.append_event("Q1", subject_id="quinn", round=n, agent="scheduler", kind="note",
                                content=f"Booked call {n} for Tuesday.")  # fmt: skip
        log = services.event_log
        assert isinstance(log, SqliteEventLog)
        ProjectorWorker(log, services.semantic, SqliteCheckpoints(log.database, "local")).run_once()
        yield client, services


def read(client: MemoryClient, **overrides: Any) -> dict[str, Any]:
    body = {"subject_id": "priya", "session_id": "S2", "agent": "compliance",
            "query": "does the recommendation fit her risk tolerance?", **overrides}  # fmt: skip
    result: dict[str, Any] = client.request("POST", "/v1/context", body)
    return result


def test_context_carries_beliefs_with_the_contradiction_and_this_sessions_log(
    api: tuple[MemoryClient, Services],
) -> None:
    result = read(api[0])
    assert "changed from cautious (S1) to aggressive (S2)" in result["markdown"]
    assert "Tech valuations are stretched" in result["markdown"]
    sources = {i["source"] for i in result["items"]}
    assert sources == {"semantic", "episodic", "history"}  # history is on by default
    # S1's cautious statement comes back from history labelled with what holds now.
    assert "⚠ superseded: risk_tolerance is aggressive since S2." in result["markdown"]
    trace = result["trace"]
    assert trace["log_watermark_seq"] == 3
    assert trace["belief_versions"]["risk_tolerance"] == 2
    assert trace["used_tokens"] == count_tokens(result["markdown"]) <= trace["budget_tokens"]


@pytest.mark.parametrize("budget", [40, 60, 90, 150, 400, 3000])
def test_markdown_never_exceeds_the_budget(api: tuple[MemoryClient, Services], budget: int) -> None:
    result = read(api[0], budget_tokens=budget)
    assert count_tokens(result["markdown"]) == result["trace"]["used_tokens"] <= budget


def test_same_state_and_request_give_byte_identical_output(api: tuple[MemoryClient, Services]) -> None:
    assert read(api[0], budget_tokens=250) == read(api[0], budget_tokens=250)


def test_unused_share_spills_to_the_other_source(api: tuple[MemoryClient, Services]) -> None:
    only_beliefs = read(
        api[0], session_id="S-empty", budget_tokens=2000, split=0.99, include=["episodic", "semantic"]
    )
    assert only_beliefs["trace"]["notes"] == ["session S-empty has no events yet"]
    assert only_beliefs["trace"]["tokens_by_source"]["semantic"] > 20  # past its 1% share
    assert {i["level"] for i in only_beliefs["items"]} == {"full"}


def test_a_relevant_blob_is_inlined_when_it_fits_and_pointed_to_when_not(
    api: tuple[MemoryClient, Services],
) -> None:
    query = "what does the transactions csv show about grocer spending?"
    roomy = read(api[0], session_id="S1", query=query, budget_tokens=50_000, split=1.0)
    assert "Grocer 1999" in roomy["markdown"]
    tight = read(api[0], session_id="S1", query=query, budget_tokens=400, split=1.0)
    assert "Grocer 1999" not in tight["markdown"]
    assert "stored by reference: sha256:" in tight["markdown"]
    assert "file://" not in tight["markdown"]


def test_cl100k_is_counted_with_its_own_encoding(api: tuple[MemoryClient, Services]) -> None:
    result = read(api[0], encoding="cl100k_base", budget_tokens=120)
    assert result["trace"]["encoding"] == "cl100k_base"
    assert count_tokens(result["markdown"], "cl100k_base") <= 120


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"budget_tokens": 0}, "budget_tokens"),
        ({"budget_tokens": 50_001}, "budget_tokens"),
        ({"encoding": "p50k_base"}, "encoding"),
        ({"split": 1.5}, "split"),
        ({"split": -0.1}, "split"),
        ({"include": ["episodic", "gossip"]}, "include"),
        ({"query": "  "}, "query"),
    ],
)
def test_bad_context_requests_are_422_naming_the_field(
    api: tuple[MemoryClient, Services], change: dict[str, Any], field: str
) -> None:
    with pytest.raises(MemoryApiError) as raised:
        read(api[0], **change)
    assert (raised.value.status, raised.value.field) == (422, field)


def test_a_subject_with_events_but_no_beliefs_yet_is_known_to_every_session(
    api: tuple[MemoryClient, Services],
) -> None:
    """Was 404 "no memory of subject": only beliefs and the read's own session were looked at."""
    assert api[1].semantic.store.active().current("quinn") == []
    without_history = read(
        api[0], subject_id="quinn", session_id="Q-other", query="when is the call?",
        include=["episodic", "semantic"],
    )  # fmt: skip
    assert without_history["items"] == []
    assert without_history["trace"]["notes"] == ["session Q-other has no events yet"]
    assert without_history["markdown"] == "# Context for compliance\n"
    # By default the history source reads the subject's earlier session, where the events are.
    result = read(api[0], subject_id="quinn", session_id="Q-other", query="when is the call?")
    assert result["items"] and {i["source"] for i in result["items"]} == {"history"}


def test_unknown_subject_is_404_and_a_session_of_another_subject_too(
    api: tuple[MemoryClient, Services],
) -> None:
    with pytest.raises(MemoryApiError) as raised:
        read(api[0], subject_id="nobody", session_id="S-none")
    assert (raised.value.status, raised.value.field) == (404, "subject_id")
    with pytest.raises(MemoryApiError) as raised:
        read(api[0], subject_id="sam")
    assert (raised.value.status, raised.value.field) == (404, "session_id")
