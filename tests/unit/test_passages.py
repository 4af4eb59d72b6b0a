"""Cutting events into history passages: whole sentences, bounded, pointing back to the event."""

from __future__ import annotations

import itertools
import re

from hypothesis import given
from hypothesis import strategies as st

from agentmem.context.text import event_text
from agentmem.model.beliefs import Observation
from agentmem.model.events import BlobRef, Event
from agentmem.semantic.passages import MAX_CHARS, passages_of, spans


def event(content: object = None, *, blob: BlobRef | None = None, seq: int = 4) -> Event:
    return Event(
        event_id=f"ev{seq}", session_id="S1", seq=seq, subject_id="maya", round=0, agent="user",
        kind="message", media_type="text/plain", content=content, blob=blob,
        created_at="2026-03-01T09:30:00.000Z",
    )  # fmt: skip


def observation(key: str, value: str, event_id: str = "ev4") -> Observation:
    return Observation(
        subject_id="maya", key=key, text=f"Maya's {key} is {value}.", value=value, order="o",
        event_id=event_id, session_id="S1", seq=4, stated_at="2026-03-01T09:30:00.000Z",
    )  # fmt: skip


def test_a_short_event_is_one_passage_carrying_where_and_when() -> None:
    (passage,) = passages_of(event("I restore an old garden. It keeps me sane."))
    assert (passage.session_id, passage.seq, passage.span) == ("S1", 4, (0, 42))
    assert passage.stated_at == "2026-03-01T09:30:00.000Z"
    assert (passage.agent, passage.kind, passage.stored) == ("user", "message", "inline")
    assert passage.passage_id == "S1:4:0-42"


def test_a_long_event_is_cut_at_sentence_ends_into_bounded_passages() -> None:
    sentences = [f"Sentence number {n} says something about the weather in town." for n in range(40)]
    text = " ".join(sentences)
    cut = passages_of(event(text))
    assert len(cut) > 1
    assert all(len(p.text) <= MAX_CHARS for p in cut)
    for p in cut:
        assert p.text == text[p.span[0] : p.span[1]]
        assert p.text.endswith(".") and p.text[0].isupper()  # whole sentences only
    assert " ".join(p.text for p in cut) == text
    assert len({p.passage_id for p in cut}) == len(cut)


def test_a_blob_takes_part_by_its_preview() -> None:
    ref = BlobRef(uri="file:///x", bytes=90_000, sha256="ab" * 32, media_type="text/csv",
                  preview="date,merchant,amount 2026-01-01,Grocer 1,3.50")  # fmt: skip
    (passage,) = passages_of(event(blob=ref))
    assert passage.text == ref.preview and passage.stored == "blob"


def test_json_content_is_its_compact_text() -> None:
    (passage,) = passages_of(event({"employer": "Northwind Labs"}))
    assert passage.text == '{"employer": "Northwind Labs"}'


def test_a_stated_fact_goes_to_the_passage_that_says_its_value() -> None:
    text = " ".join(["Filler sentence that talks about nothing much at all today."] * 8) + (
        " We moved to Lisbon last spring."
    )
    cut = passages_of(event(text), [observation("city", "Lisbon"), observation("city", "Oslo", "other")])
    assert [p.stated for p in cut if p.stated] == [cut[-1].stated]
    assert [f.value for f in cut[-1].stated] == ["Lisbon"]


def test_a_fact_the_text_does_not_repeat_goes_to_every_passage() -> None:
    (passage,) = passages_of(event("Noted, thanks."), [observation("risk_tolerance", "aggressive")])
    assert [f.key for f in passage.stated] == ["risk_tolerance"]


@given(st.text(alphabet=st.sampled_from("ab .!?\n"), max_size=2000))
def test_spans_cover_every_word_in_order_within_the_bound(text: str) -> None:
    cut = spans(text)
    assert all(0 < e - s <= MAX_CHARS for s, e in cut)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(cut))
    covered = "".join(text[s:e] for s, e in cut)
    assert re.sub(r"\s", "", covered) == re.sub(r"\s", "", text)


def test_event_text_is_what_spans_index() -> None:
    e = event("  Two   spaces.  And more. ")
    (passage,) = passages_of(e)
    assert event_text(e)[passage.span[0] : passage.span[1]] == passage.text == "Two spaces. And more."
