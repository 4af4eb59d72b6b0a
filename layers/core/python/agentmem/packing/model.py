"""What goes into the packer and what comes out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Candidate:
    """One item that may enter the document. `renders` holds its bodies from most to least
    detailed (full, short, identity); each must be a whole statement, never a cut one. `group`,
    when set, is a sub-heading of its section the item is listed under (a passage's session and
    date): what every line of a group shares is said once, not on each line."""

    item_id: str
    source: str
    score: float
    renders: tuple[str, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)
    group: str = ""

    def __post_init__(self) -> None:
        if not self.renders:
            raise ValueError(f"candidate {self.item_id} has no rendering")


@dataclass(frozen=True)
class Section:
    """A heading and the source whose items render under it, in document order."""

    source: str
    heading: str


@dataclass(frozen=True)
class Placed:
    candidate: Candidate
    level: int
    tokens: int

    @property
    def level_name(self) -> str:
        """The last rendering is always the identity and the first the full body, whatever the
        count: an item whose text is one short sentence has no separate short form."""
        if self.level == len(self.candidate.renders) - 1:
            return "identity"
        return "full" if self.level == 0 else "short"


@dataclass(frozen=True)
class Dropped:
    item_id: str
    source: str
    reason: str


@dataclass(frozen=True)
class Packed:
    markdown: str
    tokens: int
    budget: int
    placed: list[Placed]
    dropped: list[Dropped]
    tokens_by_source: dict[str, int]
    encoding: str
