"""The local verdict, rule by rule: CONFLICT for contradictions (a reversed attitude, a negation,
opposite poles, an explicit change of mind), UPDATE for any other change, SAME for the same fact
in other words. The demo's two flips stay flagged."""

from __future__ import annotations

import pytest

from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.model.beliefs import Belief, FactType, Observation, Verdict

SAME, UPDATE, CONFLICT = Verdict.SAME, Verdict.UPDATE, Verdict.CONFLICT


def verdict(
    old: str, new: str, *, key: str = "preference", old_text: str = "", new_text: str = ""
) -> Verdict:
    current = Belief(
        subject_id="priya", key=key, doc_id=key, text=old_text or f"Priya: {old}.", value=old, version=1,
        current=True, flag=False, verdict=Verdict.NEW, provenance=[], valid_from="2026-01-01T00:00:00Z",
        source_seq=1, source_order="a",
    )  # fmt: skip
    candidate = Observation(
        subject_id="priya", key=key, text=new_text or f"Priya: {new}.", value=new, order="b", event_id="e2",
        session_id="s2", seq=2, stated_at="2026-01-02T00:00:00Z",
    )  # fmt: skip
    return RulesLLM().decide(current, candidate, FactType(key=key))


def test_the_demos_two_changes_of_mind_stay_flagged() -> None:
    risk = verdict(
        "cautious",
        "aggressive",
        key="risk_tolerance",
        old_text="Priya is cautious about investment risk.",
        new_text="Priya wants to be aggressive, in individual tech stocks.",
    )
    stocks = verdict(
        "dislikes individual stocks",
        "wants individual tech stocks",
        key="investment_preference",
        old_text="Priya dislikes individual stocks.",
        new_text="Priya wants to hold individual tech stocks.",
    )
    assert (risk, stocks) == (CONFLICT, CONFLICT)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("likes sushi", "no longer likes sushi"),  # "no longer"
        ("likes cats", "doesn't like cats"),  # negation of the old value
        ("aggressive", "not aggressive"),
        ("smoker", "non-smoker"),
        ("started running", "stopped running"),  # starting reversed
        ("loves bonds", "avoids bonds"),  # attitudes of opposite sign
        ("likes hot weather", "likes cold weather"),  # opposite poles, the rest the same
        ("morning person", "night owl"),
        ("bullish on tech", "bearish on tech"),
        ("vegan", "eats meat"),
        ("always walks to work", "never walks to work"),
    ],
)
def test_contradictions_are_flagged(old: str, new: str) -> None:
    assert verdict(old, new) is CONFLICT


def test_an_explicit_change_of_mind_is_flagged_even_between_unrelated_values() -> None:
    plain = verdict("blue", "green", key="favorite_color")
    changed = verdict("blue", "green", key="favorite_color", new_text="Priya changed her mind: green.")
    assert (plain, changed) == (UPDATE, CONFLICT)


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ("$128,000 a year", "$135,000 a year", "income"),  # a number that moves
        ("2 kids", "3 kids", "kids"),
        ("no kids", "one kid", "kids"),  # "no" is zero when the other side counts
        ("house", "house in Austin", "goal"),  # narrower
        ("Austin", "Austin, Texas", "city"),  # more detail
        ("likes jazz", "loves jazz", "preference"),  # stronger, same sign
        ("Austin", "Denver", "city"),  # a new value that contradicts nothing
        ("Google", "Microsoft", "employer"),
        ("cautious", "balanced", "risk_tolerance"),  # a pole to the middle of its scale
    ],
)
def test_other_changes_are_updates(old: str, new: str, key: str) -> None:
    assert verdict(old, new, key=key) is UPDATE


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ("$85,000", "$85k", "income"),  # the same figure
        ("85000 a year", "$85,000 per year", "income"),
        ("2 kids", "two kids", "kids"),
        ("NYC", "New York City", "city"),  # initials
        ("New York", "New York City", "city"),  # the key's own word carries nothing
        ("high", "aggressive", "risk_tolerance"),  # one pole of one scale
        ("likes jazz", "enjoys jazz", "preference"),  # same sign, same strength
        ("Acme Corp", "Acme Corporation", "employer"),  # company suffixes
        ("retire at 60", "retiring at 60", "goal"),  # stems
        ("married", "she is married", "marital_status"),  # filler words
    ],
)
def test_restatements_in_other_words_are_same(old: str, new: str, key: str) -> None:
    assert verdict(old, new, key=key) is SAME


@pytest.mark.parametrize(
    ("key", "old", "new", "new_text", "expected"),
    [
        # a change of the world: the old value was true and is no more
        ("city", "Porto", "Lisbon", "We moved from Porto to Lisbon.", UPDATE),
        ("employer", "Acme", "Globex", "Maya now works at Globex (no longer at Acme).", UPDATE),
        ("employer", "Acme", "Globex", "I left Acme and joined Globex.", UPDATE),
        ("diet", "vegetarian", "vegan", "I switched from vegetarian to vegan.", UPDATE),
        ("diet", "vegetarian", "vegan", "Maya is now vegan (was vegetarian).", UPDATE),
        ("kids", "two kids", "three kids", "The baby came, so we have three kids now, not two.", UPDATE),
        ("travel_budget", "$4,250", "$6,100", "We raised the travel budget from $4,250 to $6,100.", UPDATE),
        # a correction: the old value was wrong
        ("employer", "Acme", "Globex", "I don't work for Acme, I work for Globex.", CONFLICT),
        ("diet", "vegetarian", "vegan", "I'm not vegetarian, I'm vegan.", CONFLICT),
        ("age", "33", "34", "I'm not 33, I'm 34.", CONFLICT),
        ("partner", "Sam", "Alex", "My partner's name is Alex, not Sam.", CONFLICT),
        ("city", "Porto", "Braga", "That note is wrong: I never lived in Porto. I live in Braga.", CONFLICT),
        ("city", "Porto", "Braga", "Correction: I live in Braga.", CONFLICT),
        # a negation of something the old value does not hold denies nothing
        ("city", "Porto", "Braga", "I don't drive, I live in Braga.", UPDATE),
    ],
)
def test_a_change_is_an_update_and_a_correction_a_conflict(
    key: str, old: str, new: str, new_text: str, expected: Verdict
) -> None:
    assert verdict(old, new, key=key, new_text=new_text) == expected


def test_members_of_one_pole_are_not_the_same_value() -> None:
    """ "vegetarian" and "vegan" both oppose "eats meat", but one is no restatement of the other."""
    assert verdict("vegetarian", "vegan", key="diet") == UPDATE
    assert verdict("vegan", "eats meat", key="diet") == CONFLICT
