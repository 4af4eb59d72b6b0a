"""How projection is faring: the status the projector writes and every reader may read, and the
lag a read or the deep health check reports from it while projection is failing."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_ERROR_CHARS = 500


class ProjectionStatus(BaseModel):
    """The projector's last word on itself. The local worker writes it each time its state
    changes and on every failed attempt; the stream projector on its failure path."""

    model_config = ConfigDict(frozen=True)

    state: Literal["ok", "failing"] = "ok"
    failing_since: str | None = Field(
        default=None, description="When the first failed attempt of this run began."
    )
    last_error: str | None = Field(default=None, description="What the last failed attempt raised.")
    failed_attempts: int = Field(default=0, description="Failed attempts since projection last succeeded.")
    last_attempt_at: str | None = None
    next_attempt_at: str | None = Field(
        default=None, description="When the local worker tries again; None on AWS, where the stream retries."
    )
    unprojected_events: int | None = Field(
        default=None,
        description="Events in the log past the projector's checkpoint at the last attempt (local).",
    )
    oldest_unprojected_at: str | None = Field(
        default=None, description="When the oldest event not projected was written."
    )


class ProjectionLag(BaseModel):
    """Set while projection is failing: beliefs, and the facts behind history passages, stop
    where it began. The raw events and their passages are still read from the log."""

    model_config = ConfigDict(frozen=True)

    failing_since: str
    last_error: str
    failed_attempts: int
    next_attempt_at: str | None
    unprojected_events: int | None = Field(description="None where the backend cannot count them (AWS).")
    lag_seconds: float | None = Field(
        description="How long the oldest event not projected has waited, at the time of the read."
    )


def _parsed(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def lag_of(status: ProjectionStatus, now: datetime) -> ProjectionLag | None:
    """The lag to report for `status` at `now`; None while projection is not failing."""
    if status.state != "failing":
        return None
    since = status.failing_since or status.last_attempt_at or now.isoformat()
    oldest = status.oldest_unprojected_at
    return ProjectionLag(
        failing_since=since,
        last_error=status.last_error or "unknown",
        failed_attempts=status.failed_attempts,
        next_attempt_at=status.next_attempt_at,
        unprojected_events=status.unprojected_events,
        lag_seconds=round(max(0.0, (now - _parsed(oldest)).total_seconds()), 3) if oldest else None,
    )
