"""Requests first: background projection steps aside while a request is being answered.

The local server answers requests and projects the log in one process, so the two share one
GIL. A context read releases it hundreds of times (every SQLite query, every numpy product, the
query's embedding) and, each time, waited up to a switch interval to get it back from a
projector thread that was extracting facts in pure Python: at 10,000 beliefs and 50,000
passages reads that take 50 ms alone took 300 to 800 ms while a batch was drained beside them
(bench/scale_beside.py). So the server counts the requests in flight (`Foreground.serving`),
and the background worker, before each batch it reads and each event it extracts
(semantic/yielding_llm.py), waits until none is (`Foreground.pause`), but never longer than
`max_wait` at a time: under requests that never stop, projection still moves at least an event
every `max_wait`, and it catches up when they ease.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

MAX_WAIT_SECONDS = 0.05


class Foreground:
    """How many requests this process is answering, and a wait for there to be none."""

    def __init__(self, max_wait: float = MAX_WAIT_SECONDS) -> None:
        self._in_flight = 0
        self._quiet = threading.Condition()
        self._max_wait = max_wait

    @contextmanager
    def serving(self) -> Iterator[None]:
        with self._quiet:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._quiet:
                self._in_flight -= 1
                if self._in_flight == 0:
                    self._quiet.notify_all()

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def pause(self) -> bool:
        """Wait until no request is in flight, or `max_wait` seconds; returns whether it is quiet."""
        with self._quiet:
            return self._quiet.wait_for(lambda: self._in_flight == 0, timeout=self._max_wait)
