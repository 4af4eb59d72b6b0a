"""The port of stale dependents: which belief versions each dependent was built on, marked stale
by the projection step that moves a belief (or by the erasure of its subject)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Protocol

from agentmem.model.dependents import BeliefRef, BeliefUse, Staleness


class DependentsIndex(Protocol):
    """Dependents of one tenant's beliefs. A dependent is an opaque name (`guidance:<id>`,
    `asset:<id>`, `report:<id>`, `cache:<digest>`); a belief is a subject's chain (BeliefRef).

    Marking is monotone: a use is stale once its belief reached a version above the one it saw,
    and stays stale (showing the highest version reached) until the dependent is recorded again."""

    def record(
        self, dependent: str, uses: Sequence[BeliefUse], body: str | None = None, ttl: timedelta | None = None
    ) -> None:
        """Replace what `dependent` was built on (its uses, each with the staleness it already
        carries, if any) and keep `body` with it (an opaque string its owner reads back: a version
        stamp, a stored report). Recording no uses and no body forgets the dependent.

        With `ttl`, the dependent expires that long after this record: from then on it reads as
        unknown (no uses, no body), no mark counts it, and the store drops it (`expire`, or
        DynamoDB's TTL). Without, it lives until recorded again or forgotten."""
        ...

    def uses_of(self, dependent: str) -> list[BeliefUse]:
        """Its uses, by subject, key and member; none for an unknown dependent."""
        ...

    def stale_of(self, dependent: str) -> list[Staleness]:
        """The stalenesses of its uses, by belief; empty when it is fresh or unknown."""
        ...

    def stale_of_many(self, dependents: Sequence[str]) -> dict[str, list[Staleness]]:
        """`stale_of` of each of `dependents` at once (a context read's guidance): the stale ones
        only, each with its stalenesses by belief; fresh and unknown dependents are left out."""
        ...

    def body_of(self, dependent: str) -> str | None:
        """The body recorded with it; None for an unknown dependent or one recorded without."""
        ...

    def mark_stale(self, ref: BeliefRef, to_version: int, reason: str) -> list[str]:
        """The belief `ref` reached `to_version` (for `reason`): every use of it at a lower version
        becomes stale up to it. Returns the dependents newly marked, sorted; idempotent."""
        ...

    def mark_erased(self, subject_id: str) -> list[str]:
        """The subject was erased: every use of its beliefs becomes stale for good (`to_version`
        null, reason `erased`). Returns the dependents newly marked, sorted; idempotent."""
        ...

    def forget(self, dependent: str) -> bool:
        """Drop the dependent and its uses (it was deleted); True when there was one."""
        ...

    def expire(self) -> int:
        """Drop every dependent whose ttl has run out; returns how many. Where the store expires
        items itself (DynamoDB's TTL), a no-op that returns 0: reads already skip them."""
        ...
