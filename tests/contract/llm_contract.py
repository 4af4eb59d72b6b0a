"""The LLM port's contract: extraction, verdicts and key resolution. Every adapter's test class
subclasses LLMContract and provides `llm`. A model-backed adapter answers the scenarios below from
recorded model answers (see test_llms.py); what those answers get wrong on purpose (an invented
figure, an undeclared key, a key that is no candidate) is what the adapter must catch.

What any adapter guarantees:
- a fact is under a valid key; a plain FactInput is under a declared key, and a fact under a key
  nobody declared is an ExtractedFact, carrying the cardinality the resolver needs;
- grounded: no figure in a fact's value or sentence that the event does not state (the subject's
  name and the key aside), and nothing from an event that states nothing or has no text;
- an over-long statement is bounded or left out, never an error;
- `decide` answers SAME, UPDATE or CONFLICT (never NEW) and reads a reversal as a CONFLICT;
- a change that names the old value it replaces ("moved from Pune to Lisbon") records it beside
  the new one (`ExtractedFact.replaces`), never as a value of its own;
- `resolve_key` answers one of the candidates or none;
- the same input gives the same answer (resolution is part of what replay reproduces)."""

from __future__ import annotations

import re

import pytest

from agentmem.model.beliefs import (
    Belief,
    Cardinality,
    ExtractedFact,
    FactInput,
    FactType,
    KeyCandidate,
    KeyProposal,
    Observation,
    Verdict,
)
from agentmem.model.events import BlobRef, Event
from agentmem.ports.semantic import LLM

FACT_TYPES = [
    FactType(key="risk_tolerance", description="How much investment risk the subject accepts."),
    FactType(key="income", description="Yearly income."),
    FactType(key="goal", cardinality=Cardinality.SET),
    FactType(key="city", description="Where the subject lives."),
]
DECLARED = {t.key for t in FACT_TYPES}

STATED = "Priya's risk tolerance is aggressive. Priya's income is $135,000. Priya lives in Pune."
QUESTION = "What is Priya's income these days? She did not say."
OBJECT = {"risk_tolerance": "cautious", "income": "$90,000"}
UNDECLARED = "Priya's favourite colour is green."
MOVED = "Priya moved from Pune to Lisbon in March."
LONG = "Priya's goal is " + "a quiet house by the sea with room for a workshop " * 80 + "."
PREVIEWLESS = BlobRef(
    uri="file:///blobs/x", bytes=40_000, sha256="ab" * 32, media_type="text/csv", preview=""
)

KEY_ID = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
DIGITS = re.compile(r"\d+")


def event(content: object = STATED, *, blob: BlobRef | None = None, seq: int = 1) -> Event:
    return Event(
        event_id=f"ev{seq}", session_id="s1", seq=seq, subject_id="priya", round=0, agent="advisor",
        kind="note", media_type="text/plain", content=content, blob=blob, created_at="2026-11-30T00:00:00Z",
    )  # fmt: skip


def belief(key: str, value: str, text: str) -> Belief:
    return Belief(
        subject_id="priya", key=key, doc_id=key, text=text, value=value, version=1, current=True,
        flag=False, verdict=Verdict.NEW, provenance=[], valid_from="2026-11-01T00:00:00Z",
        source_seq=1, source_order="2026-11-01T00:00:00Z|s0|1",
    )  # fmt: skip


def observation(key: str, value: str, text: str) -> Observation:
    return Observation(
        subject_id="priya", key=key, text=text, value=value, order="2026-11-30T00:00:00Z|s1|2",
        event_id="ev2", session_id="s1", seq=2, stated_at="2026-11-30T00:00:00Z",
    )  # fmt: skip


REVERSAL = (
    belief("risk_tolerance", "cautious", "Priya's risk tolerance is cautious."),
    observation("risk_tolerance", "aggressive", "Priya's risk tolerance is aggressive."),
    FACT_TYPES[0],
)
MOVE = (
    belief("city", "Pune", "Priya lives in Pune."),
    observation("city", "Mumbai", "Priya lives in Mumbai."),
    FACT_TYPES[3],
)

