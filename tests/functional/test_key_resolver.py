"""The key resolver: declared keys win, proposals map onto the subject's existing keys only when
they mean the same, the resolution is recorded in the observation, and it reads only the log
prefix (a batch resolves as one-by-one projection does, and a replay reproduces it)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.adapters.local.sqlite_belief_store import SqliteBeliefStore
from agentmem.adapters.local.sqlite_db import open_database
from agentmem.model.beliefs import (
    Cardinality,
    ExtractedFact,
    FactInput,
    FactType,
    KeyCandidate,
    KeyChoice,
    KeyProposal,
    Observation,
)
from agentmem.model.events import Event
from agentmem.ports.semantic import BeliefIndex
from agentmem.semantic.fact_types import DEFAULT_FACT_TYPES, FactTypeCatalog
from agentmem.semantic.key_resolver import SHORTLIST
from agentmem.semantic.projector import Projector


class WordsEmbedder:
    """Bag of words, hashed: sentences that share words are near. Deterministic and fast."""

    model_id = "words"
    dimensions = 64

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * self.dimensions
            for word in text.casefold().replace("_", " ").split():
                vector[int(hashlib.sha1(word.strip(".,:").encode()).hexdigest(), 16) % self.dimensions] += 1
            norm = math.sqrt(sum(v * v for v in vector)) or 1.0
            out.append([v / norm for v in vector])
        return out


class RecordingLLM(RulesLLM):
    def __init__(self) -> None:
        self.asked: list[tuple[KeyProposal, list[KeyCandidate]]] = []

    def resolve_key(self, proposal: KeyProposal, candidates: Sequence[KeyCandidate]) -> KeyChoice:
        self.asked.append((proposal, list(candidates)))
        return super().resolve_key(proposal, candidates)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteBeliefStore]:
    yield SqliteBeliefStore(open_database(tmp_path / "beliefs.db"), "t")


def projector(index: BeliefIndex, *, declared: Sequence[FactType] = DEFAULT_FACT_TYPES, allow: bool = True,
              llm: RulesLLM | None = None) -> Projector:  # fmt: skip
    catalog = FactTypeCatalog(declared, allow_undeclared=allow)
    return Projector(index, llm or RulesLLM(), WordsEmbedder(), catalog)


def said(n: int, text: str, *, session: str = "s1", facts: list[FactInput] | None = None) -> Event:
    return Event(
        event_id=f"ev{n}", session_id=session, seq=n, subject_id="priya", round=0, agent="user",
        kind="message",
        media_type="text/plain", content=text, created_at=f"2026-01-01T00:00:{n:02d}.000Z", facts=facts,
    )  # fmt: skip


def observations(index: BeliefIndex, key: str) -> list[Observation]:
    members = sorted({b.member for b in index.current("priya", key)})
    return [o for m in members for o in index.observations("priya", key, m)]


def test_a_proposal_under_a_declared_key_keeps_it_with_the_declared_cardinality(
    store: SqliteBeliefStore,
) -> None:
    index = store.active()
    projector(index).project(said(1, "My goals are a house and early retirement."))
    goals = index.current("priya", "goal")
    assert sorted(g.value for g in goals) == ["a house", "early retirement"]  # declared set: members
    assert all(o.proposed_key is None for o in observations(index, "goal"))  # nothing to resolve


def test_a_proposed_key_meaning_a_declared_one_is_stored_under_it_and_the_resolution_recorded(
    store: SqliteBeliefStore,
) -> None:
    index = store.active()
    projector(index).project(said(1, "My home city is Chicago."))
    (belief,) = index.current("priya", "city")
    assert belief.value == "Chicago"
    (obs,) = observations(index, "city")
    assert (obs.proposed_key, obs.key) == ("home_city", "city")
    assert obs.key_reason is not None and "home" in obs.key_reason
    assert index.current("priya", "home_city") == []


def test_a_proposal_maps_onto_an_undeclared_key_the_subject_already_has(store: SqliteBeliefStore) -> None:
    index = store.active()
    p = projector(index, declared=[])
    p.project(said(1, "I have 2 kids."))
    p.project(said(2, "I have 3 children now."))
    (belief,) = index.current("priya", "kids")
    assert (belief.value, belief.version, belief.flag) == ("3 children", 2, False)
    assert [o.proposed_key for o in observations(index, "kids")] == ["kids", "children"]


def test_keys_that_mean_other_things_stay_apart(store: SqliteBeliefStore) -> None:
    index = store.active()
    p = projector(index, declared=[FactType(key="city", description="Where the subject lives.")])
    p.project(said(1, "I live in Austin."))
    p.project(said(2, "I'm from Manchester originally."))  # where she is from is not where she lives
    p.project(said(3, "My monthly income is $5,000."))
    assert [b.value for b in index.current("priya", "city")] == ["Austin"]
    assert [b.value for b in index.current("priya", "hometown")] == ["Manchester"]
    assert [b.value for b in index.current("priya", "monthly_income")] == ["$5,000"]


def test_a_new_key_keeps_the_cardinality_the_extractor_proposed(store: SqliteBeliefStore) -> None:
    index = store.active()
    projector(index).project(said(1, "I like sushi. I hate flying."))
    preferences = index.current("priya", "preference")
    assert sorted((p.member, p.value) for p in preferences) == [
        ("flying", "hates flying"),
        ("sushi", "likes sushi"),
    ]


def test_a_tenant_that_refuses_undeclared_keys_still_gets_proposals_mapped_onto_declared_ones(
    store: SqliteBeliefStore,
) -> None:
    index = store.active()
    projector(index, allow=False).project(said(1, "My home city is Chicago. My favourite food is ramen."))
    assert [b.value for b in index.current("priya", "city")] == ["Chicago"]
    assert {b.key for b in index.current("priya")} == {"city"}


def test_an_explicit_fact_keeps_the_agents_key(store: SqliteBeliefStore) -> None:
    index = store.active()
    fact = FactInput(key="home_city", text="Priya's home city is Chicago.", value="Chicago")
    projector(index).project(said(1, "noted", facts=[fact]))
    (obs,) = observations(index, "home_city")
    assert obs.proposed_key is None
    assert index.current("priya", "city") == []


def test_the_llm_port_is_asked_about_a_short_best_first_list(store: SqliteBeliefStore) -> None:
    llm = RecordingLLM()
    declared = [FactType(key=f"key_{n}", description=f"thing number {n}") for n in range(12)]
    projector(store.active(), declared=[*declared, FactType(key="city")], llm=llm).project(
        said(1, "My home city is Chicago.")
    )
    ((proposal, candidates),) = llm.asked
    assert proposal.key == "home_city" and proposal.cardinality is Cardinality.SINGLE
    assert 0 < len(candidates) <= SHORTLIST
    assert candidates[0].key == "city"
    assert [c.score for c in candidates] == sorted((c.score for c in candidates), reverse=True)


def test_only_keys_stated_earlier_in_the_log_are_candidates(store: SqliteBeliefStore) -> None:
    """Event 2 ("kids") arrives first; event 1 ("children") comes before it in the log, so it may
    not map onto "kids": its resolution must be what a replay in log order gives it."""
    index = store.active()
    p = projector(index, declared=[])
    p.project(said(2, "I have 3 kids."))
    p.project(said(1, "I have 2 children."))
    assert [b.value for b in index.current("priya", "children")] == ["2 children"]


def test_a_batch_resolves_as_one_by_one_projection_does(store: SqliteBeliefStore) -> None:
    events = [said(1, "I have 2 kids."), said(2, "I have 3 children."), said(3, "My home city is Oslo.")]
    one_by_one, batch = store.new_generation(), store.new_generation()
    for e in events:
        projector(one_by_one, declared=[]).project(e)
    projector(batch, declared=[]).project_many(events)
    for key in ("kids", "home_city"):
        assert batch.history("priya", key) == one_by_one.history("priya", key)
        assert observations(batch, key) == observations(one_by_one, key)
    assert batch.current("priya", "children") == []


def test_extraction_proposes_its_cardinality_and_a_description() -> None:
    (fact,) = RulesLLM().extract_facts(said(1, "I like sushi."), DEFAULT_FACT_TYPES)
    assert isinstance(fact, ExtractedFact)
    assert (fact.key, fact.member, fact.cardinality) == ("preference", "sushi", Cardinality.SET)
    assert fact.description


def test_an_explicit_fact_under_a_key_the_subject_has_as_a_set_joins_the_set(
    store: SqliteBeliefStore,
) -> None:
    index = store.active()
    p = projector(index)
    p.project(said(1, "I like sushi."))
    fact = FactInput(key="preference", text="Priya likes jazz.", value="likes jazz", member="jazz")
    p.project(said(2, "noted", facts=[fact]))
    assert sorted(b.member for b in index.current("priya", "preference")) == ["jazz", "sushi"]


def test_a_fact_restated_under_a_near_synonym_head_stays_one_belief(store: SqliteBeliefStore) -> None:
    index = store.active()
    p = projector(index, declared=[])
    p.project(said(1, "My favourite food is Thai."))
    p.project(said(2, "My favorite cuisine is Korean."))
    p.project(said(3, "My diet is vegetarian."))
    p.project(said(4, "My dietary needs are vegan."))
    assert [b.value for b in index.current("priya", "favorite_food")] == ["Korean"]
    assert [b.value for b in index.current("priya", "diet")] == ["vegan"]
    assert {b.key for b in index.current("priya")} == {"favorite_food", "diet"}
    assert [o.proposed_key for o in observations(index, "favorite_food")] == [
        "favorite_food",
        "favorite_cuisine",
    ]


def test_a_modifier_on_the_existing_key_does_not_split_the_fact(store: SqliteBeliefStore) -> None:
    """Either key may carry the word that changes nothing: the old value must not survive the change."""
    index = store.active()
    p = projector(index, declared=[])
    p.project(said(1, "My annual travel budget is $3,800."))
    p.project(said(2, "My travel budget is $4,800."))
    (belief,) = index.current("priya")
    assert (belief.key, belief.value) == ("annual_travel_budget", "$4,800")
    (_, changed) = observations(index, "annual_travel_budget")
    assert changed.key_reason is not None and "annual" in changed.key_reason


def test_an_animal_named_by_breed_then_by_kind_is_one_pet_and_another_kind_another(
    store: SqliteBeliefStore,
) -> None:
    index = store.active()
    p = projector(index, declared=[])
    p.project(said(1, "We have a whippet called Noodle."))
    p.project(said(2, "Our dog is Sprocket now."))
    p.project(said(3, "Priya has a cat named Tofu."))
    assert [b.value for b in index.current("priya", "whippet")] == ["Sprocket"]
    assert [b.value for b in index.current("priya", "cat")] == ["Tofu"]  # a second pet, not a rename
    assert index.current("priya", "dog") == []


def test_keys_for_other_facts_of_the_subject_stay_apart(store: SqliteBeliefStore) -> None:
    index = store.active()
    p = projector(index, declared=[])
    p.project(said(1, "My partner is Hana."))
    p.project(said(2, "My pet is Clementine."))
    p.project(said(3, "My employer is Globex."))
    p.project(said(4, "My former employer is Initech."))
    p.project(said(5, "My favorite color is green."))
    p.project(said(6, "My favorite food is ramen."))
    p.project(said(7, "I live in Austin."))
    p.project(said(8, "My work city is Dallas."))
    assert {(b.key, b.value) for b in index.current("priya")} == {
        ("partner", "Hana"), ("pet", "Clementine"), ("employer", "Globex"), ("former_employer", "Initech"),
        ("favorite_color", "green"), ("favorite_food", "ramen"), ("city", "Austin"), ("work_city", "Dallas"),
    }  # fmt: skip
