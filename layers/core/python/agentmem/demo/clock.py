"""The demo's clock: the story's dates, not today's.

The log stamps every event with its clock, and beliefs (valid from, until), contradiction flags and
history passages ("2026-04-13 intake (priya-s2 #1)") all take their dates from those stamps. With
the wall clock, a session the story dates 2026-01-13 would show the day the demo ran, and the
rendered dates (so token counts, too) would change from day to day."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

START_OF_DAY = timedelta(hours=9)  # a working day's first meeting, UTC


class StoryClock:
    """Stamps on the current session's date, one second apart from 09:00 UTC, so the log's order
    within a session is the order the agents wrote in. `begin(date)` moves to the next session."""

    def __init__(self, date: str = "2026-01-01") -> None:
        self._lock = threading.Lock()  # the local server answers appends on its own threads
        self.begin(date)

    def begin(self, date: str) -> None:
        """Move the clock to `date` (YYYY-MM-DD), at the start of its day."""
        day = datetime.fromisoformat(date).replace(tzinfo=UTC)
        with self._lock:
            self._next = day + START_OF_DAY

    def __call__(self) -> str:
        with self._lock:
            now, self._next = self._next, self._next + timedelta(seconds=1)
        return _iso(now)

    def now(self) -> str:
        """The story's time now, without stamping anything: after every stamp given so far and
        before the next one, so "written after a read at now()" is exact."""
        with self._lock:
            return _iso(self._next - timedelta(milliseconds=1))


def _iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")  # the log's own format
