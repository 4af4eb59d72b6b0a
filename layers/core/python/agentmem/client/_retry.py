"""When to try a request again, and after how long: the one decision both clients make."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

RETRYABLE = frozenset({429, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """`retries` further attempts after the first, on a retryable status or on no answer at all.
    A `Retry-After` from the server is the wait; without one the wait starts at
    `backoff_seconds` and doubles, up to `max_backoff_seconds`. A `Retry-After` longer than
    `max_retry_after_seconds` is not slept through: the caller gets `Throttled` at once, with
    the wait the server asked for, rather than a call that blocks for minutes.

    Every request is safe to repeat: appends carry an idempotency key, every other write is a
    PUT of the whole resource or an idempotent action, and the rest are reads."""

    retries: int = 3
    backoff_seconds: float = 0.2
    max_backoff_seconds: float = 10.0
    max_retry_after_seconds: float = 60.0
    statuses: frozenset[int] = RETRYABLE

    def delay(self, attempt: int, *, status: int | None, retry_after: float | None = None) -> float | None:
        """Seconds to wait before the next attempt after attempt number `attempt` (0 for the
        first) failed with `status` (None: no answer), or None to give up."""
        if attempt >= self.retries or (status is not None and status not in self.statuses):
            return None
        if retry_after is not None:
            return retry_after if retry_after <= self.max_retry_after_seconds else None
        return min(self.backoff_seconds * 2.0**attempt, self.max_backoff_seconds)


def parse_retry_after(header: str | None, now: datetime | None = None) -> float | None:
    """`Retry-After` as seconds from `now`: delay-seconds or an HTTP date (RFC 9110 10.2.3).
    None when absent or unreadable; a date in the past is no wait."""
    if header is None or not header.strip():
        return None
    text = header.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)
