"""Sections along the hierarchy: candidates grouped under their object (the first three path
levels), each section scored by its best member and ranked by that score. A section whose members
would cost more than EXPLODE_TOKENS at full detail is exploded into its children first (one level
deeper, repeatedly), so one huge table cannot take the whole budget as a block."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

EXPLODE_TOKENS = 5000
OBJECT_DEPTH = 3


@dataclass
class Group:
    path: str
    members: list[str]
    score: float = 0.0
    exploded_from: str | None = None
    estimate: int = 0
    heading: str = ""
    children: list[Group] = field(default_factory=list)


def _prefix(path: str, depth: int) -> str:
    return "/".join(path.split("/")[:depth])


def group(
    ranked: Sequence[str], paths: Mapping[str, str], scores: Mapping[str, float], cost: Callable[[str], int]
) -> list[Group]:
    """Sections in rank order (best member score, ties by path); members in rank order."""
    groups: dict[str, Group] = {}
    for asset_id in ranked:
        key = _prefix(paths[asset_id], OBJECT_DEPTH)
        groups.setdefault(key, Group(key, [])).members.append(asset_id)
    out: list[Group] = []
    for g in groups.values():
        out += _explode(g, OBJECT_DEPTH, paths, cost)
    for g in out:
        g.score = max(scores[m] for m in g.members)
    return sorted(out, key=lambda g: (-g.score, g.path))


def _explode(g: Group, depth: int, paths: Mapping[str, str], cost: Callable[[str], int]) -> list[Group]:
    g.estimate = sum(cost(m) for m in g.members)
    deeper = [m for m in g.members if paths[m].count("/") + 1 > depth]
    if g.estimate <= EXPLODE_TOKENS or not deeper or len(g.members) == 1:
        return [g]
    parts: dict[str, Group] = {}
    origin = g.exploded_from or g.path
    for m in g.members:
        key = _prefix(paths[m], depth + 1)
        parts.setdefault(key, Group(key, [], exploded_from=origin)).members.append(m)
    if len(parts) == 1:  # every member sits under one child: look one level deeper still
        (only,) = parts.values()
        return _explode(only, depth + 1, paths, cost)
    out: list[Group] = []
    for part in parts.values():
        out += _explode(part, depth + 1, paths, cost)
    return out
