"""Facts about named entities other than the subject (rules/entity_facts.py): each shape, one key
per relation whatever the shape, the refusals, a labelled corpus of statements and near misses
(tests/data/rules/entity_facts.jsonl), and the verdict for a new value of such a key.
docs/extraction-rules.md ("Facts about named entities") says the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentmem.adapters.local.rules import keys
from agentmem.adapters.local.rules.entity_facts import changed, is_entity_key
from agentmem.adapters.local.rules.verdict import decide_entity
from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.model.beliefs import (
    Belief,
    Cardinality,
    ExtractedFact,
    FactType,
    KeyCandidate,
    KeyProposal,
    Observation,
    Verdict,
)
from agentmem.model.events import Event
from agentmem.semantic.fact_types import DEFAULT_FACT_TYPES

CORPUS = [
    json.loads(line)
    for line in (Path(__file__).parents[1] / "data" / "rules" / "entity_facts.jsonl").read_text().splitlines()
    if line.strip()
]
SUBJECT_KEYS = {t.key for t in DEFAULT_FACT_TYPES}


def event(content: Any, *, subject: str = "kb", agent: str = "user") -> Event:
    return Event(
        event_id="ev1", session_id="s1", seq=1, subject_id=subject, round=0, agent=agent, kind="message",
        media_type="text/plain", content=content, created_at="2026-01-01T00:00:00Z",
    )  # fmt: skip


def facts(text: str, **who: str) -> list[ExtractedFact]:
    found = RulesLLM().extract_facts(event(text, **who), DEFAULT_FACT_TYPES)
    assert all(isinstance(f, ExtractedFact) for f in found if f.key not in SUBJECT_KEYS)
    return [f for f in found if isinstance(f, ExtractedFact)]


def pairs(text: str, **who: str) -> list[tuple[str, str]]:
    return [(f.key, f.value or "") for f in RulesLLM().extract_facts(event(text, **who), DEFAULT_FACT_TYPES)]


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("The CEO of Acme is Dana Lee.", "The CEO of Acme is Dana Lee."),  # the R of E is V
        ("Acme's CEO is Dana Lee.", "The CEO of Acme is Dana Lee."),  # E's R is V
        ("Dana Lee is the CEO of Acme.", "The CEO of Acme is Dana Lee."),  # V is the R of E
        ("The CEO of Acme is now Dana Lee.", "The CEO of Acme is now Dana Lee."),
        ("The CEO of Acme has been Dana Lee since 2021.", "The CEO of Acme is now Dana Lee."),
        ("The CEO of Acme changed to Dana Lee.", "The CEO of Acme is now Dana Lee."),
        ("The CEO of Acme became Dana Lee.", "The CEO of Acme is now Dana Lee."),
        ("Dana Lee became the CEO of Acme.", "The CEO of Acme is now Dana Lee."),
        ("Acme's new CEO is Dana Lee.", "The CEO of Acme is now Dana Lee."),
        ("The CEO of Acme is no longer Raj Patel; it is Dana Lee.", "The CEO of Acme is now Dana Lee."),
        ("The CEO of Acme changed from Raj Patel to Dana Lee.", "The CEO of Acme is now Dana Lee."),
    ],
)
def test_each_shape_gives_one_single_valued_fact_with_its_own_sentence(text: str, sentence: str) -> None:
    (fact,) = facts(text)
    assert (fact.key, fact.value, fact.text) == ("ceo_of_acme", "Dana Lee", sentence)
    assert fact.cardinality is Cardinality.SINGLE
    assert fact.description == "the CEO of Acme"


@pytest.mark.parametrize(
    "text",
    [
        "The CEO of Acme is Dana Lee.",
        "The ceo of Acme is Dana Lee.",  # the relation in any case
        "The Chief Executive Officer of Acme is Dana Lee.".replace("Chief Executive Officer", "CEO"),
        "Acme's CEO is Dana Lee.",
        "Acme's current CEO is Dana Lee.",  # a modifier is no part of the key
        "The CEO of Acme Inc. is Dana Lee.",  # nor is a company suffix
        "The CEO of Acme Corp is Dana Lee.",
        "Dana Lee is the CEO of Acme Ltd.",
    ],
)
def test_every_shape_of_one_relation_lands_on_one_key(text: str) -> None:
    assert pairs(text) == [("ceo_of_acme", "Dana Lee")]


def test_the_entity_keeps_its_case_and_the_key_its_words() -> None:
    (fact,) = facts("The governor of the Bank of England is Andrew Bailey.")
    assert fact.key == "governor_of_bank_of_england"
    assert fact.description == "the governor of the Bank of England"
    assert pairs("The Bank of England's governor is Andrew Bailey.") == [
        ("governor_of_bank_of_england", "Andrew Bailey")
    ]
    assert pairs("The head of state of France is Emmanuel Macron.") == [
        ("head_of_state_of_france", "Emmanuel Macron")
    ]


def test_a_plural_relation_keeps_its_verb_and_one_value() -> None:
    (fact,) = facts("The official languages of Canada are English and French.")
    assert (fact.key, fact.value, fact.cardinality) == (
        "official_languages_of_canada",
        "English and French",
        Cardinality.SINGLE,
    )
    assert fact.text == "The official languages of Canada are English and French."


def test_the_value_is_the_sentences_own_words_without_a_trailing_clause() -> None:
    assert pairs("The CEO of Acme is Raj Patel, who joined in 2020.") == [("ceo_of_acme", "Raj Patel")]
    assert pairs("The CEO of Acme is Dr. Dana Lee.") == [("ceo_of_acme", "Dr. Dana Lee")]
    assert pairs("The population of Lagos is about 15 million.") == [
        ("population_of_lagos", "about 15 million")
    ]
    assert pairs("The founder of Amazon is Jeff Bezos and the CEO of Amazon is Andy Jassy.") == [
        ("founder_of_amazon", "Jeff Bezos"),
        ("ceo_of_amazon", "Andy Jassy"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "The CEO of the Big Old Acme Holding Group of Companies is Dana Lee.",  # entity over 6 words
        "The chief global executive sales officer of Acme is Dana Lee.",  # relation over 4 words
        "The longest serving regional operations director of Acme is Dana Lee.",
        # a key over 64 characters
        "The CEO of Acmeacmeacmeacmeacmeacmeacmeacmeacme Worldwide Holdings Group is Dana Lee.",
    ],
)
def test_relations_and_entities_over_their_limits_are_refused(text: str) -> None:
    assert pairs(text) == []


def test_the_subject_is_the_subject_rules_business() -> None:
    assert pairs("Priya's city is Austin.", subject="priya", agent="intake") == [("city", "Austin")]
    assert pairs("The city of Priya is Austin.", subject="priya", agent="intake") == [("city", "Austin")]
    assert pairs("My sister's city is Toronto.", subject="priya") == []
    # Under a knowledge base Priya is one more named entity: her city is hers, not the subject's.
    assert pairs("Priya's city is Austin.", subject="kb", agent="intake") == [("city_of_priya", "Austin")]


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("The director of Paris, Texas is Wim Wenders.", "kb"),
        ("The capital of Texas is Austin.", "priya"),
        ("Acme's location is Munich.", "priya"),
        ("The employer of Dana Lee is Globex.", "kb"),
        ("Raj's employer is Google.", "priya"),
        ("The occupation of Raj Patel is architect.", "kb"),
        ("The city of Paris is home to many museums.", "kb"),
    ],
)
def test_a_sentence_about_another_entity_never_sets_a_subject_key(text: str, subject: str) -> None:
    found = pairs(text, subject=subject, agent="intake")
    assert not {key for key, _ in found} & SUBJECT_KEYS, found
    assert all("_of_" in key for key, _ in found), found


@pytest.mark.parametrize("row", [r for r in CORPUS if r["facts"]], ids=lambda r: r["id"])
def test_the_labelled_statements(row: dict[str, Any]) -> None:
    assert pairs(row["text"]) == [tuple(f) for f in row["facts"]]


@pytest.mark.parametrize("row", [r for r in CORPUS if not r["facts"]], ids=lambda r: r["id"])
def test_the_labelled_near_misses_state_nothing(row: dict[str, Any]) -> None:
    assert pairs(row["text"]) == []


def test_the_corpus_is_large_and_varied() -> None:
    statements = [r for r in CORPUS if r["facts"]]
    assert len(statements) >= 100
    assert len(CORPUS) - len(statements) >= 40
    relations = {key.split("_of_")[0] for r in statements for key, _ in r["facts"]}
    assert len(relations) >= 30


@pytest.mark.parametrize(
    ("old", "new", "text", "verdict"),
    [
        ("Dana Lee", "Dana Lee", "The CEO of Acme is Dana Lee.", Verdict.SAME),
        ("Dana Lee", "Raj Patel", "The CEO of Acme is now Raj Patel.", Verdict.UPDATE),
        ("Dana Lee", "Raj Patel", "The CEO of Acme is Raj Patel.", Verdict.CONFLICT),  # no change marker
        ("Dana Lee", "Dr. Dana Lee", "The CEO of Acme is Dr. Dana Lee.", Verdict.UPDATE),  # only detail
        ("15 million", "16 million", "The population of Lagos is 16 million.", Verdict.CONFLICT),
        ("15 million", "16 million", "The population of Lagos is now 16 million.", Verdict.UPDATE),
    ],
)
def test_the_verdict_for_a_new_value(old: str, new: str, text: str, verdict: Verdict) -> None:
    assert decide_entity(old, new, changed=changed(text)) is verdict


def test_the_port_gives_the_entity_verdict_only_to_entity_facts() -> None:
    def belief(value: str, text: str, key: str) -> Belief:
        return Belief(
            subject_id="kb", key=key, doc_id=key, text=text, value=value, version=1, current=True,
            flag=False, verdict=Verdict.NEW, provenance=[], valid_from="2026-01-01T00:00:00Z",
            source_seq=1, source_order="o",
        )  # fmt: skip

    def observed(value: str, text: str, key: str) -> Observation:
        return Observation(
            subject_id="kb", key=key, text=text, value=value, order="p", event_id="e", session_id="s",
            seq=1, stated_at="2026-01-01T00:00:00Z",
        )  # fmt: skip

    llm, ceo = RulesLLM(), FactType(key="ceo_of_acme")
    old = belief("Dana Lee", "The CEO of Acme is Dana Lee.", "ceo_of_acme")
    assert llm.decide(old, observed("Raj Patel", "The CEO of Acme is Raj Patel.", "ceo_of_acme"), ceo) is (
        Verdict.CONFLICT
    )
    assert llm.decide(
        old, observed("Raj Patel", "The CEO of Acme is now Raj Patel.", "ceo_of_acme"), ceo
    ) is (Verdict.UPDATE)
    city = FactType(key="city")
    mine = belief("Austin", "Kb lives in Austin.", "city")
    assert llm.decide(mine, observed("Denver", "Kb lives in Denver.", "city"), city) is Verdict.UPDATE
    assert not is_entity_key("place_of_birth", "Priya's place of birth is Lagos.")


def test_keys_scoped_by_different_entities_never_mean_the_same() -> None:
    def candidate(key: str) -> KeyCandidate:
        return KeyCandidate(key=key, description="", example="", cardinality=Cardinality.SINGLE,
                            declared=False, score=1.0)  # fmt: skip

    def proposal(key: str) -> KeyProposal:
        return KeyProposal(key=key, description="", text="t", value="v", cardinality=Cardinality.SINGLE)

    assert keys.decide(proposal("ceo_of_home_depot"), [candidate("ceo_of_depot")]).key is None  # not "home"
    assert keys.decide(proposal("location_of_acme"), [candidate("city")]).key is None
    assert keys.decide(proposal("home_city"), [candidate("city")]).key == "city"
    assert keys.decide(proposal("ceo_of_acme"), [candidate("ceo_of_acme")]).key == "ceo_of_acme"
