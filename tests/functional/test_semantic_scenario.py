"""The semantic tier's acceptance scenario, over real HTTP on the local backend.

Agents append events; the projector worker (the same code as the stream Lambda) folds the facts
into beliefs; readers use the belief routes."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.entrypoints.server import LocalServer
from agentmem.ports.semantic import BeliefIndex, BeliefStore
from agentmem.semantic.health import PROBE_FACTS, PROBE_MISSING, PROBE_SUBJECT, deep_health
from agentmem.semantic.replay import replay
from agentmem.semantic.service import SemanticService
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap


class Stack:
    def __init__(self, services: Services, client: MemoryClient) -> None:
        self.services = services
        self.client = client
        log = services.event_log
        assert isinstance(log, SqliteEventLog)
        self.log = log
        self.checkpoints = SqliteCheckpoints(log.database, services.settings.tenant_id)
        self.worker = ProjectorWorker(log, services.semantic, self.checkpoints)

    def say(self, session: str, *facts: tuple[str, str, str], content: Any = "noted") -> None:
        self.client.append_event(
            session, subject_id="priya", round=0, agent="intake", kind="profile", content=content,
        ) if not facts else self.client.request(
            "POST",
            f"/v1/sessions/{session}/events",
            {"subject_id": "priya", "round": 0, "agent": "intake", "kind": "profile", "content": content,
             "facts": [{"key": k, "text": t, "value": v} for k, t, v in facts]},
        )  # fmt: skip
        self.worker.run_once()

    def get(self, path: str) -> Any:
        return self.client.request("GET", path)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    services = bootstrap(Settings(data_dir=tmp_path / "data"))
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        yield Stack(services, MemoryClient(server.url))


CAUTIOUS = ("risk_tolerance", "Priya is cautious about investment risk.", "cautious")
NO_STOCKS = ("investment_preference", "Priya dislikes individual stocks.", "dislikes individual stocks")
AGGRESSIVE = ("risk_tolerance", "Priya wants to be aggressive, in individual tech stocks.", "aggressive")
HOUSE = ("goal", "Priya is saving for a house down payment.", "house down payment")
BABY = ("goal", "Priya is planning for a baby next year.", "baby")


def test_a_change_of_mind_supersedes_flags_and_keeps_the_old_belief(stack: Stack) -> None:
    stack.say("S1", CAUTIOUS, NO_STOCKS)
    (v1,) = stack.get("/v1/subjects/priya/beliefs/risk_tolerance")["current"]
    assert (v1["version"], v1["value"], v1["flag"]) == (1, "cautious", False)

    stack.say("S2", AGGRESSIVE)
    chain = stack.get("/v1/subjects/priya/beliefs/risk_tolerance?history=true")
    (current,) = chain["current"]
    assert (current["version"], current["value"], current["current"], current["flag"]) == (
        2,
        "aggressive",
        True,
        True,
    )
    assert [p["session_id"] for p in current["provenance"]] == ["S1", "S2"]
    assert current["previous"]["value"] == "cautious"
    archived = [b for b in chain["history"] if not b["current"]]
    assert [(b["doc_id"], b["value"]) for b in archived] == [("risk_tolerance@v1", "cautious")]


def test_a_fact_key_spelled_like_an_archived_version_leaves_both_chains_whole(stack: Stack) -> None:
    stack.say("S1", CAUTIOUS)
    stack.say("S2", AGGRESSIVE)  # archives risk_tolerance v1
    stack.say("S3", ("risk_tolerance__v1", "Priya's first risk score was low.", "low"))
    stack.say("S4", CAUTIOUS)  # archives v2 while the look-alike key exists

    chain = stack.get("/v1/subjects/priya/beliefs/risk_tolerance?history=true")
    assert [(b["version"], b["value"], b["current"]) for b in chain["history"]] == [
        (1, "cautious", False),
        (2, "aggressive", False),
        (3, "cautious", True),
    ]
    lookalike = stack.get("/v1/subjects/priya/beliefs/risk_tolerance__v1?history=true")
    assert [(b["version"], b["value"], b["current"]) for b in lookalike["history"]] == [(1, "low", True)]


def test_ten_sessions_restating_cautious_give_one_belief(stack: Stack) -> None:
    for n in range(10):
        stack.say(f"S{n}", CAUTIOUS)
    chain = stack.get("/v1/subjects/priya/beliefs/risk_tolerance?history=true")
    assert len(chain["history"]) == 1
    assert chain["current"][0]["version"] == 1
    assert len(chain["current"][0]["provenance"]) == 10


def test_a_second_goal_keeps_both_while_a_risk_flip_still_supersedes(stack: Stack) -> None:
    stack.say("S1", CAUTIOUS, HOUSE)
    stack.say("S2", AGGRESSIVE, BABY)
    goals = stack.get("/v1/subjects/priya/beliefs/goal")["current"]
    assert sorted(g["value"] for g in goals) == ["baby", "house down payment"]
    assert all(g["current"] and g["version"] == 1 for g in goals)
    (risk,) = stack.get("/v1/subjects/priya/beliefs/risk_tolerance")["current"]
    assert risk["value"] == "aggressive"


def test_search_by_meaning_finds_risk_tolerance_first(stack: Stack) -> None:
    stack.say("S1", CAUTIOUS, NO_STOCKS, HOUSE, BABY, ("city", "Priya lives in Austin, Texas.", "Austin"))
    hits = stack.client.request(
        "POST",
        "/v1/subjects/priya/beliefs/search",
        {"query": "what is her appetite for investment risk?", "k": 3},
    )["items"]
    assert hits[0]["belief"]["key"] == "risk_tolerance"
    assert hits[0]["source"] == "vector"


def test_facts_are_extracted_from_content_when_none_are_given(stack: Stack) -> None:
    stack.say("S1", content={"risk_tolerance": "cautious", "city": "Austin"})
    keys = {b["key"]: b["value"] for b in stack.get("/v1/subjects/priya/beliefs")["items"]}
    assert keys == {"risk_tolerance": "cautious", "city": "Austin"}


def test_an_unknown_key_is_404_not_a_guess(stack: Stack) -> None:
    stack.say("S1", CAUTIOUS)
    with pytest.raises(Exception) as raised:
        stack.get("/v1/subjects/priya/beliefs/income")
    assert getattr(raised.value, "status", None) == 404


def test_deep_health_passes_with_real_vectors(stack: Stack) -> None:
    stack.say("S1", CAUTIOUS, HOUSE)
    report = stack.get("/v1/health/deep")
    assert report["status"] == "ok", report
    assert report["embedder"].startswith("all-MiniLM-L6-v2")


class ReadOnlyIndex:
    """Hands reads through to `inner` and fails the test on any write."""

    def __init__(self, inner: BeliefIndex) -> None:
        self._inner = inner
        self.generation = inner.generation

    def __getattr__(self, name: str) -> Any:
        if name in ("add_observation", "replace_chain"):
            raise AssertionError(f"a read path called {name}")
        return getattr(self._inner, name)


class ReadOnlyStore:
    def __init__(self, inner: BeliefStore) -> None:
        self._inner = inner

    def active(self) -> BeliefIndex:
        return cast(BeliefIndex, ReadOnlyIndex(self._inner.active()))

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a read path called store.{name}")


def test_deep_health_before_the_projector_started_reports_the_probe_and_writes_nothing(stack: Stack) -> None:
    semantic = stack.services.semantic
    read_only = SemanticService(
        cast(BeliefStore, ReadOnlyStore(semantic.store)), semantic.llm, semantic.embedder, semantic.fact_types
    )

    report = deep_health(read_only)

    assert (report.status, report.problems) == ("failing", [PROBE_MISSING])
    index = semantic.store.active()
    assert [index.chain(PROBE_SUBJECT, key, "") for key in PROBE_FACTS] == [(0, [])] * len(PROBE_FACTS)
    assert index.subjects() == []


def test_replay_equals_incremental_projection_belief_for_belief(stack: Stack) -> None:
    script = [
        ("S1", [CAUTIOUS, NO_STOCKS, HOUSE]),
        ("S2", [AGGRESSIVE, BABY]),
        ("S3", [CAUTIOUS]),
        ("S4", [AGGRESSIVE]),
    ]
    for session, facts in script:
        stack.say(session, *facts)
    index = stack.services.semantic.store.active()
    before = {k: index.history("priya", k) for k in ("risk_tolerance", "goal", "investment_preference")}
    result = replay(stack.log, stack.services.semantic, stack.checkpoints)
    assert result.generation == result.previous_generation + 1
    after_index = stack.services.semantic.store.active()
    assert after_index.generation == result.generation
    assert {k: after_index.history("priya", k) for k in before} == before
    assert stack.get("/v1/health/deep")["status"] == "ok"  # the new generation got its own probe


def test_projecting_in_shuffled_redelivered_batches_gives_identical_state(stack: Stack) -> None:
    script = [CAUTIOUS, AGGRESSIVE, CAUTIOUS, HOUSE, BABY, AGGRESSIVE, NO_STOCKS]
    for n, fact in enumerate(script):
        stack.say(f"S{n}", fact)
    expected = {
        k: stack.services.semantic.store.active().history("priya", k) for k in ("risk_tolerance", "goal")
    }
    events = [event for _, event in stack.log.read_since(0, 1000)]
    shuffled = stack.services.semantic.store.new_generation()
    projector = stack.services.semantic.projector(shuffled)
    batch = events * 2  # every event delivered twice
    random.Random(7).shuffle(batch)
    for event in batch:
        projector.project(event)
    assert {k: shuffled.history("priya", k) for k in expected} == expected
