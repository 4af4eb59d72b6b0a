"""The document the model reads: the skill's own text first (intent, procedure, output contract,
guardrails), then knowledge sections in rank order, packed by the one packing engine under the
budget in a single pool, so the best-ranked sections get their detail first (the cut is a prefix
of the ranking) and the rest fall back to lighter levels, down to identity, before anything goes.

Within one conversation, an asset already sent and unchanged renders as a one-line reference, and
the budget its body would have cost goes to new items."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from agentmem.compose.catalogue_view import CatalogueView
from agentmem.compose.model import ComposerSkill, StoredAsset
from agentmem.compose.render import AssetRenderer, Offload, content_hash
from agentmem.compose.report import DroppedAsset, SectionReport
from agentmem.compose.sections import Group, group
from agentmem.compose.templates import RenderEvents
from agentmem.packing.engine import pack
from agentmem.packing.model import Candidate, Section

COUNT_CACHE = 20_000
IDENTITY_SHARE = 0.05
"""At most this share of the budget is held back to list, by id, the ranked assets below the cut
(measured on the golden set: 10% cost 0.014 recall at 2,500 tokens against 5%, and 0% gained 0.008)."""
CONTENT_LEVELS = 4
"""Levels 0-3 carry the asset's body: only those count as delivered to a conversation."""
REFERENCE_LEVEL = 6
"""An asset already sent in this conversation is referenced by title and id, as at level 6."""


@dataclass
class Composed:
    markdown: str
    tokens: int
    encoding: str
    sections: list[SectionReport]
    cut_line: int | None
    dropped: list[DroppedAsset]
    offloaded: list[dict[str, str | int]]
    events: RenderEvents
    already_sent: list[str]
    truncated: bool
    delivered: dict[str, str] = field(default_factory=dict)


def preamble(skill: ComposerSkill) -> str:
    parts = [("Intent", skill.intent), ("Procedure", skill.procedure)]
    parts += [("Output contract", skill.output_contract), ("Guardrails", skill.guardrails)]
    return "\n\n".join(f"## {name}\n{text.strip()}" for name, text in parts if text.strip())


class Layout:
    def __init__(self, renderer: AssetRenderer, count: Callable[[str], int], encoding: str) -> None:
        self._renderer = renderer
        # Renderings repeat from call to call (the same assets, the same levels): count each once.
        self._count = lru_cache(maxsize=COUNT_CACHE)(count)
        self._encoding = encoding

    def compose(
        self,
        skill: ComposerSkill,
        question: str,
        budget: int,
        ranked: Sequence[str],
        scores: Mapping[str, float],
        assets: Mapping[str, StoredAsset],
        view: CatalogueView,
        sent: Mapping[str, str],
        *,
        may_show: Callable[[str], bool],
    ) -> Composed:
        """`may_show` says whether the caller may see an asset (readable, not deprecated): a
        section is headed by the title of the asset at its path only then, else by the path."""
        events = RenderEvents()
        offloads: list[Offload] = []
        renders: dict[str, tuple[str, ...]] = {}
        level_of: dict[str, tuple[int, ...]] = {}  # each rendering's level (render.py's numbering)
        hashes: dict[str, str] = {}
        already: list[str] = []
        for asset_id in ranked:
            asset = assets[asset_id]
            hashes[asset_id] = content_hash(asset)
            if sent.get(asset_id) == hashes[asset_id]:
                already.append(asset_id)
                renders[asset_id] = (
                    f"**{asset.title}** (`{asset_id}`): sent earlier in this conversation, unchanged",
                )
                level_of[asset_id] = (REFERENCE_LEVEL,)
                continue
            renders[asset_id], _, level_of[asset_id] = self._renderer.levels(
                asset, budget=budget, events=events, offloads=offloads
            )
        cost: Callable[[str], int] = lambda i: self._count(renders[i][0])  # noqa: E731
        groups = group(ranked, {i: assets[i].path for i in ranked}, scores, cost)
        for g in groups:
            root = view.by_path.get(g.path)
            shown = root is not None and may_show(root.asset_id)
            g.heading = f"{root.title} (`{g.path}`)" if root is not None and shown else f"`{g.path}`"

        # Rank order for the packer: section by section, members in rank order. Scores are
        # positions, so the engine's sort (score, then id) keeps exactly this order.
        order = [m for g in groups for m in g.members]
        candidates = [
            Candidate(item_id=m, source=g.path, score=float(len(order) - n), renders=renders[m])
            for n, (g, m) in enumerate((g, m) for g in groups for m in g.members)
        ]
        packed = pack(
            candidates,
            budget=budget,
            shares={g.path: 1.0 for g in groups},
            sections=[Section(g.path, g.heading) for g in groups],
            title=f"{skill.skill_id}: {' '.join(question.split())[:160]}",
            count=self._count,
            encoding=self._encoding,
            preamble=preamble(skill) + ("\n\n## Knowledge" if groups else ""),
            identity_share=IDENTITY_SHARE,
            policy="ranked_prefix",
        )
        levels = {p.candidate.item_id: level_of[p.candidate.item_id][p.level] for p in packed.placed}
        tokens_of = {p.candidate.item_id: p.tokens for p in packed.placed}
        reports, cut_line = _sections(groups, levels, tokens_of)
        dropped = [DroppedAsset(asset_id=d.item_id, reason=d.reason, stage="budget") for d in packed.dropped]
        truncated = bool(dropped) or any(level > 0 for item, level in levels.items() if item not in already)
        return Composed(
            markdown=packed.markdown,
            tokens=packed.tokens,
            encoding=self._encoding,
            sections=reports,
            cut_line=cut_line,
            dropped=dropped,
            offloaded=[{"asset_id": o.asset_id, "tokens": o.tokens, "sha256": o.sha256} for o in offloads],
            events=events,
            already_sent=already,
            truncated=truncated,
            delivered={
                i: hashes[i] for i, level in levels.items() if level < CONTENT_LEVELS and i not in already
            },
        )


def _sections(
    groups: Sequence[Group], levels: Mapping[str, int], tokens: Mapping[str, int]
) -> tuple[list[SectionReport], int | None]:
    reports: list[SectionReport] = []
    cut_line: int | None = None
    for rank, g in enumerate(groups, start=1):
        whole = all(levels.get(m) == 0 for m in g.members)
        if whole and (cut_line is None or cut_line == rank - 1):
            cut_line = rank
        reports.append(
            SectionReport(
                rank=rank,
                path=g.path,
                heading=g.heading,
                score=round(g.score, 6),
                items=list(g.members),
                estimated_tokens=g.estimate,
                rendered_tokens=sum(tokens.get(m, 0) for m in g.members),
                levels={m: levels[m] for m in g.members if m in levels},
                exploded_from=g.exploded_from,
                above_cut=whole,
            )
        )
    return reports, cut_line
