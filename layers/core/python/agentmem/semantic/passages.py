"""Cut logged events into passages: whole sentences, a bounded length, each pointing back to
(session, seq, span) and carrying when and by whom it was said.

Passages are what the `history` source searches, so a fact an extractor never turned into a
belief is still found in the log. Short events are one passage; a long one is cut at sentence
ends into pieces of at most MAX_CHARS, so a hit brings the part that matched, not a whole report.
A blob takes part by its preview."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from agentmem.context.text import event_text
from agentmem.model.beliefs import Observation, normalise_value
from agentmem.model.events import Event
from agentmem.model.passages import Passage, StatedFact

MAX_CHARS = 480
_SENTENCE = re.compile(r"\S.*?(?:[.!?](?=\s|$)|$)", re.DOTALL)
_WORD_END = re.compile(r"\s+")


def _pieces(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """A sentence longer than MAX_CHARS, cut at word boundaries (at MAX_CHARS when it has none)."""
    while end - start > MAX_CHARS:
        cut = max((m.start() for m in _WORD_END.finditer(text, start, start + MAX_CHARS + 1)), default=-1)
        cut = cut if cut > start else start + MAX_CHARS
        yield start, cut
        start = cut + len(text[cut:]) - len(text[cut:].lstrip())
    if end > start:
        yield start, end


def spans(text: str) -> list[tuple[int, int]]:
    """Half-open spans of `text` covering its sentences in order, each at most MAX_CHARS: as
    many whole sentences as fit, then the next span."""
    out: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for match in _SENTENCE.finditer(text):
        for start, end in _pieces(text, match.start(), match.end()):
            if current is not None and end - current[0] <= MAX_CHARS:
                current = (current[0], end)
                continue
            if current is not None:
                out.append(current)
            current = (start, end)
    if current is not None:
        out.append(current)
    return out


def _states(passage_text: str, value: str) -> bool:
    wanted = normalise_value(value)
    return bool(wanted) and f" {wanted} " in f" {normalise_value(passage_text)} "


def passages_of(event: Event, observations: Sequence[Observation] = ()) -> list[Passage]:
    """The event's passages. Each fact the event stated (its observations) is attributed to the
    passages whose text says its value, or to every passage when none does (an explicit fact
    need not repeat the content's words)."""
    text = event_text(event)
    cut = spans(text)
    mine = [o for o in observations if o.event_id == event.event_id]
    facts = [StatedFact(key=o.key, member=o.member, value=o.value) for o in mine]
    said = {(s, e): tuple(f for f in facts if _states(text[s:e], f.value)) for s, e in cut}
    unplaced = tuple(f for f in facts if not any(f in placed for placed in said.values()))
    return [
        Passage(
            subject_id=event.subject_id,
            session_id=event.session_id,
            seq=event.seq,
            span=(s, e),
            event_id=event.event_id,
            agent=event.agent,
            kind=event.kind,
            stated_at=event.created_at,
            stored=event.stored,
            text=text[s:e],
            stated=tuple(dict.fromkeys(said[(s, e)] + unplaced)),
        )
        for s, e in cut
    ]
