"""The bar a statement clears before it becomes a belief (rules/standing.py): spoken and casual
text lines a shape's words up by accident, and such a statement must state nothing, while the
plain statements beside it still do. The examples are written here in the manner of telephone
talk; bench/belief_precision.py measures the bar on real transcripts."""

from __future__ import annotations

import pytest

from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.model.events import Event
from agentmem.semantic.fact_types import DEFAULT_FACT_TYPES


def extract(content: str) -> list[tuple[str, str]]:
    event = Event(
        event_id="ev1", session_id="s1", seq=1, subject_id="dana", round=0, agent="user", kind="message",
        media_type="text/plain", content=content, created_at="2026-01-01T00:00:00Z",
    )  # fmt: skip
    return [(f.key, f.value or "") for f in RulesLLM().extract_facts(event, DEFAULT_FACT_TYPES)]


@pytest.mark.parametrize(
    "text",
    [
        "I like to read, uh, mostly westerns.",  # a filler cut the object off
        "well, I like to uh, paint with my nephew.",  # the filler inside the value
        "I really like a lot",  # a taste with no object
        "I like to fix it myself.",  # "it": only the conversation says what
        "I love seeing them at the lake",  # "them"
        "oh, I like those",  # "those"
        "I like eating there",  # a short value that points away
        "I prefer to talk about",  # cut off at a preposition
        "I have one again at State this year",  # a count of nothing
        "my main thing is room",  # "thing" names no attribute
        "our evenings are very limited",  # an evaluation, not an attribute's value
        "our first game is tomorrow night",  # a time relative to when it was said
        "I'm living in the A and M dorm right now",  # a name used as a modifier
        "I love the lake I love the lake",  # the statement started over inside its value
        "I like to watch him on Sundays",  # "him": only the conversation says who
        "but, uh, I really like the idea.",  # which idea: a taste of nothing the sentence names
        "and then I started painting",  # a step of a story, not what the subject does now
        "I started mowing lawns when I was twelve",  # a start in the past, told as such
        "So we have three altogether.",  # three of what: the noun went unsaid
        "we have two playing soccer",  # a count above one of something not plural
        "we've got one seventy-two",  # a number read as the thing counted (a model year)
        # Written in the manner of the misreadings the second bar's rules were written from:
        "my last name is even more common",  # a comparison without its comparand
        "my yard is a little bit different",  # the same, hedged
        "my garage is probably what sold us",  # a guess, not a value
        "my other phone is ringing",  # what the attribute is doing, not what it is
        "my reading is quite wide",  # a graded evaluation of a key nobody declared
        "our whole town is based on cotton",  # how it is made, not what it is
        "I'm a I'm a first mate on a tug",  # the opening said twice inside the value
        "I hate to that show DALLAS",  # "to" before a determiner: words went missing
        "my porch swing is too the chains are too short",  # a clause, not a value
        "I like reading books like that I just",  # cut after a subject pronoun
        "I like the music and that kind of stuff",  # "that kind of": points back
        "then I started sorting my things behind there",  # an empty head noun
        "I like the show.",  # a definite singular only the conversation names
        "I like pretty much everything",  # a quantifier is no object
        "I'm a half hour from Waco",  # what the subject is, given as a measure
        "I'm a person who wishes the mail came earlier",  # the noun needs its clause
        "I started crocheting a king size bedspread",  # the phrase goes on past the value
        "Well, my husband, he'll call you",  # a discourse word is no name
        # The fourth bar, written from the misreadings of the beliefs3 callers:
        "I really like an assortment of, I like a variety.",  # a noun that needs its "of ..."
        "I'm a product myself, of the night school",  # the same, with a reflexive after it
        "I like chilly ones that are quiet.",  # "ones" stands for a noun named before
        "my favorite is the one we rented last week",  # "the one": the same
        "Well, I gave up, I quit six years ago",  # a time where the habit would go
        "I started painting the fence on Sunday",  # one particular doing: a step of a story
        "I have one right now",  # "right now" counts nothing
        # The fifth bar, written from the misreadings of the beliefs4 and beliefs5 callers:
        "I like his records a lot.",  # "his": whose only the turn before says
        "I like to keep a spare key in there",  # "in there": a container named before
        "I don't like to have to have to rake leaves",  # a phrase said twice inside the value
        "I like the old show better when, uh, Lou was on it",  # a comparison cut before its other side
        "I'm a strong believer in, in recycling",  # the noun lost the "in ..." it takes
        "and my little girl is is almost three",  # the value opens with a copula: a predicate
        "I like the like denim jackets, the lined ones.",  # "like" after a determiner: a filler
        "I have one now and I can't think of its name",  # "now" is no thing counted
        "I just have one lovely with roses, uh, planter",  # an evaluation where the noun should be
        "Well, our ours is two hundred for the family",  # a key that is a pronoun
    ],
)
def test_a_statement_that_does_not_stand_alone_states_nothing(text: str) -> None:
    assert extract(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Tulsa", ("city", "Tulsa")),
        ("I'm living in Tulsa now.", ("city", "Tulsa")),
        ("I work at T I", ("employer", "T I")),
        ("I follow a keto diet.", ("diet", "keto")),  # a one-word value read as a modifier
        ("I like the mountains too", ("preference", "likes the mountains")),
        ("I like the PEOPLE magazine", ("preference", "likes the PEOPLE magazine")),
        ("I like the system of house arrest", ("preference", "likes the system of house arrest")),
        ("I'm a graduate student in Florida right now", ("identity", "graduate student")),
        ("I got married last summer", ("marital_status", "married")),
        ("I like watching shows that are funny", ("preference", "likes watching shows that are funny")),
        ("I like hot stuff", ("preference", "likes hot stuff")),  # a kind, not a pointer
        ("I like the planting", ("preference", "likes the planting")),  # a gerund is generic
        ("I enjoy cooking as much as I can", ("preference", "enjoys cooking as much as I can")),
        ("I like Texas, um, not the humidity though", ("preference", "likes Texas")),
        ("I like to fish", ("preference", "likes to fish")),
        ("I like leather seats also.", ("preference", "likes leather seats also")),
        ("I'm a graduate student in speech.", ("identity", "graduate student")),
        ("I just started learning Welsh.", ("activity", "started learning Welsh")),
        ("we have three dogs", ("dogs", "three dogs")),
        ("I have one sister", ("sisters", "one sister")),
        ("and I quit smoking.", ("activity", "quit smoking")),  # a bare doing is a habit
        ("I stopped eating meat last spring", ("activity", "stopped eating meat")),
        ("I'm a member of the church choir", ("identity", "member of the church choir")),
        ("I like the mountains", ("preference", "likes the mountains")),
        ("I like to go sailing once in a while", ("preference", "likes to go sailing once in a while")),
        ("I like Kevin Costner's movies", ("preference", "likes Kevin Costner's movies")),
        ("I'm a Rangers fan", ("identity", "Rangers fan")),
        # A value cut at a trailing "and" keeps what came before it, and the sentence says so too.
        (
            "I love to visit old towns and the coast and",
            ("preference", "loves to visit old towns and the coast"),
        ),
    ],
)
def test_a_plain_statement_beside_them_still_states_its_fact(text: str, expected: tuple[str, str]) -> None:
    assert expected in extract(text)


