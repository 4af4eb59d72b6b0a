"""RulesLLM on declared keys: JSON objects, `key: value` lines, possessive sentences, grounding
(nothing stated, nothing extracted), and the verdict table. The generic shapes for undeclared
keys are in test_rules_shapes.py, the verdict rules in test_rules_verdict.py."""

from __future__ import annotations

import re
from typing import Any

import pytest

from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.model.beliefs import Belief, Cardinality, FactInput, FactType, Observation, Verdict
from agentmem.model.events import BlobRef, Event

FACT_TYPES = [
    FactType(key="risk_tolerance"),
    FactType(key="goal", cardinality=Cardinality.SET),
    FactType(key="income"),
    FactType(key="annual_income"),
    FactType(key="city"),
]


def event(content: Any, *, subject: str = "priya", blob: BlobRef | None = None) -> Event:
    return Event(
        event_id="ev1", session_id="s1", seq=1, subject_id=subject, round=0, agent="advisor",
        kind="note", media_type="text/plain", content=content, blob=blob, created_at="2026-11-30T00:00:00Z",
    )  # fmt: skip


def extract(content: Any, fact_types: list[FactType] = FACT_TYPES) -> list[tuple[str, str | None]]:
    return [(f.key, f.value) for f in RulesLLM().extract_facts(event(content), fact_types)]


# --- JSON object content -------------------------------------------------------------------------


def test_declared_top_level_key_with_a_scalar_gives_one_fact() -> None:
    assert extract({"risk_tolerance": "Aggressive", "mood": "cheerful"}) == [("risk_tolerance", "Aggressive")]


@pytest.mark.parametrize("name", ["Risk Tolerance", "risk-tolerance", "RISK_TOLERANCE", "risk  tolerance"])
def test_object_keys_match_loosely(name: str) -> None:
    assert extract({name: "cautious"}) == [("risk_tolerance", "cautious")]


def test_a_set_key_with_a_list_gives_one_fact_per_scalar_item() -> None:
    facts = extract({"goals": ["a house", "retire at 55", {"nested": 1}, None, True]})
    assert facts == [("goal", "a house"), ("goal", "retire at 55")]


def test_a_single_key_with_a_list_states_no_current_value() -> None:
    assert extract({"city": ["Austin", "Denver"]}) == []


def test_numbers_are_written_as_stated_and_booleans_and_nulls_state_nothing() -> None:
    assert extract({"income": 135000, "city": None, "risk_tolerance": True}) == [("income", "135000")]


def test_a_nested_facts_object_is_not_special() -> None:
    assert extract({"facts": {"risk_tolerance": "aggressive"}, "summary": {"city": "Austin"}}) == []


# --- text content ---------------------------------------------------------------------------------


def test_key_colon_and_key_equals_lines() -> None:
    text = "Notes\nrisk_tolerance: aggressive\n- City = Austin, TX\n* goals: retire by 55\n"
    assert extract(text) == [
        ("risk_tolerance", "aggressive"),
        ("city", "Austin, TX"),
        ("goal", "retire by 55"),
    ]


def test_key_words_in_a_sentence() -> None:
    assert extract("Her risk tolerance is aggressive.") == [("risk_tolerance", "aggressive")]
    assert extract("Her goals are early retirement!") == [("goal", "early retirement")]


def test_a_value_ends_at_sentence_punctuation_or_a_line_break_but_not_inside_a_figure() -> None:
    text = "Income: $1.5m per year. She likes it.\nher risk tolerance is high\nand rising"
    assert extract(text) == [("income", "$1.5m per year"), ("risk_tolerance", "high")]


@pytest.mark.parametrize(
    "text",
    [
        "risk tolerance is high",  # whose?
        "The city is beautiful in the spring.",
        "I loved the novel The City is Ours.",  # a title that holds a declared key's word
        "A goal is scored when the whole ball crosses the line.",  # the sports sense of "goal"
        "The director of Paris, Texas is Wim Wenders.",
    ],
)
def test_a_declared_keys_words_without_the_subject_as_owner_state_nothing(text: str) -> None:
    """Regression: the old rule read "<key words> is <value>" anywhere, so a book title holding
    "City" set the subject's city and a sports "goal" became a financial goal."""
    assert extract(text) == []


def test_a_comma_ends_a_sentence_value_so_two_clauses_give_two_facts() -> None:
    text = "Her risk tolerance is high, and her city is Austin."
    assert extract(text) == [("risk_tolerance", "high"), ("city", "Austin")]


def test_values_are_trimmed_and_capped_at_200_characters() -> None:
    (fact,) = RulesLLM().extract_facts(event("city:   " + "x" * 300 + "  "), FACT_TYPES)
    assert fact.value == "x" * 200


def test_the_longer_key_wins_where_two_declared_keys_overlap() -> None:
    assert extract("Her annual income is $135k.") == [("annual_income", "$135k")]


def test_facts_come_out_in_order_of_appearance_not_catalogue_order() -> None:
    text = "City: Austin. Income: $90k. Risk tolerance: low."
    assert [key for key, _ in extract(text)] == ["city", "income", "risk_tolerance"]


