"""The stream projector's side of the projection status (agentmem.model.projection): an event
record that fails marks projection failing, the first that succeeds afterwards marks it ok, so
the read function's trace and `/v1/health/deep` say what the local worker's would.

State is per container, and so are the writes: on a change, and while failing at most every
HEARTBEAT_SECONDS (Lambda retries a failing record, bisecting its batch, far more often). A
container's first success clears what an earlier one may have left; one shard that fails while
another succeeds can flip the status, and the failing shard's next write, within the heartbeat,
sets it again. Each write is a stream record of its own, which the projector skips. A status that
cannot be written is logged and never fails the record: the record's own outcome is what counts."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import datetime

from agentmem.model.events import Event
from agentmem.model.projection import ProjectionStatus
from agentmem.ports.projection import ProjectionStatusStore
from agentmem.semantic.backoff import described, iso, utc_now

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 30.0


class StreamStatus:
    def __init__(
        self,
        store: Callable[[], ProjectionStatusStore],
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], datetime] = utc_now,
    ) -> None:
        self._store = store  # built on first need: a batch that never fails never builds it
        self._clock = clock
        self._wall = wall
        self._failing: ProjectionStatus | None = None
        self._written_at = float("-inf")
        self._cleared = False  # whether this container has said ok since it started

    def failed(self, event: Event, exc: BaseException) -> None:
        now = iso(self._wall())
        before = self._failing
        oldest = event.created_at
        if before is not None and before.oldest_unprojected_at:
            oldest = min(before.oldest_unprojected_at, oldest)
        self._failing = ProjectionStatus(
            state="failing",
            failing_since=before.failing_since if before else now,
            last_error=described(exc),
            failed_attempts=(before.failed_attempts if before else 0) + 1,
            last_attempt_at=now,
            oldest_unprojected_at=oldest,
        )
        changed = before is None or before.last_error != self._failing.last_error
        if changed or self._clock() - self._written_at >= HEARTBEAT_SECONDS:
            self._write(self._failing)

    def succeeded(self) -> None:
        if self._failing is None and self._cleared:
            return
        was = self._failing
        self._failing = None
        if self._write(ProjectionStatus()):
            self._cleared = True
            if was is not None:
                logger.info(
                    "projection recovered",
                    extra={"failed_attempts": was.failed_attempts, "failing_since": was.failing_since},
                )

    def _write(self, status: ProjectionStatus) -> bool:
        try:
            self._store().save(status)
        except Exception as exc:
            logger.warning("projection status not saved", extra={"error": type(exc).__name__})
            return False
        self._written_at = self._clock()
        return True
