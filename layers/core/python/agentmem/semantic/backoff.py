"""Backing off a failing lane of the projector worker, and saying so once per change of state.

A lane that fails (projection when the model server is down, the vector lane when the embedder
is) waits `Backoff.delay(n)` after its n-th failure in a row before it tries again, instead of
failing every 0.2 s round. It logs one line when it starts failing, one when the error changes and
one when it recovers; each attempt in between is a debug line. A traceback is logged once, on the
first failure, and only for an error the domain did not raise on purpose (a bug, not an outage)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from agentmem.errors import AgentMemError
from agentmem.model.projection import MAX_ERROR_CHARS

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Backoff:
    """Exponential and capped: after the n-th failure in a row, wait first * factor**(n-1)
    seconds, at most `cap`. No jitter: one worker per data dir has no herd to spread."""

    first: float = 1.0
    factor: float = 2.0
    cap: float = 60.0

    def delay(self, failures: int) -> float:
        return min(self.cap, self.first * self.factor ** max(0, failures - 1))


def described(exc: BaseException) -> str:
    """What any reader may be shown of `exc`: a domain error's message (the adapters word those
    for operators and keep a server's own text, which may quote a key, in the log), else only
    the exception's type."""
    if isinstance(exc, AgentMemError):
        return exc.message[:MAX_ERROR_CHARS]
    return f"{type(exc).__name__} (the projector's log has the traceback)"


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def utc_now() -> datetime:
    return datetime.now(UTC)


class FailingLane:
    """One lane's run of failures: whether it may try now (`due`), and since when and why it
    fails. `clock` (monotonic seconds) schedules the retries, `wall` stamps them."""

    def __init__(
        self,
        name: str,
        backoff: Backoff,
        clock: Callable[[], float],
        wall: Callable[[], datetime] = utc_now,
    ) -> None:
        self.name = name
        self._backoff = backoff
        self._clock = clock
        self._wall = wall
        self.failures = 0
        self.since: str | None = None
        self.error: str | None = None
        self.retry_at = float("-inf")
        self.next_attempt_at: str | None = None

    @property
    def failing(self) -> bool:
        return self.failures > 0

    def due(self) -> bool:
        return self._clock() >= self.retry_at

    def failed(self, exc: BaseException) -> None:
        """Count a failure, schedule the next attempt and log the change, if it is one."""
        error = described(exc)
        self.failures += 1
        delay = self._backoff.delay(self.failures)
        self.retry_at = self._clock() + delay
        wall = self._wall()
        self.next_attempt_at = iso(datetime.fromtimestamp(wall.timestamp() + delay, UTC))
        where = {"lane": self.name, "error": error, "attempts": self.failures, "retry_in_seconds": delay}
        if self.failures == 1:
            self.since = iso(wall)
            unexpected = not isinstance(exc, AgentMemError)
            logger.warning(
                "projector lane failing; backing off", extra=where, exc_info=exc if unexpected else None
            )
        elif error != self.error:
            logger.warning("projector lane failing with another error", extra=where)
        else:
            logger.debug("projector lane still failing", extra=where)
        self.error = error

    def succeeded(self) -> bool:
        """Reset after a success; True when the lane had been failing (a change worth saving)."""
        if not self.failing:
            return False
        logger.info(
            "projector lane recovered",
            extra={"lane": self.name, "failed_attempts": self.failures, "failing_since": self.since},
        )
        self.failures, self.since, self.error, self.next_attempt_at = 0, None, None, None
        self.retry_at = float("-inf")
        return True
