"""An asset's renderings: up to eight levels, identical ones kept once but each still reporting its
level, and a payload that would eat the budget offloaded to the blob store with a placeholder."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

from agentmem.adapters.local.blob_folder import FolderBlobStore
from agentmem.adapters.tokens import count_tokens
from agentmem.compose.model import StoredAsset
from agentmem.compose.render import AssetRenderer, Offload
from agentmem.compose.templates import RenderEvents, TemplateRegistry


def asset(kind: str, payload: dict[str, Any], body: str = "Orders placed. One row per order.") -> StoredAsset:
    return StoredAsset(
        asset_id="a1", path="warehouse/analytics/fct_orders", kind=kind, title="Orders", body=body,
        payload=payload, principals=["analyst"], updated_at=datetime(2026, 11, 1, tzinfo=UTC), change_seq=1,
    )  # fmt: skip


def renderer(tmp_path: Path) -> AssetRenderer:
    return AssetRenderer(TemplateRegistry(), FolderBlobStore(tmp_path), count_tokens)


def test_a_full_asset_has_eight_levels_fullest_first(tmp_path: Path) -> None:
    payload = {"type": "int", "nullable": False, "description": "Key.", "example": "7"}
    renders, template, levels = renderer(tmp_path).levels(
        asset("column", payload), budget=5000, events=RenderEvents(), offloads=[]
    )
    assert template == "column@v1" and levels == tuple(range(8))
    assert renders[-1] == "`a1`" and renders[0].startswith(
        "**Orders** (column `warehouse/analytics/fct_orders`"
    )
    assert all(len(a) >= len(b) for a, b in pairwise(renders[3:]))  # lighter from the body on


def test_identical_levels_are_kept_once_and_keep_their_numbers(tmp_path: Path) -> None:
    renders, _, levels = renderer(tmp_path).levels(
        asset("note", {}), budget=5000, events=RenderEvents(), offloads=[]
    )
    # No payload: full, abridged, key facts and body-only are one text, reported as level 0.
    assert levels == (0, 4, 5, 6, 7)
    assert len(renders) == 5


def test_a_payload_that_would_eat_the_budget_is_offloaded(tmp_path: Path) -> None:
    offloads: list[Offload] = []
    big = asset("wiki_page", {"markdown": "Net revenue is defined below. " * 400})
    renders, _, _ = renderer(tmp_path).levels(big, budget=2000, events=RenderEvents(), offloads=offloads)
    [offload] = offloads
    assert offload.tokens > 500 and "[full payload offloaded:" in renders[0]
    assert f"blob sha256:{offload.sha256}" in renders[0] and "GET /v1/assets/a1" in renders[0]
    assert FolderBlobStore(tmp_path).exists(offload.sha256)
