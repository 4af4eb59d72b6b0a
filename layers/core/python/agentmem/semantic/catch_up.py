"""Catch-up: project a session's events again, read from the log itself.

What the stream lost (records older than the stream's 24 h, or than the projector's maximum record
age, which sends them to the on-failure queue) is still in the log. Projection is idempotent by the
belief seq rule, so projecting every event of the session again adds what the belief index lacks
and leaves the rest as it is. This is a repair of one session, not a replay: it writes into the
active generation and rebuilds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentmem.ports.log import EventLog
    from agentmem.semantic.service import SemanticService

PAGE = 100


@dataclass(frozen=True)
class CatchUpResult:
    session_id: str
    events_read: int
    beliefs_changed: int
    last_seq: int


def catch_up(
    log: EventLog, semantic: SemanticService, session_id: str, *, after: int = 0, page: int = PAGE
) -> CatchUpResult:
    """Project the events of `session_id` with seq > `after`, page by page, in seq order."""
    projector = semantic.projector()
    read = changed = 0
    last = after
    while events := log.list_events(session_id, after=last, limit=page):
        changed += len(projector.project_many(events))
        read += len(events)
        last = events[-1].seq
    return CatchUpResult(session_id=session_id, events_read=read, beliefs_changed=changed, last_seq=last)
