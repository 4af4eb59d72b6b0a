"""The old value a change or a correction names, recorded beside the new one (never as a fact)."""

from __future__ import annotations

import pytest

from agentmem.adapters.local.rules.llm import RulesLLM
from agentmem.adapters.local.rules.replaced import old_value
from agentmem.model.beliefs import ExtractedFact
from agentmem.model.events import Event

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("sentence", "value", "old"),
    [
        ("We moved from Porto to Lisbon last month.", "Lisbon", "Porto"),
        ("Update: Maya changed jobs, from Acme Corp to Globex.", "Globex", "Acme Corp"),
        ("We raised the travel budget from $4,250 to $6,100.", "$6,100", "$4,250"),
        ("Maya now works at Globex (no longer at Acme Corp).", "Globex", "Acme Corp"),
        ("Maya is now vegan (was vegetarian).", "vegan", "vegetarian"),
        ("I'm not 34, I'm 35.", "35", "34"),
        ("Correction: I have three children, not two.", "three children", "two"),
        ("That's not right, I'm not vegetarian, I'm vegan.", "vegan", "vegetarian"),
        ("Just to fix that: I don't work for Acme Corp, I work for Globex.", "Globex", "Acme Corp"),
    ],
)
def test_the_old_value_a_change_names(sentence: str, value: str, old: str) -> None:
    assert old_value(sentence, value) == old


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("I'm not sure, but I live in Lisbon.", "Lisbon"),  # a hedge
        ("I moved the meeting from Monday to Friday and live in Lisbon.", "Lisbon"),  # not "to Lisbon"
        ("I live in Lisbon, not far from the river.", "Lisbon"),  # lowercase words for a name
        ("We moved to Lisbon from Porto's suburbs? No, from the coast to Lisbon.", "Lisbon"),
        ("I'm vegan, not because of my doctor.", "vegan"),  # "because" ends the phrase at once
    ],
)
def test_no_old_value_where_the_sentence_names_none(sentence: str, value: str) -> None:
    assert old_value(sentence, value) is None


def test_the_rules_carry_it_on_the_fact_and_keep_the_new_value() -> None:
    event = Event(
        event_id="e", session_id="s", seq=1, subject_id="maya", round=0, agent="user", kind="message",
        media_type="text/plain", content="We moved from Porto to Lisbon last month.",
        created_at="2026-01-01T00:00:00Z",
    )  # fmt: skip
    (fact,) = RulesLLM().extract_facts(event, [])
    assert isinstance(fact, ExtractedFact)
    assert (fact.key, fact.value, fact.replaces) == ("city", "Lisbon", "Porto")
