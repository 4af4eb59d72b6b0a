"""Ports of the composer's stores: the catalogue (the primary store of assets and authored skills),
the asset search index (a permissive prefilter, never the authority) and the conversation memory."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from agentmem.compose.model import Asset, AssetHeader, ComposerSkill, ComposerSkillSpec, StoredAsset


class Catalogue(Protocol):
    """Assets and composer skills of one tenant. The catalogue has a revision that every write
    moves on by one; each asset records the revision of its last write (`change_seq`)."""

    def put_assets(self, assets: Sequence[Asset]) -> int:
        """Write every asset (create or replace) in one transaction; returns the new revision.
        At most MAX_ASSETS_PER_PUT. Nothing is written if it raises."""
        ...

    def delete_asset(self, asset_id: str) -> int:
        """Delete it; returns the new revision. NotFoundError if there is no such asset."""
        ...

    def get_assets(self, asset_ids: Collection[str]) -> dict[str, StoredAsset]:
        """The stored assets among `asset_ids`, by id; unknown ids are simply absent."""
        ...

    def headers(self) -> list[AssetHeader]:
        """Every asset's header, ordered by path then id."""
        ...

    def revision(self) -> int:
        """The current revision; 0 for an empty catalogue that was never written."""
        ...

    def put_skill(self, skill_id: str, spec: ComposerSkillSpec) -> ComposerSkill:
        """Version 1, or a new version; a spec identical to the stored one returns it unchanged."""
        ...

    def get_skill(self, skill_id: str) -> ComposerSkill:
        """The current version. NotFoundError if there is none."""
        ...


@dataclass(frozen=True)
class IndexedAsset:
    """One asset as the index stores it: the change it was indexed at, its principals, text, vector."""

    asset_id: str
    path: str
    change_seq: int
    principals: tuple[str, ...]
    text: str
    vector: Sequence[float]


class AssetIndex(Protocol):
    """Keyword and vector search over assets, restricted to an allowed id set (the compiled scope).
    Principals are stored so a backend may prefilter on them; the composer never trusts that."""

    def ensure_ready(self) -> None:
        """Create what a writer needs (an index and its mapping); readers never call it."""
        ...

    def stamps(self) -> dict[str, int]:
        """asset_id -> the change_seq it was indexed at."""
        ...

    def update(self, put: Sequence[IndexedAsset], remove: Sequence[str]) -> None: ...

    def keyword_search(self, text: str, allowed: Collection[str], k: int) -> list[tuple[str, float]]:
        """Best BM25 matches among `allowed`, best first, ties by id."""
        ...

    def vector_search(
        self, vector: Sequence[float], allowed: Collection[str], k: int
    ) -> list[tuple[str, float]]:
        """Nearest by cosine among `allowed`, best first, ties by id."""
        ...

    def similarities(self, vector: Sequence[float], asset_ids: Collection[str]) -> dict[str, float]:
        """Cosine similarity of each indexed id among `asset_ids` (for walking a hierarchy)."""
        ...


class ConversationMemory(Protocol):
    """What a conversation has already been sent: (asset_id, content hash) pairs."""

    def sent(self, conversation_id: str) -> dict[str, str]: ...

    def record(self, conversation_id: str, sent: dict[str, str]) -> None:
        """Add `sent` (asset_id -> content hash) to what the conversation has seen."""
        ...

    def forget(self, conversation_ids: Collection[str]) -> int:
        """Delete what these conversations were sent; returns how many had anything."""
        ...
