"""Port of the vector cache: vectors already computed, so projection embeds each text once.

A replay, a shadow build or the next worker round projects text the model has read before (the
same passages, belief sentences and key readings), and people and agents say the same short
things ("Okay, and after that?"); asking here first, by content hash, makes the model see only
what it has not read. The cache is speed only: a miss is always allowed, and a hit is exactly
the vector the model gave. Each vector is owned by the subjects whose words it embeds, so erasing
a subject forgets what only it said (DESIGN.md, invariant 9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

VectorKey = tuple[str, str]
"""(the subject whose words the text is, or "" for the tenant's own configuration such as its
declared fact types; the sha256 of the text, hex)."""


class VectorCache(Protocol):
    """Vectors by (model, content hash), each with its owners; one tenant's, like every port."""

    def get(self, model: str, digests: Sequence[str]) -> dict[str, list[float]]:
        """The vectors held for `digests` under `model`, whoever owns them (the same text is the
        same vector); a digest not held is absent. Each value is exactly the floats `put` got."""
        ...

    def put(self, model: str, vectors: Mapping[VectorKey, Sequence[float]]) -> int:
        """Keep each vector under `model` and its digest, owned by the key's subject besides any
        owner it has; returns how many entries were given."""
        ...

    def forget_subject(self, subject_id: str) -> int:
        """Drop the subject's ownership under every model, and every vector nobody else owns;
        returns how many of its entries went."""
        ...
