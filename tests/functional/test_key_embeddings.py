"""The key resolver's embeddings are prepared for a whole batch: one embedder call for every
proposal of the batch, and the same decisions as embedding each text when it is first compared."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.adapters.local.sqlite_belief_store import SqliteBeliefStore
from agentmem.adapters.local.sqlite_db import open_database
from agentmem.model.beliefs import FactInput, FactType
from agentmem.model.events import Event
from agentmem.ports.semantic import BeliefIndex
from agentmem.semantic.fact_types import FactTypeCatalog
from agentmem.semantic.index_embeddings import IndexEmbeddings
from agentmem.semantic.key_book import KeyBook
from agentmem.semantic.key_resolver import KeyResolver, Stated
from agentmem.semantic.key_vectors import KeyVectors
from agentmem.semantic.projector import Projector
from tests.functional.test_key_resolver import WordsEmbedder

DECLARED = [FactType(key="city", description="Where the subject lives."), FactType(key="employer")]


class CountingEmbedder(WordsEmbedder):
    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return super().embed(texts)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteBeliefStore]:
    yield SqliteBeliefStore(open_database(tmp_path / "beliefs.db"), "t")


def said(n: int, subject: str, text: str, *, facts: list[FactInput] | None = None) -> Event:
    return Event(
        event_id=f"ev{n}", session_id=f"{subject}-s1", seq=n, subject_id=subject, round=0, agent="user",
        kind="message", media_type="text/plain", content=text, created_at=f"2026-01-01T00:00:{n:02d}.000Z",
        facts=facts,
    )  # fmt: skip


BATCH = [
    said(1, "priya", "My home city is Chicago. I have 2 kids."),
    said(2, "priya", "We have a whippet called Noodle."),
    said(3, "sam", "My favourite food is Thai."),
    said(4, "priya", "noted", facts=[FactInput(key="travel_budget", text="Priya's travel budget is $900.")]),
    said(5, "priya", "My annual travel budget is $1,200. I have 3 children now."),
    said(6, "sam", "My favorite cuisine is Korean. My diet is vegan."),
    said(8, "priya", "Our dog is Sprocket now."),
    said(7, "sam", "My dietary needs are low-sodium."),  # out of log order within the batch
]


def projector(index: BeliefIndex, embedder: WordsEmbedder) -> Projector:
    return Projector(index, RulesLLM(), embedder, FactTypeCatalog(DECLARED))


def decisions(index: BeliefIndex) -> list[tuple[str, str, str, str | None, str | None, str]]:
    found = []
    for subject in ("priya", "sam"):
        for b in index.current(subject):
            for o in index.observations(subject, b.key, b.member):
                found.append((o.event_id, o.key, o.member, o.proposed_key, o.key_reason, b.value))
    return sorted(found, key=str)


def test_a_batchs_proposals_cost_one_embedder_call(store: SqliteBeliefStore) -> None:
    """One call for the key resolver and one for the new belief texts, however many proposals
    (one call per proposal before)."""
    embedder = CountingEmbedder()
    projector(store.active(), embedder).project_many(BATCH)
    assert len(embedder.calls) == 2
    assert any(text.startswith("home city:") for text in embedder.calls[0])


def test_preparing_the_batchs_embeddings_changes_no_decision(
    store: SqliteBeliefStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepared, unprepared = store.new_generation(), store.new_generation()
    projector(prepared, WordsEmbedder()).project_many(BATCH)
    monkeypatch.setattr(KeyResolver, "prepare", lambda self, batch, book: None)
    embedder = CountingEmbedder()
    projector(unprepared, embedder).project_many(BATCH)
    assert len(embedder.calls) > 2  # each proposal embedded when first compared
    assert decisions(prepared) == decisions(unprepared)
    joined = {(o[3], o[1]) for o in decisions(prepared) if o[3] not in (None, o[1])}
    assert {("home_city", "city"), ("children", "kids"), ("dog", "whippet")} <= joined
    assert ("annual_travel_budget", "travel_budget") in joined  # onto the agent's explicit key
    assert {("favorite_cuisine", "favorite_food"), ("dietary_needs", "diet")} <= joined


def test_a_text_the_batch_did_not_foresee_is_still_embedded_when_compared(store: SqliteBeliefStore) -> None:
    embedder = CountingEmbedder()
    resolver = KeyResolver(RulesLLM(), embedder, FactTypeCatalog(DECLARED))
    book = KeyBook(store.active())
    fact = FactInput(key="home_city", text="Priya's home city is Oslo.")
    resolver.prepare([], book)  # foresaw nothing
    resolution = resolver.resolve(
        fact, "priya", "2026-01-01T00:00:01.000Z|s|000000000001", book, explicit=False
    )
    assert resolution is not None and resolution.key == "city"
    assert len(embedder.calls) == 1


def test_the_vector_cache_keeps_what_was_used_last_and_drops_the_rest_between_batches() -> None:
    embedder = CountingEmbedder()
    vectors = KeyVectors(IndexEmbeddings(embedder), capacity=2)
    vectors.embed([("s", "a"), ("s", "b"), (None, "c")])  # over the capacity within a batch: all kept
    vectors.of(["a"])
    vectors.trim()
    vectors.of(["a", "c"])
    assert embedder.calls == [["a", "b", "c"]]  # "b" went, "a" (used last) and "c" stayed
    vectors.of(["b"])
    assert embedder.calls[-1] == ["b"]


def test_a_batch_of_explicit_facts_embeds_nothing_for_keys(store: SqliteBeliefStore) -> None:
    """Explicit facts keep the agent's key: nothing is compared, so nothing is embedded."""
    embedder = CountingEmbedder()
    resolver = KeyResolver(RulesLLM(), embedder, FactTypeCatalog(DECLARED))
    book = KeyBook(store.active())
    fact = FactInput(key="travel_budget", text="Priya's travel budget is $900.")
    resolver.prepare([Stated(fact, "priya", "o1", explicit=True)], book)
    assert embedder.calls == []
