"""The declarative shapes the rules read for any key, who counts as the subject, and the near
misses that must state nothing. docs/extraction-rules.md lists the same shapes."""

from __future__ import annotations

from typing import Any

import pytest

from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.model.beliefs import normalise_value
from agentmem.model.events import Event
from agentmem.semantic.fact_types import DEFAULT_FACT_TYPES


def event(content: Any, *, agent: str = "user", kind: str = "message", subject: str = "priya") -> Event:
    return Event(
        event_id="ev1", session_id="s1", seq=1, subject_id=subject, round=0, agent=agent, kind=kind,
        media_type="text/plain", content=content, created_at="2026-01-01T00:00:00Z",
    )  # fmt: skip


def extract(content: Any, **who: str) -> list[tuple[str, str]]:
    facts = RulesLLM().extract_facts(event(content, **who), DEFAULT_FACT_TYPES)
    return [(f.key, f.value or "") for f in facts]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My favourite colour is blue.", ("favorite_color", "blue")),  # my X is Z (one spelling)
        ("My new address is 12 Elm Street.", ("address", "12 Elm Street")),  # "new" is not the key
        ("My risk tolerance is aggressive now.", ("risk_tolerance", "aggressive")),  # trailing "now"
        ("I live in Austin, Texas.", ("city", "Austin")),
        ("I've moved to San Diego for work.", ("city", "San Diego")),
        ("I'm based in Nairobi.", ("city", "Nairobi")),
        ("I work at Lumen Health.", ("employer", "Lumen Health")),
        ("I started a new job at Stripe.", ("employer", "Stripe")),
        ("I work as a product designer.", ("occupation", "product designer")),
        ("I'm a nurse.", ("identity", "nurse")),
        ("I'm 34.", ("age", "34")),
        ("I just turned 30!", ("age", "30")),
        ("I got engaged!", ("marital_status", "engaged")),
        ("Call me Sam.", ("name", "Sam")),
        ("I really enjoy jazz.", ("preference", "enjoys jazz")),
        ("I don't like spicy food anymore.", ("preference", "doesn't like spicy food")),
        ("I no longer like horror movies.", ("preference", "no longer likes horror movies")),
        ("I have 2 kids.", ("kids", "2 kids")),
        ("I have no kids.", ("kids", "no kids")),
        ("I started learning Spanish.", ("activity", "started learning Spanish")),
        ("I quit smoking.", ("activity", "quit smoking")),
        ("I now make $135,000 a year.", ("income", "$135,000 a year")),
        ("I'm from Lagos.", ("hometown", "Lagos")),
        ("I was born in 1988.", ("birth_year", "1988")),
        ("I'm allergic to shellfish.", ("allergy", "shellfish")),
    ],
)
def test_each_first_person_shape(text: str, expected: tuple[str, str]) -> None:
    assert extract(text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Priya lives in Portland.", ("city", "Portland")),
        ("Priya's employer is Acme Corp.", ("employer", "Acme Corp")),
        ("The risk tolerance of Priya is moderate.", ("risk_tolerance", "moderate")),
        ("The client prefers low-cost ETFs.", ("preference", "prefers low-cost ETFs")),
        ("Priya has 1 child.", ("children", "1 child")),  # one key for "1 child" and "2 children"
        ("Priya is 38 years old.", ("age", "38")),
        ("Her risk tolerance is cautious.", ("risk_tolerance", "cautious")),  # a pronoun: declared keys only
    ],
)
def test_third_person_shapes_in_an_agents_output(text: str, expected: tuple[str, str]) -> None:
    assert extract(text, agent="advisor", kind="note") == [expected]


def test_the_fact_sentence_names_the_subject() -> None:
    texts = [
        f.text for f in RulesLLM().extract_facts(event("I live in Oslo. I like sushi."), DEFAULT_FACT_TYPES)
    ]
    assert texts == ["Priya lives in Oslo.", "Priya likes sushi."]


def test_a_clause_ends_a_value_and_each_clause_is_a_fact() -> None:
    assert extract("So, I live in Dublin and I work at Intercom.") == [
        ("city", "Dublin"),
        ("employer", "Intercom"),
    ]
    assert extract("My hobbies are chess and climbing.") == [("hobbies", "chess"), ("hobbies", "climbing")]


@pytest.mark.parametrize(
    ("agent", "kind"),
    [("user", "message"), ("priya", "note"), ("frontend", "user_message"), ("web", "client-input")],
)
def test_the_subjects_own_voice_is_the_user_the_subject_or_a_user_message(agent: str, kind: str) -> None:
    assert extract("I live in Oslo.", agent=agent, kind=kind) == [("city", "Oslo")]


@pytest.mark.parametrize(
    ("agent", "kind"), [("advisor", "note"), ("intake", "profile"), ("customer-support", "reply")]
)
def test_an_agent_writing_i_is_the_agent(agent: str, kind: str) -> None:
    assert (
        extract("I live in the cloud. I have 3 questions. I prefer short answers.", agent=agent, kind=kind)
        == []
    )


def test_transcript_labels_and_chat_roles_say_who_speaks() -> None:
    transcript = (
        "Assistant: I prefer brevity. Where are you based?\nUser: I live in Madrid.\nAI: I live in Oslo."
    )
    assert extract(transcript, agent="chat", kind="transcript") == [("city", "Madrid")]
    chat = [
        {"role": "assistant", "content": "I moved to Lisbon."},
        {"role": "user", "content": "I moved to Rome."},
    ]
    assert extract(chat, agent="chat", kind="conversation") == [("city", "Rome")]


NEAR_MISSES = [
    # the made-up miss of the issue, and its kin: a declared key's word in someone else's phrase
    ("The director of Paris, Texas is Wim Wenders.", "advisor"),
    ("I just finished The City of Ember.", "user"),
    ("What a goal that was!", "user"),
    ("The goal of this analysis is to estimate monthly savings.", "advisor"),
    # other people
    ("My sister lives in Toronto.", "user"),
    ("My daughter's name is Lily.", "user"),
    ("My wife is a doctor.", "user"),
    ("Her goal is to win the league.", "user"),
    ("Tom lives in Denver and works at Oracle.", "advisor"),
    ("My friend said she likes sushi.", "user"),
    ('He said, "I live in Miami."', "user"),
    # not a statement of a current fact
    ("Where do you live?", "user"),
    ("If I moved to Denver, would my taxes go up?", "user"),
    ("I'd love to live in Paris someday.", "user"),
    ("I might move to Lisbon next year.", "user"),
    ("I used to live in Boston.", "user"),
    ("I don't live in Austin anymore.", "user"),
    ("When Priya lived in Austin, she rented.", "advisor"),
    # no value
    ("My city is beautiful.", "user"),
    ("My question is whether index funds are safe.", "user"),
    ("I like that idea.", "user"),
    ("I have 5 minutes before my meeting.", "user"),
    ("I'm 30 minutes late, sorry.", "user"),
    ("I'm a bit worried about rates.", "user"),
]


@pytest.mark.parametrize(("text", "agent"), NEAR_MISSES)
def test_near_misses_state_nothing(text: str, agent: str) -> None:
    assert extract(text, agent=agent, kind="note") == []


def test_values_are_the_events_own_words() -> None:
    texts = ["I make about $128,000 a year.", "I have three cats.", "I'm 41 years old.", "My rent is $1,800."]
    for text in texts:
        for key, value in extract(text):
            assert normalise_value(value) in normalise_value(text), (key, value)
