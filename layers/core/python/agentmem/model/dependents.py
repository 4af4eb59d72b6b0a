"""Stale dependents: what was built from which belief versions, and what has changed under it.

A dependent is anything built from beliefs (a guidance entry or asset that cites one, a compose
report, a compose cache entry), named by a string such as `guidance:<id>`. It records one use per
belief it was built on: the belief and the version it saw (0 when the belief did not exist yet).
When the belief moves past that version, or its subject is erased, the use carries a staleness."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from agentmem.model.beliefs import FactKey, belief_id
from agentmem.model.common import Identifier

Member = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9._:%$-]{1,128}$")]
"""A set key's member: an Identifier, or the id `member_id` derives from a value (may hold % or $)."""

ERASED_RANK = 2**62
"""How an erasure ranks against version numbers: above all of them, so no later version of a new
subject of the same id clears it (an erased id stays closed)."""


class BeliefRef(BaseModel):
    """One belief as an author cites it: a subject's fact key (and its member, for a set key)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    subject_id: Identifier
    key: FactKey
    member: Member | None = Field(
        default=None, exclude_if=lambda v: v is None, description="The member, for a set-valued key."
    )

    @property
    def doc_id(self) -> str:
        return belief_id(self.key, self.member or "")

    @property
    def name(self) -> str:
        """`<subject>/<doc id>`: neither part can hold a `/`, so the name is unambiguous."""
        return f"{self.subject_id}/{self.doc_id}"


class Staleness(BaseModel):
    """Why a dependent is stale: the belief it used moved from the version it saw to a newer one
    (`to_version` null when the subject was erased)."""

    model_config = ConfigDict(frozen=True)

    belief: str = Field(description="`<subject_id>/<doc_id>` of the belief, e.g. `priya/risk_tolerance`.")
    from_version: int = Field(description="The version the dependent was built on; 0: the belief was absent.")
    to_version: int | None = Field(description="The belief's version now; null when it was erased.")
    reason: str = Field(description="new, updated, contradicted (a CONFLICT: flagged) or erased.")

    @property
    def rank(self) -> int:
        return ERASED_RANK if self.to_version is None else self.to_version


@dataclass(frozen=True)
class BeliefUse:
    """One belief a dependent was built on, at the version it saw, and its staleness if any."""

    ref: BeliefRef
    version: int
    stale: Staleness | None = None

    def key(self) -> tuple[str, str, str]:
        return (self.ref.subject_id, self.ref.key, self.ref.member or "")


REASONS = {"NEW": "new", "UPDATE": "updated", "CONFLICT": "contradicted"}
"""The reason a verdict that made a version gives its dependents."""
ERASED = "erased"


def staleness(use: BeliefUse, to_version: int | None, reason: str) -> Staleness:
    return Staleness(belief=use.ref.name, from_version=use.version, to_version=to_version, reason=reason)


def stale_after(use: BeliefUse, to_version: int | None, reason: str) -> Staleness | None:
    """What `use` carries once its belief reached `to_version` (None: erased): a newer staleness,
    or None when the change leaves it as it was (the use saw that version or a later one, or is
    already stale up to it). Monotone, so marking is idempotent and order-free: a replay or a
    redelivered change marks nothing new."""
    rank = ERASED_RANK if to_version is None else to_version
    if rank <= use.version:
        return None
    if use.stale is not None and use.stale.rank >= rank:
        return None
    return staleness(use, to_version, reason)
