"""The generic English shapes of a fact stated, changed or corrected in prose (issue 12, part 2):
each sentence of tests/data/rules/prose_shapes.jsonl gives exactly its labelled (key, value)
pairs, and each near miss gives nothing. docs/extraction-rules.md lists the shapes and guards."""

from __future__ import annotations

from typing import Any

import pytest

from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.model.beliefs import normalise_value
from agentmem.semantic.fact_types import DEFAULT_FACT_TYPES
from tests.rules_eval import event_of, load, score_extraction, score_near_misses

ROWS = load("prose_shapes")
STATED = [r for r in ROWS if r["expect"]]
NEAR_MISSES = [r for r in ROWS if not r["expect"]]


def pairs(row: dict[str, Any]) -> set[tuple[str, str]]:
    facts = RulesLLM().extract_facts(event_of(row), DEFAULT_FACT_TYPES)
    return {(f.key, normalise_value(f.value or "")) for f in facts}


def texts(content: str, agent: str = "user") -> list[str]:
    row = {"id": "t", "subject": "maya", "agent": agent, "kind": "note", "content": content}
    return [f.text for f in RulesLLM().extract_facts(event_of(row), DEFAULT_FACT_TYPES)]


def test_the_corpus_is_large_enough_to_mean_something() -> None:
    assert len(ROWS) >= 150 and len(NEAR_MISSES) >= 50


@pytest.mark.parametrize("row", STATED, ids=[f"{r['id']}: {r['content'][:50]}" for r in STATED])
def test_each_stated_fact_gives_exactly_its_key_and_value(row: dict[str, Any]) -> None:
    assert pairs(row) == {(e["key"], normalise_value(e["value"])) for e in row["expect"]}


@pytest.mark.parametrize("row", NEAR_MISSES, ids=[f"{r['id']}: {r['content'][:50]}" for r in NEAR_MISSES])
def test_each_near_miss_gives_nothing(row: dict[str, Any]) -> None:
    assert pairs(row) == set()


def test_corpus_figures() -> None:
    score = score_extraction(STATED, RulesLLM().extract_facts)
    assert score.precision >= 0.95 and score.recall >= 0.95, score.misses
    assert score_near_misses(NEAR_MISSES, RulesLLM().extract_facts).false_facts == 0


def test_the_old_value_of_a_change_is_never_the_value() -> None:
    changes = [r for r in STATED if " from " in r["content"] and " to " in r["content"]]
    assert len(changes) >= 15
    for row in changes:
        old = row["content"].split(" from ", 1)[1].rsplit(" to ", 1)[0]  # "from X to Y": X
        for _, value in pairs(row):
            assert normalise_value(value) not in normalise_value(old), row


def test_a_change_or_a_correction_keeps_its_own_sentence_as_the_belief_text() -> None:
    assert texts("We moved from Porto to Lisbon.") == ["We moved from Porto to Lisbon."]
    assert texts("I'm not vegetarian, I'm vegan.") == ["I'm not vegetarian, I'm vegan."]
    assert texts("Maya now lives in Cork (previously Limerick).", "notetaker") == [
        "Maya now lives in Cork (previously Limerick)."
    ]
    assert texts("I live in Lisbon.") == ["Maya lives in Lisbon."]  # a plain statement: its own sentence


def test_a_correction_in_the_sentence_before_is_part_of_the_text() -> None:
    text = "That note is wrong: I never lived in Porto. I live in Braga."
    assert texts(text) == [text]
    assert texts("The weather is nice. I live in Braga.") == ["Maya lives in Braga."]


def test_a_negation_reaches_only_to_the_end_of_its_clause() -> None:
    assert pairs({"id": "n", "subject": "maya", "agent": "user", "kind": "message",
                  "content": "I never said I live in Porto."}) == set()  # fmt: skip
    assert pairs({"id": "n", "subject": "maya", "agent": "user", "kind": "message",
                  "content": "No, I live in Porto."}) == {("city", "porto")}  # fmt: skip


@pytest.mark.parametrize(
    "line",
    [
        "Summary: Maya called about her budget.",  # a heading
        "Sunday is busy: standup at 14:15",  # a clause, not a label
        "Free slots on Sunday: 17:15",  # a phrase with a preposition
        "Household: two adults, a dog (Rex).",  # more than one value on the line
        "Plan: send Maya the revised version on Friday morning after the review",  # too long
        "Reply: I'll check with the team.",  # first person
        "Very long label with words: Porto",  # four words
    ],
)
def test_label_lines_that_are_no_attribute_state_nothing(line: str) -> None:
    assert texts(line, "notetaker") == []


def test_a_household_line_is_read_by_its_own_idiom_not_as_a_label() -> None:
    # The label guard refuses the line (two values); the household idiom reads the pet in it.
    assert texts("Household: a cat, Tofu (a tabby).", "notetaker") == ["Maya has a tabby called Tofu."]


def test_undeclared_label_lines_are_read_only_in_an_agents_voice() -> None:
    assert texts("Home city: Porto", "notetaker") == ["Maya's home city is Porto."]
    assert texts("Home city: Porto", "user") == []


def test_fresh_split_figures() -> None:
    """The fresh split was written after the rules were frozen (its first run: precision 100%,
    recall 94.3%, one near miss mislabelled; docs/extraction-rules.md has the story)."""
    rows = load("prose_shapes_fresh")
    score = score_extraction([r for r in rows if r["expect"]], RulesLLM().extract_facts)
    assert score.precision >= 0.95 and score.recall >= 0.9, score.misses
    assert score_near_misses([r for r in rows if not r["expect"]], RulesLLM().extract_facts).false_facts == 0
