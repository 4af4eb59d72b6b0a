"""The chat idioms of issue 12 (a favourite cuisine, a plan, a hobby, work, diet, money, age,
family, pets), tests/data/rules/prose_shapes2.jsonl: each stated sentence gives exactly its
(key, value) pairs and, for a change or a correction, the old value it names; each near miss
gives nothing. The fresh split was written with the dev split, before any rule, and scored once
after the rules were frozen (docs/extraction-rules.md has its figures)."""

from __future__ import annotations

from typing import Any

import pytest

from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.model.beliefs import ExtractedFact, normalise_value
from agentmem.semantic.fact_types import DEFAULT_FACT_TYPES
from tests.rules_eval import event_of, load, score_extraction, score_near_misses

ROWS = load("prose_shapes2")
STATED = [r for r in ROWS if r["expect"]]
NEAR_MISSES = [r for r in ROWS if not r["expect"]]


def facts(row: dict[str, Any]) -> list[Any]:
    return RulesLLM().extract_facts(event_of(row), DEFAULT_FACT_TYPES)


def user(content: str) -> list[tuple[str, str]]:
    row = {"id": "t", "subject": "maya", "agent": "user", "kind": "message", "content": content}
    return [(f.key, f.value) for f in facts(row)]


def test_the_corpus_is_large_enough_to_mean_something() -> None:
    assert len(STATED) >= 80 and len(NEAR_MISSES) >= 40


@pytest.mark.parametrize("row", STATED, ids=[f"{r['id']}: {r['content'][:50]}" for r in STATED])
def test_each_stated_idiom_gives_exactly_its_key_and_value(row: dict[str, Any]) -> None:
    got = {(f.key, normalise_value(f.value or "")) for f in facts(row)}
    assert got == {(e["key"], normalise_value(e["value"])) for e in row["expect"]}


CHANGES = [r for r in STATED if any("replaces" in e for e in r["expect"])]


@pytest.mark.parametrize("row", CHANGES, ids=[f"{r['id']}: {r['content'][:50]}" for r in CHANGES])
def test_a_change_records_the_old_value_it_names_and_never_as_a_value(row: dict[str, Any]) -> None:
    by_key = {f.key: f for f in facts(row)}
    for expected in row["expect"]:
        fact = by_key[expected["key"]]
        assert isinstance(fact, ExtractedFact) and fact.replaces is not None, fact
        assert normalise_value(fact.replaces) == normalise_value(expected["replaces"])
        assert normalise_value(fact.value) != normalise_value(fact.replaces)


@pytest.mark.parametrize("row", NEAR_MISSES, ids=[f"{r['id']}: {r['content'][:50]}" for r in NEAR_MISSES])
def test_each_near_miss_gives_nothing(row: dict[str, Any]) -> None:
    assert facts(row) == []


def test_a_hobby_given_up_is_no_activity_of_its_own() -> None:
    # The old rules read "I gave up pottery" as activity "gave up pottery": a false fact here.
    assert user("I gave up pottery; these days it's bonsai.") == [("hobby", "bonsai")]
    assert user("I gave up alcohol.") == [("activity", "gave up alcohol")]  # no hobby named: unchanged


def test_a_preference_without_a_change_names_no_old_value() -> None:
    (fact,) = facts({"id": "t", "subject": "maya", "agent": "user", "kind": "message",
                     "content": "I'd take Japanese over Italian any day."})  # fmt: skip
    assert fact.key == "favorite_cuisine" and getattr(fact, "replaces", None) is None


def test_a_favourite_needs_a_named_value() -> None:
    assert user("Python is my favourite language.") == [("favorite_language", "Python")]
    assert user("This is my favourite restaurant.") == []  # a deictic names nothing
    assert user("Blue is my favourite.") == []  # no attribute named, and no cuisine


def test_job_idioms_need_talk_of_a_job() -> None:
    assert user("New job! I'm at Wayfarer Studios now.") == [("employer", "Wayfarer Studios")]
    assert user("I'm at Wayfarer Studios now.") == []  # a place as often as an employer


def test_corpus_figures() -> None:
    score = score_extraction(STATED, RulesLLM().extract_facts)
    assert score.precision >= 0.95 and score.recall >= 0.95, score.misses
    assert score_near_misses(NEAR_MISSES, RulesLLM().extract_facts).false_facts == 0


def test_fresh_split_figures() -> None:
    """Written before the rules and scored once after they were frozen: the floor below is what
    that run gave, not a target tuned towards."""
    rows = load("prose_shapes2_fresh")
    score = score_extraction([r for r in rows if r["expect"]], RulesLLM().extract_facts)
    assert score.precision >= FRESH_PRECISION and score.recall >= FRESH_RECALL, score.misses
    assert score_near_misses([r for r in rows if not r["expect"]], RulesLLM().extract_facts).false_facts == 0


# The one fresh run, rules frozen at e030f6e: precision 100%, recall 97.3% (36 of 37; the miss is
# "Right now I'd choose Hungarian over Austrian", an opener the rules do not allow), 0 false facts
# on 15 near misses, 9 of 10 old values. The floors leave room for a general fix, not for a regression.
FRESH_PRECISION, FRESH_RECALL = 0.95, 0.9


def note(content: str) -> list[tuple[str, str]]:
    row = {"id": "t", "subject": "maya", "agent": "notetaker", "kind": "note", "content": content}
    return [(f.key, f.value) for f in facts(row)]


def test_a_time_phrase_may_open_the_clause_before_its_subject() -> None:
    assert user("These days I live in Porto.") == [("city", "Porto")]
    assert user("He said these days I live in Porto.") == []  # still reported


def test_a_period_after_an_attribute_is_no_part_of_its_key() -> None:
    assert user("Our travel budget for the year is $2,500.") == [("travel_budget", "$2,500")]
    assert user("My goal for today is to rest.") == []  # the attribute's own preposition: no attribute


def test_a_diet_is_read_before_eating_and_before_a_second_verb() -> None:
    assert note("Update: Maya changed from keto to vegetarian eating.") == [("diet", "vegetarian")]
    assert user("I eat keto these days and feel much better for it.") == [("diet", "keto")]
    assert user("I eat vegan cheese and love it.") == []  # a product, still no diet


def test_a_resident_is_a_city_not_an_identity() -> None:
    assert note("Maya is a Gdynia resident.") == [("city", "Gdynia")]
    assert user("I'm a nurse.") == [("identity", "nurse")]


@pytest.mark.parametrize(
    "content",
    [
        "I'm in the office at Heathrow.",  # a place; an office is no team
        "I'm saving for a rainy day.",  # an idiom, no plan
        "On weekends I go to the market.",  # an errand, led by a preposition
        "Lately I've been getting into arguments with my boss.",  # no hobby
        "I quit my job; now it's freelancing.",  # what was given up is no hobby
    ],
)
def test_near_misses_probed_after_the_freeze_state_nothing(content: str) -> None:
    """Found by trying the idioms on sentences of my own after the fresh run, fixed generally."""
    assert user(content) == []
