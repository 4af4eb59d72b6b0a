"""An age said after a birthday ("I had my birthday on Sunday — 28 now!"): the rules read the
number the user says, never one they would have to work out."""

from __future__ import annotations

import pytest

from agentmem.adapters.local.rules.llm import RulesLLM
from agentmem.model.events import Event
from agentmem.semantic.fact_types import DEFAULT_FACT_TYPES

pytestmark = pytest.mark.unit


def facts(text: str, agent: str = "user") -> list[tuple[str, str]]:
    event = Event(
        event_id="e1", session_id="s1", seq=1, subject_id="leilani", round=0, agent=agent, kind="message",
        media_type="text/plain", content=text, created_at="2026-01-01T00:00:00.000Z",
    )  # fmt: skip
    return [(f.key, f.value) for f in RulesLLM().extract_facts(event, DEFAULT_FACT_TYPES)]


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("I had my birthday on Sunday — 28 now!", "28"),
        ("It was my birthday last week; 35 today!", "35"),
        ("My birthday was Friday, and I'm 41 now.", "41"),
    ],
)
def test_the_age_said_after_a_birthday_is_read(text: str, age: str) -> None:
    assert facts(text) == [("age", age)]


@pytest.mark.parametrize(
    "text",
    [
        "My birthday party starts at 7 now.",  # a time, not after a break
        "My birthday is on the 28th.",
        "My sister's birthday was Sunday — she's 28 now.",  # someone else's
        "If my birthday falls on a Monday — 30 now, imagine!",  # a hypothetical
        "My birthday cake had 12 candles.",
        "Did you know my birthday was Sunday — 28 now?",  # a question
    ],
)
def test_no_age_without_the_subjects_own_birthday_and_number(text: str) -> None:
    assert facts(text) == []


def test_an_agent_saying_it_states_nothing_about_the_subject() -> None:
    assert facts("I had my birthday on Sunday — 28 now!", agent="assistant") == []
