"""Later passages about what the best history hits and beliefs name (issue 12: an update rarely
repeats the question's words, yet it must reach the reader beside what it updates)."""

from __future__ import annotations

import pytest

from agentmem.context.follow_up import follow_beliefs, follow_up, names_in, ranked_after
from agentmem.model.beliefs import Belief, Provenance, Verdict
from agentmem.model.passages import Passage, PassageHit

pytestmark = pytest.mark.unit


def passage(text: str, at: str, event_id: str) -> Passage:
    return Passage(
        subject_id="ingrid-lindqvist", session_id=f"S-{event_id}", seq=1, span=(0, len(text)),
        event_id=event_id, agent="user", kind="message", stated_at=at, text=text,
    )  # fmt: skip


OLD = passage("If I could eat one cuisine forever it would be Sri Lankan.", "2026-01-01T00:00:00.000Z", "e1")
NEW = passage("These days I'd take Keralan over Sri Lankan any night.", "2026-02-01T00:00:00.000Z", "e2")
BEFORE = passage("My aunt cooks Sri Lankan food at home.", "2025-12-01T00:00:00.000Z", "e0")
OTHER = passage("The trip to Kyoto is booked.", "2026-01-15T00:00:00.000Z", "e3")


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("If I could eat one cuisine forever it would be Sri Lankan.", ["sri lankan"]),
        ("Honestly I'm over Basque now; Sardinian is my favourite.", ["basque", "sardinian"]),
        ("Camino de Santiago is the plan for May.", ["santiago"]),
        ("We walked the Camino de Santiago on Sunday.", ["camino de santiago"]),
        ("I met Bob on Friday in March.", []),  # too short, and the calendar
        ("We met Elif's sister in Nantes.", ["elif", "nantes"]),
    ],
)
def test_names_are_capitalised_words_that_do_not_just_open_a_sentence(text: str, names: list[str]) -> None:
    assert names_in(text) == names


def test_the_question_words_and_the_subject_are_not_followed() -> None:
    chased = follow_up([OLD, OTHER], "What does Ingrid think of Kyoto?", "ingrid-lindqvist")
    assert chased is not None and chased.names == ("sri lankan",)
    assert follow_up([OTHER], "Is Kyoto booked?", "ingrid-lindqvist") is None


def test_a_later_passage_naming_a_best_hit_ranks_just_below_it() -> None:
    fused = [(0.05, OTHER), (0.04, OLD), (0.01, BEFORE)]
    chased = follow_up([p for _, p in fused], "Which cuisine does Ingrid like best?", "ingrid-lindqvist")
    hits = [PassageHit(passage=p, score=1.0, source="keyword") for p in (NEW, BEFORE)]
    ranked = ranked_after(fused, hits, chased)
    assert [p.event_id for _, p in ranked] == ["e3", "e1", "e2", "e0"]  # BEFORE stays where it was


def test_a_passage_said_before_every_hit_naming_it_is_not_added() -> None:
    early = passage("I tried Sri Lankan once.", "2025-01-01T00:00:00.000Z", "e9")
    chased = follow_up([OLD], "cuisine?", "ingrid-lindqvist")
    hits = [PassageHit(passage=early, score=1.0, source="keyword")]
    assert ranked_after([(0.04, OLD)], hits, chased) == [(0.04, OLD)]


def belief(value: str, last_stated: str) -> Belief:
    return Belief(
        subject_id="gideon", key="interests", doc_id="interests", text=f"Gideon's interests is {value}.",
        value=value, version=1, current=True, flag=False, verdict=Verdict.SAME,
        provenance=[Provenance(session_id="S1", event_id="e1", seq=1, value=value)],
        valid_from=last_stated, source_seq=1, source_order=f"{last_stated}|S1|000000000001",
    )  # fmt: skip


def test_a_belief_value_said_after_the_belief_was_last_stated_is_followed() -> None:
    chased = follow_beliefs(
        [belief("bonsai", "2026-01-01T00:00:00.000Z"), belief("a long sentence kept as a value", "x")]
    )
    assert chased is not None and chased.query == "bonsai"
    later = passage("No, it's not bonsai — that's my sister.", "2026-02-01T00:00:00.000Z", "e5")
    earlier = passage("Bonsai shears arrived.", "2025-06-01T00:00:00.000Z", "e4")
    hits = [PassageHit(passage=p, score=1.0, source="keyword") for p in (earlier, later)]
    assert chased.said_later(hits) == [later]


def test_no_distinctive_value_is_no_search() -> None:
    assert follow_beliefs([belief("two", "2026-01-01T00:00:00.000Z")]) is None