def test_a_false_start_is_not_read_but_the_statement_said_again_is() -> None:
    assert extract("I like loud, I like the quiet bands more.") == [
        ("preference", "likes the quiet bands more")
    ]


def test_an_opening_said_again_after_the_value_reads_only_the_second() -> None:
    assert extract("I guess, I'm a real, I'm a realist") == [("identity", "realist")]


def test_a_trimmed_value_is_trimmed_in_its_sentence_too() -> None:
    event = Event(
        event_id="ev1", session_id="s1", seq=1, subject_id="dana", round=0, agent="user", kind="message",
        media_type="text/plain", content="I love to visit old towns and the coast and",
        created_at="2026-01-01T00:00:00Z",
    )  # fmt: skip
    (fact,) = RulesLLM().extract_facts(event, DEFAULT_FACT_TYPES)
    assert fact.text.endswith("old towns and the coast.")


def test_a_degree_word_alone_refuses_nothing_but_the_households_evaluation() -> None:
    assert extract("My risk tolerance is very cautious.") == [("risk_tolerance", "very cautious")]
    assert extract("our salaries are a little bit higher") == []


def test_an_initial_inside_a_name_does_not_end_the_sentence() -> None:
    assert ("preference", "enjoys some of the Michael J. Fox movies") in extract(
        "and I enjoy some of the Michael J. Fox movies."
    )