def test_an_exact_repeat_is_kept_once() -> None:
    assert extract("Her city is Austin. Again: her city is austin.") == [("city", "Austin")]


# --- the fact sentence ----------------------------------------------------------------------------


def test_single_and_set_sentences_name_the_subject_and_keep_the_users_casing() -> None:
    facts = RulesLLM().extract_facts(event({"risk tolerance": "Aggressive", "goal": "a House"}), FACT_TYPES)
    assert facts == [
        FactInput(key="risk_tolerance", text="Priya's risk tolerance is Aggressive.", value="Aggressive"),
        FactInput(key="goal", text="Priya's goals include a House.", value="a House"),
    ]
    assert all(f.member is None for f in facts)  # the projector derives members


# --- grounding ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "She prefers to play it safe with her money.",  # paraphrase: no declared key words
        "What is her risk tolerance?",  # a question
        "Is her risk tolerance aggressive?",
        "Her risk tolerance is aggressive?",
        "If her risk tolerance is aggressive, suggest equities.",  # a hypothetical
        "Ask whether her city is Austin.",
        "She has not said what her risk tolerance isn't.",  # contraction: no "is <value>"
        "She earns well and lives downtown.",  # no figure to copy
    ],
)
def test_a_text_that_states_no_declared_key_yields_nothing(text: str) -> None:
    assert extract(text) == []


def test_figures_are_never_invented() -> None:
    texts = [
        "Her income is $135,000. Her city is Austin.",
        "income = 90k\ngoal: retire at 55",
        "She earns about six figures; her goals are a bigger house.",
        {"income": 120000.5, "goals": ["save 20%", "a boat"]},
    ]
    for content in texts:
        source = str(content).replace(",", "")
        for f in RulesLLM().extract_facts(event(content), FACT_TYPES):
            for run in re.findall(r"\d+", f"{f.value} {f.text}".replace(",", "")):
                assert run in source, (content, f)


def test_key_value_lines_of_an_agents_note_are_read_but_its_headings_are_not() -> None:
    """An agent's "Summary: ..." or "Source: ..." line is no fact about the subject; "Employer:
    Acme" in its profile note is one, under the label's key, declared or not."""
    note = "Employer: Acme\nCity: Austin\nSummary: discussed the budget\nSource: call transcript"
    assert extract(note, [FactType(key="city")]) == [("employer", "Acme"), ("city", "Austin")]


def test_blob_and_array_content_yield_nothing() -> None:
    blob = BlobRef(uri="file://x", bytes=10, sha256="0" * 64, media_type="text/plain", preview="City: Austin")
    assert RulesLLM().extract_facts(event(None, blob=blob), FACT_TYPES) == []
    assert extract([{"city": "Austin"}, "City: Austin"]) == []


def test_extraction_is_deterministic() -> None:
    text = "Risk tolerance: high. Her goals are a house, a boat. Income = $100k\ncity is Austin"
    runs = {tuple(RulesLLM().extract_facts(event(text), FACT_TYPES)) for _ in range(20)}
    assert len(runs) == 1


# --- verdicts -------------------------------------------------------------------------------------


def belief(value: str, key: str = "risk_tolerance") -> Belief:
    return Belief(
        subject_id="priya", key=key, doc_id=key, text=f"Priya's {key} is {value}.", value=value, version=1,
        current=True, flag=False, verdict=Verdict.NEW, provenance=[], valid_from="2026-11-30T00:00:00Z",
        source_seq=1, source_order="a",
    )  # fmt: skip


def observation(value: str, key: str = "risk_tolerance") -> Observation:
    return Observation(
        subject_id="priya", key=key, text=f"Priya's {key} is {value}.", value=value, order="b",
        event_id="ev2", session_id="s2", seq=2, stated_at="2026-11-30T00:00:01Z",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "verdict"),
    [
        ("cautious", "aggressive", Verdict.CONFLICT),  # a categorical flip
        ("house", "house in Austin", Verdict.UPDATE),  # a refinement
        ("house in Austin", "house", Verdict.UPDATE),
        ("$120,000", "$135k", Verdict.UPDATE),  # figures drift
        ("12%", "15 %", Verdict.UPDATE),
        ("$120,000 per year", "$135k per year", Verdict.UPDATE),
        ("2 kids", "3 kids", Verdict.UPDATE),
        ("long term growth", "long term income growth", Verdict.UPDATE),  # Jaccard 0.75
        ("aggressive", "not aggressive", Verdict.CONFLICT),  # negation beats containment
        ("$100k salary", "$100k debt", Verdict.UPDATE),  # other wording, nothing it contradicts
        ("aggressive", "Aggressive!", Verdict.SAME),  # defensive: the projector answers this itself
    ],
)
def test_verdict_heuristic(old: str, new: str, verdict: Verdict) -> None:
    assert RulesLLM().decide(belief(old), observation(new), FACT_TYPES[0]) is verdict


def test_decide_never_answers_new() -> None:
    values = ["cautious", "aggressive", "house", "", "$1", "not sure", "house in Austin", "!!"]
    verdicts = {
        RulesLLM().decide(belief(a or "x"), observation(b or "y"), FACT_TYPES[0])
        for a in values
        for b in values
    }
    assert Verdict.NEW not in verdicts
