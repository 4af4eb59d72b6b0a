"""What was written after a saved read, kept apart from the read itself.

A saved read shown as it was (its kept answer) says nothing of what came later; shown on its own
it would look current. So the Explain page lists, beside it, the events of the read's session past
its watermark and the beliefs made or changed since it ran. Pure: the page fetches, this sorts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agentmem.model.beliefs import Belief
from agentmem.model.events import Event


@dataclass(frozen=True)
class LaterBelief:
    belief: Belief
    seen_version: int | None  # the version the read used, when it used this belief at all


@dataclass(frozen=True)
class AfterRead:
    session_id: str
    watermark: int
    read_at: str | None
    events: list[Event]
    beliefs: list[LaterBelief]
    more: bool = False  # more later events than were fetched

    @property
    def empty(self) -> bool:
        return not self.events and not self.beliefs


def written_after(
    session_id: str,
    events: Sequence[Event],
    beliefs: Sequence[Belief],
    *,
    watermark: int,
    read_at: str | None,
    seen_versions: Mapping[str, int],
    more: bool = False,
) -> AfterRead:
    """`events`: the session's, from the watermark on; `beliefs`: the subject's current ones;
    `seen_versions`: doc id -> version of each belief the read used (its trace's).

    A belief is later when the read used an older version of it, or, when the read's time is known,
    when its current version became valid after the read. The log's timestamps are ISO text in one
    format, so they compare as strings."""
    later_events = sorted((e for e in events if e.seq > watermark), key=lambda e: e.seq)
    later_beliefs = []
    for belief in sorted(beliefs, key=lambda b: (b.key, b.member)):
        seen = seen_versions.get(belief.doc_id)
        changed = seen is not None and belief.version > seen
        new = seen is None and read_at is not None and belief.valid_from > read_at
        if changed or new:
            later_beliefs.append(LaterBelief(belief, seen))
    return AfterRead(session_id, watermark, read_at, later_events, later_beliefs, more)


def still_logged(events: Sequence[Event], watermark: int) -> bool:
    """Whether the log still holds the last event a kept answer saw (`events`: the session's from
    the watermark on). When it does not, the subject was erased (or the data dir replaced), and
    the kept answer, a copy of the subject's text, must not be shown."""
    return watermark == 0 or any(e.seq == watermark for e in events)
