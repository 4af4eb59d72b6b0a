"""Projection honours erasures on both sides of its writes: a subject erased before a batch is
skipped, and one erased while the batch was being applied is purged again right after it, so a
write that lands after the erasure's own purge cannot survive it."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

import pytest

from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.adapters.local.sqlite_belief_store import SqliteBeliefStore
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.model.beliefs import FactInput
from agentmem.model.events import Event
from agentmem.semantic.fact_types import DEFAULT_FACT_TYPES, FactTypeCatalog
from agentmem.semantic.service import SemanticService


class FlatEmbedder:
    model_id, dimensions = "flat", 4

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[0.5, 0.5, 0.5, 0.5] for _ in texts]


class Erasures:
    """Answers from a script: what `erased` says on each call, in order."""

    def __init__(self, *answers: set[str]) -> None:
        self.answers = list(answers)
        self.calls: list[set[str]] = []

    def erased(self, subject_ids: Collection[str]) -> set[str]:
        self.calls.append(set(subject_ids))
        return self.answers.pop(0) & set(subject_ids) if self.answers else set()


def event(subject: str, n: int = 1) -> Event:
    return Event(
        event_id=f"ev_{subject}_{n}", session_id=f"{subject}-s1", seq=n, subject_id=subject, round=0,
        agent="a", kind="note", media_type="text/plain", content="x", created_at="2026-01-01T00:00:00.000Z",
        facts=[FactInput(key="goal", text=f"{subject} saves for a house.", value="house")],
    )  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> SqliteBeliefStore:
    return SqliteBeliefStore(SqliteDatabase(tmp_path / "db"), "acme")


def semantic(store: SqliteBeliefStore, erasures: Erasures) -> SemanticService:
    catalog = FactTypeCatalog(DEFAULT_FACT_TYPES, allow_undeclared=True)
    return SemanticService(store, RulesLLM(), FlatEmbedder(), catalog, erasures=erasures)


def test_a_subject_erased_before_the_batch_is_not_projected(store: SqliteBeliefStore) -> None:
    erasures = Erasures({"alice"})

    applied = semantic(store, erasures).projector().project_many([event("alice"), event("bob")])

    assert [a.doc_id for a in applied] == ["goal#house"]
    assert store.active().current("alice") == [] and store.active().current("bob")


def test_a_subject_erased_while_the_batch_was_applied_is_purged_after_it(store: SqliteBeliefStore) -> None:
    # Not erased when the batch starts; erased (tombstone, then its purge) before the write lands.
    erasures = Erasures(set(), {"alice"})

    semantic(store, erasures).projector().project_many([event("alice"), event("bob")])

    assert erasures.calls == [{"alice", "bob"}, {"alice", "bob"}]
    assert store.active().current("alice") == []
    assert store.active().observations("alice", "goal", "house") == []
    assert store.active().current("bob")


def test_without_the_second_check_the_late_write_would_survive(store: SqliteBeliefStore) -> None:
    """The control: the same race with no erasure ever seen leaves the subject's belief behind."""
    semantic(store, Erasures(set(), set())).projector().project_many([event("alice")])

    assert store.active().current("alice")
