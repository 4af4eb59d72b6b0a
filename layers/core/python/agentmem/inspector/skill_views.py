"""The skill libraries as the Skills page draws them: guidance on the left, functions on the
right, one line per link (links a rewrite put under review stand out), drafts apart from
approved entries. Pure layout: the template draws it as SVG and escapes every label."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentmem.api.routes.browse import LibraryEntry
from agentmem.procedural.model import Link

ROW_HEIGHT = 30
TOP = 36
LEFT_X = 250  # where guidance labels end and their edges start
RIGHT_X = 510  # where function labels start
WIDTH = 780
LABEL_CHARS = 34


@dataclass(frozen=True)
class Node:
    kind: str  # function or guidance
    id: str
    status: str
    label: str
    y: int


@dataclass(frozen=True)
class Edge:
    guidance_id: str
    function_id: str
    needs_review: bool
    y1: int
    y2: int


@dataclass(frozen=True)
class Graph:
    guidance: list[Node]
    functions: list[Node]
    edges: list[Edge]
    height: int
    left_x: int = LEFT_X
    right_x: int = RIGHT_X
    width: int = WIDTH

    @property
    def review_count(self) -> int:
        return sum(e.needs_review for e in self.edges)


def _short(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def link_graph(
    guidance: Sequence[LibraryEntry],
    functions: Sequence[LibraryEntry],
    links: Sequence[Link],
    titles: dict[str, str],
) -> Graph:
    """Nodes in id order, approved before drafts in each column; review links drawn last, so
    they lie on top of the others."""

    def column(entries: Sequence[LibraryEntry], kind: str) -> list[Node]:
        ordered = sorted(entries, key=lambda e: (e.status != "approved", e.id))
        return [
            Node(kind, e.id, e.status, _short(titles.get(e.id, e.id)), TOP + i * ROW_HEIGHT)
            for i, e in enumerate(ordered)
        ]

    left, right = column(guidance, "guidance"), column(functions, "function")
    at_left = {n.id: n.y for n in left}
    at_right = {n.id: n.y for n in right}
    edges = [
        Edge(
            link.guidance_id,
            link.function_id,
            link.needs_review,
            at_left[link.guidance_id],
            at_right[link.function_id],
        )
        for link in sorted(links, key=lambda x: (x.needs_review, x.guidance_id, x.function_id))
        if link.guidance_id in at_left and link.function_id in at_right
    ]
    height = TOP + max(len(left), len(right), 1) * ROW_HEIGHT
    return Graph(left, right, edges, height)


def split_by_status(entries: Sequence[LibraryEntry]) -> tuple[list[LibraryEntry], list[LibraryEntry]]:
    """(approved, drafts), each by id."""
    approved = [e for e in entries if e.status == "approved"]
    drafts = [e for e in entries if e.status != "approved"]
    return approved, drafts