CANDIDATES = [
    KeyCandidate(
        key="city", description="Where the subject lives.", example="Priya lives in Pune.",
        cardinality=Cardinality.SINGLE, declared=True, score=0.81,
    ),
    KeyCandidate(
        key="income", description="Yearly income.", example="Priya's income is $135,000.",
        cardinality=Cardinality.SINGLE, declared=True, score=0.55,
    ),
]  # fmt: skip
SYNONYM = KeyProposal(
    key="home_city", description="The city the subject lives in.", text="Priya's home city is Pune.",
    value="Pune", cardinality=Cardinality.SINGLE,
)  # fmt: skip
OTHER_QUANTITY = KeyProposal(
    key="monthly_income", description="Income per month.", text="Priya's monthly income is $9,000.",
    value="$9,000", cardinality=Cardinality.SINGLE,
)  # fmt: skip
UNRELATED = KeyProposal(
    key="favorite_color", description="", text="Priya's favourite colour is green.", value="green",
    cardinality=Cardinality.SINGLE,
)  # fmt: skip

# Open keys (model-backed adapters, OpenKeysContract): one event, and what its recorded answer
# holds in test_llms.py: a new key, another spelling of a declared key, a value the event does not
# state, and a key that is not snake_case.
OPEN = "Priya codes mostly in Rust. Priya's risk appetite is aggressive. Her colleague Tom is a cricket fan."

EXTRACTION_SCENARIOS = {
    "stated": event(STATED),
    "question": event(QUESTION),
    "object": event(OBJECT),
    "undeclared": event(UNDECLARED),
    "long": event(LONG),
    "moved": event(MOVED),
}


def figures(text: str) -> set[str]:
    return set(DIGITS.findall(text.replace(",", "")))


def pairs(facts: list[FactInput]) -> set[tuple[str, str]]:
    return {(f.key, (f.value or f.text).casefold()) for f in facts}


class LLMContract:
    @pytest.fixture
    def llm(self) -> LLM:
        raise NotImplementedError

    def test_statements_under_declared_keys_are_extracted_with_the_events_values(self, llm: LLM) -> None:
        facts = llm.extract_facts(event(STATED), FACT_TYPES)
        assert pairs(facts) == {("risk_tolerance", "aggressive"), ("income", "$135,000"), ("city", "pune")}

    def test_an_object_gives_its_declared_fields(self, llm: LLM) -> None:
        facts = llm.extract_facts(event(OBJECT), FACT_TYPES)
        assert pairs(facts) == {("risk_tolerance", "cautious"), ("income", "$90,000")}

    @pytest.mark.parametrize("scenario", sorted(EXTRACTION_SCENARIOS))
    def test_every_fact_is_under_a_valid_key_and_plain_facts_under_declared_ones(
        self, llm: LLM, scenario: str
    ) -> None:
        for fact in llm.extract_facts(EXTRACTION_SCENARIOS[scenario], FACT_TYPES):
            assert isinstance(fact, FactInput)
            assert KEY_ID.match(fact.key), fact.key
            assert fact.key in DECLARED or isinstance(fact, ExtractedFact), fact

    @pytest.mark.parametrize("scenario", sorted(EXTRACTION_SCENARIOS))
    def test_no_fact_holds_a_figure_the_event_does_not_state(self, llm: LLM, scenario: str) -> None:
        source = EXTRACTION_SCENARIOS[scenario]
        stated = figures(str(source.content))
        for fact in llm.extract_facts(source, FACT_TYPES):
            assert figures(fact.value or "") <= stated, fact
            assert figures(fact.text) <= stated | figures(fact.key) | figures(source.subject_id), fact

    def test_a_change_that_names_its_old_value_records_it_beside_the_new_one(self, llm: LLM) -> None:
        (city,) = llm.extract_facts(event(MOVED), FACT_TYPES)
        assert isinstance(city, ExtractedFact)  # a declared key too: only it carries `replaces`
        assert (city.key, city.value, city.replaces) == ("city", "Lisbon", "Pune")

    def test_a_question_states_no_fact(self, llm: LLM) -> None:
        assert llm.extract_facts(event(QUESTION), FACT_TYPES) == []

    def test_an_event_without_text_gives_no_facts(self, llm: LLM) -> None:
        # A model-backed adapter must not even ask: its recorder fails on any prompt it did not expect.
        assert llm.extract_facts(event(None, blob=PREVIEWLESS), FACT_TYPES) == []

    def test_an_over_long_statement_is_bounded_never_an_error(self, llm: LLM) -> None:
        for fact in llm.extract_facts(event(LONG), FACT_TYPES):
            assert len(fact.value or "") <= 500
            assert len(fact.text) <= 2000

    @pytest.mark.parametrize("scenario", sorted(EXTRACTION_SCENARIOS))
    def test_extraction_is_deterministic(self, llm: LLM, scenario: str) -> None:
        source = EXTRACTION_SCENARIOS[scenario]
        assert llm.extract_facts(source, FACT_TYPES) == llm.extract_facts(source, FACT_TYPES)

    def test_a_reversed_stance_is_a_conflict(self, llm: LLM) -> None:
        assert llm.decide(*REVERSAL) is Verdict.CONFLICT

    def test_a_replaced_value_that_contradicts_nothing_is_an_update(self, llm: LLM) -> None:
        assert llm.decide(*MOVE) is Verdict.UPDATE

    @pytest.mark.parametrize("case", [REVERSAL, MOVE], ids=["reversal", "move"])
    def test_a_verdict_is_same_update_or_conflict_and_repeatable(
        self, llm: LLM, case: tuple[Belief, Observation, FactType]
    ) -> None:
        first = llm.decide(*case)
        assert isinstance(first, Verdict)
        assert first in {Verdict.SAME, Verdict.UPDATE, Verdict.CONFLICT}
        assert llm.decide(*case) is first

    def test_a_key_meaning_the_same_resolves_to_the_existing_one(self, llm: LLM) -> None:
        assert llm.resolve_key(SYNONYM, CANDIDATES).key == "city"

    def test_a_different_quantity_resolves_to_none(self, llm: LLM) -> None:
        assert llm.resolve_key(OTHER_QUANTITY, CANDIDATES).key is None

    @pytest.mark.parametrize("proposal", [SYNONYM, OTHER_QUANTITY, UNRELATED], ids=lambda p: p.key)
    def test_the_choice_is_a_candidate_or_none_and_repeatable(self, llm: LLM, proposal: KeyProposal) -> None:
        choice = llm.resolve_key(proposal, CANDIDATES)
        assert choice.key is None or choice.key in {c.key for c in CANDIDATES}
        assert choice.reason
        assert llm.resolve_key(proposal, CANDIDATES) == choice


