"""Erasure records: what an erasure did, tier by tier, kept without any personal content."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

TierState = Literal["pending", "done", "failed"]
ErasureState = Literal["running", "done", "failed"]


class TierProgress(BaseModel):
    model_config = ConfigDict(frozen=True)

    status: TierState = "pending"
    removed: int = Field(default=0, description="Items removed from this tier, over every run.")
    note: str | None = Field(default=None, description="Why it failed: an error code, never content.")


class ErasureRecord(BaseModel):
    """The ledger entry of one erasure. It names the subject only by `subject_hash`."""

    model_config = ConfigDict(frozen=True)

    erasure_id: str
    subject_hash: str = Field(description="Keyed hash of the subject id; the id itself is never kept.")
    state: ErasureState
    requested_at: str
    updated_at: str
    completed_at: str | None = None
    runs: int = Field(default=0, description="How many times the erasure ran; a repeat runs it again.")
    tiers: dict[str, TierProgress]

    def with_tier(self, name: str, progress: TierProgress, now: str) -> ErasureRecord:
        tiers = {**self.tiers, name: progress}
        return self.model_copy(update={"tiers": tiers, "updated_at": now})

    def finished(self, now: str) -> ErasureRecord:
        failed = any(t.status != "done" for t in self.tiers.values())
        return self.model_copy(
            update={
                "state": "failed" if failed else "done",
                "updated_at": now,
                "completed_at": None if failed else now,
            }
        )


@dataclass(frozen=True)
class Footprint:
    """Where the subject left traces that other tiers are keyed by: its sessions."""

    subject_id: str
    sessions: tuple[str, ...]
