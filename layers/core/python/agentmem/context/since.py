"""Reads since a watermark: what changed after an earlier read of the same subject.

A watermark (model/watermark.py) holds two positions on the log, one per thing that moves: the
last event of the reader's session that the read saw, and the newest statement projection had
applied to any of the subject's beliefs. Each change is compared with the position of its own
kind, so a belief projected late, from an event written before the earlier read, still counts
as new: that read could not have seen it.

- An event of the reader's session is new when its seq is past the watermark's (same session),
  or when it was written after the watermark's read (a watermark from another session of the
  subject: a team reads once per session, and its next read is in the next one).
- A belief's version moved when the statement that made it came after the frontier. The index
  answers which beliefs were stated after it at all (`BeliefIndex.changed_since`); a SAME
  restatement is stated after it too but made no version, and is left out here.
- A belief the earlier read placed and that is no longer current is gone: a replay built
  without it, or an erasure of what it came from."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from agentmem.errors import InvalidInputError
from agentmem.model.beliefs import Belief
from agentmem.model.events import Event
from agentmem.model.watermark import MAX_SHOWN, Watermark
from agentmem.ports.semantic import BeliefIndex
from agentmem.semantic.event_observations import order_key

MAX_CHANGED = 200  # beliefs a since read leads with at most; more is noted, never silently cut


def position_time(position: str) -> str:
    """The `created_at` part of a log position (`created_at|session|seq`)."""
    return position.split("|", 1)[0]


def made_after(belief: Belief, frontier: str) -> bool:
    """Whether the statement that made `belief`'s version came after `frontier`. The version
    knows that statement's time (`valid_from`); on a tie of times, the frontier's own event
    among the version's statements shows the version was there already, and otherwise it
    counts as new: a change read twice costs a line, a change never read costs a decision."""
    if not frontier:
        return True
    at = position_time(frontier)
    if belief.valid_from != at:
        return belief.valid_from > at
    _, session_id, seq = frontier.split("|")
    return not any(p.session_id == session_id and p.seq == int(seq) for p in belief.provenance)


def check_watermark(watermark: Watermark, subject_id: str, session_id: str, last_seq: int) -> None:
    """A watermark of another subject says nothing about this one; one past the end of its own
    session was not issued for this log (forged, or the log was rebuilt): both are refused."""
    if watermark.subject_id != subject_id:
        raise InvalidInputError(
            f"since was taken for subject {watermark.subject_id}, not {subject_id}", field="since"
        )
    if watermark.session_id == session_id and watermark.seq > last_seq:
        raise InvalidInputError(
            f"since is ahead of session {session_id}: seq {watermark.seq} > its last seq {last_seq}",
            field="since",
        )


@dataclass(frozen=True)
class News:
    """What changed after one watermark, as far as the read's sources cover."""

    watermark: Watermark
    events: list[Event] = field(default_factory=list)  # this session's, oldest first
    changed: list[Belief] = field(default_factory=list)  # a version after the first moved
    new: list[Belief] = field(default_factory=list)  # first stated after the watermark
    gone: list[str] = field(default_factory=list)  # doc ids placed then, current no more
    notes: list[str] = field(default_factory=list)

    @property
    def after(self) -> str:
        """The time after which a statement is news to this reader, for what carries no seq."""
        return position_time(self.watermark.read_at)


def new_events(watermark: Watermark, session_id: str, events: Sequence[Event]) -> list[Event]:
    if watermark.session_id == session_id:
        return [e for e in events if e.seq > watermark.seq]
    return [e for e in events if order_key(e) > watermark.read_at]


def moved_beliefs(
    watermark: Watermark, index: BeliefIndex, subject_id: str, notes: list[str]
) -> tuple[list[Belief], list[Belief]]:
    """(changed, new): the current beliefs whose version the statements after the watermark made."""
    stated = index.changed_since(subject_id, watermark.beliefs_at, MAX_CHANGED + 1)
    if len(stated) > MAX_CHANGED:
        notes.append(
            f"since: more than {MAX_CHANGED} beliefs were stated after the watermark; the oldest lead"
        )
        stated = stated[:MAX_CHANGED]
    moved = [b for b in stated if made_after(b, watermark.beliefs_at)]
    return [b for b in moved if b.version > 1], [b for b in moved if b.version == 1]


def gone_beliefs(
    watermark: Watermark, index: BeliefIndex, subject_id: str, known: Iterable[Belief]
) -> list[str]:
    """The doc ids the earlier read placed that are no longer current. The beliefs this read
    already holds answer for most; the subject's current beliefs are read only for the rest."""
    current = {b.doc_id for b in known if b.current}
    unknown = [doc for doc in watermark.shown if doc not in current]
    if not unknown:
        return []
    held = {b.doc_id for b in index.current(subject_id)}
    return [doc for doc in unknown if doc not in held]


def find_news(
    watermark: Watermark,
    session_id: str,
    events: Sequence[Event] | None,
    index: BeliefIndex | None,
    known: Sequence[Belief],
) -> News:
    """`events`: the session window the read ranked (None when episodic was not asked for);
    `index`: the active belief generation (None when beliefs were not asked for); `known`: the
    beliefs the read found by its query, which spare a lookup of the gone ones."""
    notes: list[str] = []
    found = new_events(watermark, session_id, events) if events is not None else []
    if events and watermark.session_id == session_id and events[0].seq > watermark.seq + 1:
        notes.append(
            f"since: events #{watermark.seq + 1}-#{events[0].seq - 1} are new but lay outside the window"
        )
    changed: list[Belief] = []
    new: list[Belief] = []
    gone: list[str] = []
    if index is not None:
        changed, new = moved_beliefs(watermark, index, watermark.subject_id, notes)
        gone = gone_beliefs(watermark, index, watermark.subject_id, [*known, *changed, *new])
    return News(watermark, found, changed, new, gone, notes)


def watermark_of(
    subject_id: str,
    session_id: str,
    last: Event | None,
    last_seq: int,
    beliefs_at: str,
    placed_beliefs: Iterable[str],
) -> Watermark:
    """This read's watermark. `last` is the newest event of the session the read ranked (None
    when it ranked none; `last_seq` is then the log's). `beliefs_at` must be read before the
    read searched the beliefs: read after, it could cover a belief written in between, which the
    read never saw."""
    return Watermark.model_validate(
        {
            "s": subject_id,
            "n": session_id,
            "q": last.seq if last is not None else last_seq,
            "e": order_key(last) if last is not None else "",
            "b": beliefs_at,
            "k": sorted(dict.fromkeys(placed_beliefs))[:MAX_SHOWN],
        }
    )
