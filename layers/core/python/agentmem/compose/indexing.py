"""Keeping the asset index a projection of the catalogue.

Locally the projector worker syncs each round, never a compose: one revision read when nothing
changed, else a stamp comparison (asset id -> change_seq) and one batch embedding of what
changed. On AWS the stream projector calls `sync_ids` with the assets a batch touched, and a
replay calls `rebuild`.
Deprecated assets stay indexed (the scope drops them), so un-deprecating needs no re-embedding."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

from agentmem.compose.model import StoredAsset
from agentmem.ports.catalogue import AssetIndex, Catalogue, IndexedAsset
from agentmem.ports.embedding import Embedder

MAX_TEXT_CHARS = 20_000
EMBED_BATCH = 256


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k in sorted(value) for s in _strings(value[k])]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [json.dumps(value)] if value is not None else []


def searchable_text(asset: StoredAsset) -> str:
    """Title, path words, body and every string in the payload: what keyword search reads."""
    parts = [asset.title, asset.path.replace("/", " "), asset.body, *_strings(asset.payload)]
    return "\n".join(p for p in parts if p)[:MAX_TEXT_CHARS]


def embedding_text(asset: StoredAsset) -> str:
    """Short on purpose: rank on short bodies, render detail only for what survives."""
    name = asset.path.rsplit("/", 1)[-1].replace("_", " ")
    return f"{asset.title}. {name}. {asset.body}"[:1000]


def _normalised(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


class AssetIndexer:
    def __init__(self, catalogue: Catalogue, index: AssetIndex, embedder: Callable[[], Embedder]) -> None:
        self._catalogue = catalogue
        self._index = index
        self._embedder = embedder
        self._synced_revision = -1
        self._lock = threading.Lock()

    def _write(self, assets: Sequence[StoredAsset], remove: Sequence[str]) -> int:
        put: list[IndexedAsset] = []
        for start in range(0, len(assets), EMBED_BATCH):
            batch = assets[start : start + EMBED_BATCH]
            vectors = self._embedder().embed([embedding_text(a) for a in batch])
            put += [
                IndexedAsset(
                    a.asset_id, a.path, a.change_seq, tuple(a.principals), searchable_text(a), _normalised(v)
                )
                for a, v in zip(batch, vectors, strict=True)
            ]
        self._index.update(put, remove)
        return len(put)

    def sync(self) -> tuple[int, int]:
        """Bring the index up to the catalogue; (assets embedded, assets removed)."""
        revision = self._catalogue.revision()
        if revision == self._synced_revision:
            return 0, 0
        with self._lock:
            current = {h.asset_id: h.change_seq for h in self._catalogue.headers()}
            indexed = self._index.stamps()
            remove = sorted(i for i in indexed if i not in current)
            changed = sorted(i for i, seq in current.items() if indexed.get(i) != seq)
            assets = self._catalogue.get_assets(changed)
            embedded = self._write([assets[i] for i in changed if i in assets], remove)
            self._synced_revision = revision
            return embedded, len(remove)

    def sync_ids(self, asset_ids: Sequence[str]) -> tuple[int, int]:
        """Re-index exactly these (a stream batch's assets): present ones written, gone ones removed."""
        ids = sorted(set(asset_ids))
        assets = self._catalogue.get_assets(ids)
        remove = [i for i in ids if i not in assets]
        return self._write([assets[i] for i in ids if i in assets], remove), len(remove)

    def rebuild(self) -> tuple[int, int]:
        """Replay: every asset re-embedded and rewritten, anything else removed."""
        with self._lock:
            self._synced_revision = -1
            current = [h.asset_id for h in self._catalogue.headers()]
            stale = sorted(set(self._index.stamps()) - set(current))
            assets = self._catalogue.get_assets(current)
            embedded = self._write([assets[i] for i in current if i in assets], stale)
            return embedded, len(stale)
