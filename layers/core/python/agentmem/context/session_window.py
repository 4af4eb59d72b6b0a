"""The newest events of a session, each with its term statistics, kept between reads.

A context read ranks a bounded window: the session's newest `size` events, read from the newest
end of the log. Events are immutable, so a window and the per-event statistics ranking needs
(words, term counts, shingles) stay valid once computed; a later read of the same session fetches
only the events appended since and slides the window. Read latency then depends on the window
and on what was appended, never on the session's length.

The cache is bounded by events held, least recently read sessions first out, and by age: an entry
older than `max_age_seconds` is read again from the log, so no process serves a session's events
from memory for longer than that after the log changed under it (erasure calls `forget_subject`
as well)."""

from __future__ import annotations

import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from agentmem.context.text import event_text, shingle_set, words
from agentmem.model.events import Event
from agentmem.ports.log import EventLog

if TYPE_CHECKING:
    from agentmem.context.retirements import Retirement

WINDOW_EVENTS = 500
MAX_CACHED_EVENTS = 20_000
MAX_AGE_SECONDS = 300.0


@dataclass(frozen=True)
class EventTerms:
    """One event and what ranking needs of its text, computed once per event."""

    event: Event
    words: tuple[str, ...]
    counts: Counter[str]
    shingles: frozenset[tuple[str, ...]]

    @classmethod
    def of(cls, event: Event) -> EventTerms:
        found = words(event_text(event))
        return cls(event, tuple(found), Counter(found), frozenset(shingle_set(found)))

    @cached_property
    def retired(self) -> tuple[Retirement, ...]:
        """What the event says is over ("I'm over Oaxacan now"): it labels older history and
        beliefs. Scanned on the first read that asks, then kept with the window."""
        # Imported here: every function's wiring imports this module, and only reads scan.
        from agentmem.context.retirements import event_passage, retirements

        return tuple(retirements([event_passage(self.event, event_text(self.event))]))

    @property
    def length(self) -> int:
        return len(self.words)


@dataclass(frozen=True)
class SessionWindow:
    """The newest events of a session, oldest first. seqs are gap-free from 1, so the events
    before the window are exactly seq 1 .. first_seq - 1."""

    size: int
    events: tuple[EventTerms, ...]

    def __len__(self) -> int:  # a window is falsy when the session has no events
        return len(self.events)

    @property
    def first_seq(self) -> int:
        return self.events[0].event.seq if self.events else 0

    @property
    def last_seq(self) -> int:
        return self.events[-1].event.seq if self.events else 0

    @property
    def outside(self) -> int:
        """How many older events of the session lie outside the window."""
        return max(self.first_seq - 1, 0)


@dataclass(frozen=True)
class _Entry:
    window: SessionWindow
    subject_id: str
    read_at: float


class SessionWindows:
    """Windows of recently read sessions over one tenant's log; thread-safe. Two readers of the
    same session may both fetch its new events; either result is a correct window."""

    def __init__(
        self,
        log: EventLog,
        *,
        size: int = WINDOW_EVENTS,
        max_cached_events: int = MAX_CACHED_EVENTS,
        max_age_seconds: float = MAX_AGE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if size < 1:
            raise ValueError("a window holds at least one event")
        self._log = log
        self.size = size
        self._max_events = max_cached_events
        self._max_age = max_age_seconds
        self._clock = clock
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def read(self, session_id: str) -> SessionWindow:
        now = self._clock()
        with self._lock:
            entry = self._entries.get(session_id)
        window, read_at = None, now
        if entry is not None and now - entry.read_at < self._max_age:
            # A slid window keeps the age of its full read: past max_age it is read afresh.
            window, read_at = self._slide(entry.window, session_id), entry.read_at
        if window is None:
            newest = self._log.recent_events(session_id, limit=self.size)
            window, read_at = SessionWindow(self.size, tuple(EventTerms.of(e) for e in reversed(newest))), now
        self._keep(session_id, window, read_at)
        return window

    def _slide(self, cached: SessionWindow, session_id: str) -> SessionWindow | None:
        """`cached` moved on past the events appended since, or None when more than a whole
        window was appended (then the newest end is read afresh)."""
        newer = self._log.list_events(session_id, after=cached.last_seq, limit=self.size)
        if len(newer) >= self.size:
            return None
        if not newer:
            return cached
        events = (*cached.events, *(EventTerms.of(e) for e in newer))
        return SessionWindow(self.size, events[-self.size :])

    def _keep(self, session_id: str, window: SessionWindow, read_at: float) -> None:
        if not window.events:
            return  # nothing to save, and a session that does not exist yet must not fill the cache
        with self._lock:
            old = self._entries.pop(session_id, None)
            self._held -= len(old.window.events) if old else 0
            self._entries[session_id] = _Entry(window, window.events[0].event.subject_id, read_at)
            self._held += len(window.events)
            while self._held > self._max_events and len(self._entries) > 1:
                _, evicted = self._entries.popitem(last=False)
                self._held -= len(evicted.window.events)

    def forget_subject(self, subject_id: str) -> int:
        """Drop every cached session of `subject_id`; returns how many were dropped."""
        with self._lock:
            # A session may hold events of several subjects: any of them in the window counts.
            gone = [
                s
                for s, entry in self._entries.items()
                if entry.subject_id == subject_id
                or any(terms.event.subject_id == subject_id for terms in entry.window.events)
            ]
            for session_id in gone:
                self._held -= len(self._entries.pop(session_id).window.events)
        return len(gone)