class OpenKeysContract:
    """What a model-backed adapter does with keys nobody declared. The local rules always propose
    (the key resolver drops what the tenant refuses), so they are not held to the `forbidden`
    case; a model is asked for new keys only when the tenant allows them."""

    @pytest.fixture
    def llm(self) -> LLM:
        raise NotImplementedError

    def test_with_undeclared_keys_allowed_a_proposed_key_yields_a_fact_under_it(self, llm: LLM) -> None:
        facts = llm.extract_facts(event(OPEN), FACT_TYPES, allow_undeclared=True)
        (language,) = [f for f in facts if f.key == "programming_language"]
        assert isinstance(language, ExtractedFact)
        assert (language.value, language.cardinality) == ("Rust", Cardinality.SET)
        assert language.description and "\n" not in language.description

    def test_with_undeclared_keys_forbidden_the_same_answer_yields_nothing(self, llm: LLM) -> None:
        assert llm.extract_facts(event(OPEN), FACT_TYPES) == []
        assert llm.extract_facts(event(OPEN), FACT_TYPES, allow_undeclared=False) == []

    def test_another_spelling_of_a_declared_key_is_put_under_it(self, llm: LLM) -> None:
        facts = llm.extract_facts(event(OPEN), FACT_TYPES, allow_undeclared=True)
        (risk,) = [f for f in facts if f.key == "risk_tolerance"]
        assert type(risk) is FactInput  # declared: the declaration decides its cardinality
        assert risk.value == "aggressive"

    def test_a_proposed_value_the_event_does_not_state_and_a_malformed_key_are_refused(
        self, llm: LLM
    ) -> None:
        facts = llm.extract_facts(event(OPEN), FACT_TYPES, allow_undeclared=True)
        assert {f.key for f in facts} == {"programming_language", "risk_tolerance"}
        for fact in facts:
            assert KEY_ID.match(fact.key)
            assert figures(fact.value or "") <= figures(OPEN)
