"""What a later statement says is over, found at read time in the passages a read found (issue 12:
history never contradicts the current state unlabelled, even where extraction read nothing)."""

from __future__ import annotations

import pytest

from agentmem.context.retirements import Retired, later_for_belief, later_for_passage, retirements
from agentmem.model.beliefs import Belief, Provenance, Verdict
from agentmem.model.passages import Passage

pytestmark = pytest.mark.unit

EARLY = "2026-01-01T00:00:00.000Z"
LATE = "2026-03-01T00:00:00.000Z"


def passage(text: str, *, at: str = LATE, event_id: str = "e-late", session_id: str = "S3") -> Passage:
    return Passage(
        subject_id="maya", session_id=session_id, seq=1, span=(0, len(text)), event_id=event_id,
        agent="user", kind="message", stated_at=at, text=text,
    )  # fmt: skip


def phrases(text: str) -> list[str]:
    return [r.phrase for r in retirements([passage(text)])]


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Honestly I'm over Oaxacan now; Lebanese is my favourite.", "oaxacan"),
        ("These days I'd take Filipino over Burmese any night.", "burmese"),
        ("No longer low-FODMAP — I'm trying paleo for good.", "low fodmap"),
        ("I handed in my notice at Foxglove Clinics; the new place is great.", "foxglove clinics"),
        ("I'm at Coppergate Legal now, no more Willowmere Hotels.", "willowmere hotels"),
        ("Correction on the numbers: it's $6,000 for travel, not $2,300.", "$2 300"),
        ("I gave up fly fishing; these days it's ceramics glazing.", "fly fishing"),
        ("I gave up fly fishing last spring; my knees complained.", "fly fishing"),
        ("I switched from pescatarian to low-sodium after talking to my doctor.", "pescatarian"),
        ("Change of plans: instead of a sailing course in the Dalmatian islands, it's Peru.",
         "sailing course in the dalmatian islands"),
        ("We've cancelled a ski season in Hokkaido; now it's the Berlin marathon.", "ski season in hokkaido"),
        ("Correction: Pepper was our old cat. The one we have now is Dumpling.", "pepper"),
        ("I'm done with woodworking. I've taken up baking instead.", "woodworking"),
        ("Maya no longer does competitive chess.", "competitive chess"),
        ("I no longer live in Porto.", "porto"),
        ("I don't work at Acme anymore.", "acme"),
        ("I used to be vegetarian.", "vegetarian"),
        ("We moved from Porto to Lisbon last spring.", "porto"),
        ("Maya is now vegan (was vegetarian).", "vegetarian"),
        ("I never lived in Porto, it was Braga.", "porto"),
        ("Not Lisbon, Porto.", "lisbon"),
        ("No, it's not bonsai — that's my sister. Mine is swimming.", "bonsai"),
        ("That's a mix-up — Glasswing Software is my partner's company.", "glasswing software"),
    ],
)  # fmt: skip
def test_a_cue_that_ends_something_names_what_it_ended(text: str, phrase: str) -> None:
    assert phrases(text)[:1] == [phrase]


@pytest.mark.parametrize(
    "text",
    [
        "No more questions, thanks.",
        "I have no more than $500 left.",
        "It's no longer available.",
        "I'm not sure about that.",
        "I moved the meeting from Monday to Friday.",
        "I live in Porto and love it.",
        "No longer an issue.",
        "I quit it.",
        "It's not great, but it works.",
        "It's not about the money; it's the commute.",
        "The car is my partner's.",
    ],
)
def test_no_cue_or_no_distinctive_phrase_retires_nothing(text: str) -> None:
    assert phrases(text) == []


def test_an_earlier_passage_saying_the_phrase_gets_the_later_sentence() -> None:
    retired = Retired(
        retirements([passage("Honestly I'm over Oaxacan now; Lebanese is my favourite. More tea?")])
    )
    earlier = passage("If I could eat one cuisine forever it would be Oaxacan.", at=EARLY, event_id="e1")
    (found,) = later_for_passage(earlier, retired)
    assert found.label == "later in S3: “Honestly I'm over Oaxacan now; Lebanese is my favourite”"


def test_a_name_inside_a_longer_phrase_is_found_in_other_words() -> None:
    retired = Retired(retirements([passage("We no longer live in Porto.")]))
    earlier = passage("The winters in Porto are mild.", at=EARLY, event_id="e1")
    assert [r.phrase for r in later_for_passage(earlier, retired)] == ["porto"]


@pytest.mark.parametrize(
    ("text", "at", "event_id"),
    [
        ("The winters in Porto are mild.", "2026-04-01T00:00:00.000Z", "e9"),  # said after the move
        ("I loved Porto, but we no longer live in Porto.", LATE, "e-late"),  # the same event
        ("The winters in Lisbon are mild.", EARLY, "e1"),  # another place
        ("The winters in Portofino are mild.", EARLY, "e1"),  # a longer word
    ],
)
def test_only_an_earlier_passage_of_another_event_saying_the_phrase_is_labelled(
    text: str, at: str, event_id: str
) -> None:
    retired = Retired(retirements([passage("We no longer live in Porto.")]))
    assert later_for_passage(passage(text, at=at, event_id=event_id), retired) == []


def belief(value: str, *, last_stated: str, event_id: str = "e1") -> Belief:
    return Belief(
        subject_id="maya", key="favorite_food", doc_id="favorite_food", text=f"Maya likes {value}.",
        value=value, version=1, current=True, flag=False, verdict=Verdict.SAME,
        provenance=[Provenance(session_id="S1", event_id=event_id, seq=1, value=value)],
        valid_from=EARLY, source_seq=1, source_order=f"{last_stated}|S1|000000000001",
    )  # fmt: skip


def test_a_belief_last_stated_before_a_retirement_of_its_value_gets_it() -> None:
    retired = Retired(retirements([passage("Honestly I'm over Oaxacan now; Lebanese is my favourite.")]))
    assert [r.phrase for r in later_for_belief(belief("Oaxacan", last_stated=EARLY), retired)] == ["oaxacan"]


def test_a_belief_restated_after_the_retirement_or_citing_it_does_not() -> None:
    retired = Retired(retirements([passage("Honestly I'm over Oaxacan now; Lebanese is my favourite.")]))
    assert later_for_belief(belief("Oaxacan", last_stated="2026-05-01T00:00:00.000Z"), retired) == []
    assert later_for_belief(belief("Oaxacan", last_stated=EARLY, event_id="e-late"), retired) == []
    assert later_for_belief(belief("Lebanese", last_stated=EARLY), retired) == []


def test_a_long_sentence_is_quoted_cut_at_a_word() -> None:
    text = "I gave up fly fishing " + "because the river near the cabin is " * 8 + "too cold."
    (found,) = retirements([passage(text)])
    assert found.sentence.endswith("…") and len(found.sentence) <= 160
    assert found.sentence.startswith("I gave up fly fishing because")
