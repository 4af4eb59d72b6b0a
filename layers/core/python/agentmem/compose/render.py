"""An asset's renderings, from full detail down to identity (up to eight levels):

0. header, body and the full payload (its template's full level)
1. header, body and the abridged payload
2. header, body and the payload's key facts
3. header and body
4. title, kind and path with the body's first sentence
5. title, kind and path
6. title and id
7. the id alone (identity)

Levels that come out identical are kept once, so a small asset has fewer; each kept rendering
still reports its level by the numbers above. A payload whose full
rendering would eat more than a quarter of the budget is offloaded to the blob store (stored once,
by content hash), and level 0 carries a placeholder that says how to fetch it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

from agentmem.compose.model import StoredAsset
from agentmem.compose.templates import RenderEvents, TemplateRegistry
from agentmem.ports.blobs import BlobStore

OFFLOAD_SHARE = 4  # a payload over budget / OFFLOAD_SHARE tokens is offloaded
OFFLOAD_FLOOR = 400  # ... and never one under this many tokens
CHARS_PER_TOKEN_MIN = 2  # no text has fewer chars per token: a cheap pre-check before counting


@dataclass(frozen=True)
class Offload:
    asset_id: str
    tokens: int
    sha256: str
    uri: str


def content_hash(asset: StoredAsset) -> str:
    """What a conversation remembers: the same hash means the same text would render."""
    canonical = json.dumps(
        [asset.title, asset.body, asset.kind, asset.path, asset.payload], sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:24]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _first_sentence(text: str) -> str:
    flat = _flat(text)
    end = flat.find(". ")
    return flat if end < 0 else flat[: end + 1]


def _block(text: str) -> str:
    """Continuation lines indented under the item's bullet, so markdown keeps them in the item."""
    return "\n".join(f"  {line}" if line.strip() else "" for line in text.strip().splitlines())


class AssetRenderer:
    def __init__(self, templates: TemplateRegistry, blobs: BlobStore, count: Callable[[str], int]) -> None:
        self._templates = templates
        self._blobs = blobs
        self._count = count

    def _offload(self, asset: StoredAsset, text: str, budget: int) -> tuple[str, Offload] | None:
        limit = max(OFFLOAD_FLOOR, budget // OFFLOAD_SHARE)
        if len(text) <= limit * CHARS_PER_TOKEN_MIN:
            return None
        tokens = self._count(text)
        if tokens <= limit:
            return None
        data = text.encode("utf-8")
        sha = hashlib.sha256(data).hexdigest()
        uri = self._blobs.put(data, sha256=sha, media_type="text/markdown")
        note = (
            f"[full payload offloaded: {tokens:,} tokens, blob sha256:{sha}; fetch it with "
            f"GET /v1/assets/{asset.asset_id}]"
        )
        return note, Offload(asset.asset_id, tokens, sha, uri)

    def levels(
        self, asset: StoredAsset, *, budget: int, events: RenderEvents, offloads: list[Offload]
    ) -> tuple[tuple[str, ...], str, tuple[int, ...]]:
        """The asset's renderings, fullest first, the template that rendered its payload, and the
        level (0-7, as listed above) of each rendering: identical levels are kept once, so the
        position of a rendering is not its level."""
        (full, abridged, facts), template = self._templates.render(
            asset.asset_id, asset.kind, asset.payload, events
        )
        offloaded = self._offload(asset, full, budget)
        if offloaded is not None:
            full = f"{abridged}\n{offloaded[0]}" if abridged else offloaded[0]
            offloads.append(offloaded[1])
        header = f"**{_flat(asset.title)}** ({asset.kind} `{asset.path}`, id `{asset.asset_id}`)"
        body = _block(asset.body) if asset.body.strip() else ""

        def item(payload: str) -> str:
            parts = [header, body, _block(payload) if payload.strip() else ""]
            return "\n".join(p for p in parts if p)

        sentence = _first_sentence(asset.body)
        renders = (
            item(full),
            item(abridged),
            item(facts),
            item(""),
            f"**{_flat(asset.title)}** ({asset.kind} `{asset.path}`)" + (f": {sentence}" if sentence else ""),
            f"**{_flat(asset.title)}** ({asset.kind} `{asset.path}`)",
            f"**{_flat(asset.title)}** (`{asset.asset_id}`)",
            f"`{asset.asset_id}`",
        )
        kept = dict.fromkeys(renders)  # first occurrence wins: its level is the one reported
        return tuple(kept), template, tuple(renders.index(text) for text in kept)
