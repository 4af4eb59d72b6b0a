"""Port of the procedural tier: the skill library, two libraries of authored skills linked both ways.

Links are foreign keys on both sides: a guidance names functions by id, and every function lists
the guidance that names it. One adapter instance serves one tenant."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from agentmem.model.events import Event
from agentmem.procedural.model import (
    Function,
    FunctionSpec,
    Guidance,
    GuidanceSpec,
    Link,
    Proposals,
    SkillKind,
)

SkillKey = tuple[str, str]
"""(kind, id) of one library item."""


class SkillLibrary(Protocol):
    """Functions, guidance and the links between them, for one tenant. Every write is atomic:
    when it raises, nothing of it was stored."""

    def put_function(self, spec: FunctionSpec) -> Function:
        """Create the function (version 1) or write a new version of it.

        - An implementation over the size limit raises InvalidInputError(field="implementation").
        - An unknown `depends_on` id, or one that closes a dependency cycle (the message names the
          cycle, e.g. `a -> b -> a`), raises InvalidInputError(field="depends_on").
        - A new version whose `impl_hash` differs marks every link to the function needs_review.
        - A spec identical to the stored version is a no-op that returns the stored version.
        - `status` is taken from the spec: a rewrite written as draft is a draft again.
        """
        ...

    def get_function(self, function_id: str) -> Function:
        """The current version, with `guidance_ids`. NotFoundError if there is none."""
        ...

    def delete_function(self, function_id: str) -> None:
        """Delete the function and its links, so no guidance lists it any more.

        Refused with ConflictError (naming them) while other functions depend on it: their
        closures would silently lose a piece. NotFoundError if there is no such function."""
        ...

    def put_guidance(self, spec: GuidanceSpec) -> Guidance:
        """Create the guidance (version 1) or write a new version of it, linking `function_ids`.

        An unknown function id raises InvalidInputError(field="function_ids"). Links the new
        version keeps keep their needs_review flag; links it no longer names are removed. A spec
        identical to the stored version is a no-op that returns the stored version."""
        ...

    def get_guidance(self, guidance_id: str) -> Guidance:
        """The current version, with `function_ids` as linked now. NotFoundError if none."""
        ...

    def delete_guidance(self, guidance_id: str) -> None:
        """Delete the guidance and its links, so no function lists it any more. NotFoundError if none."""
        ...

    def links(self, *, needs_review: bool | None = None) -> list[Link]:
        """Every link, optionally only those with this needs_review value, by guidance then function id."""
        ...

    def confirm_link(self, guidance_id: str, function_id: str) -> Link:
        """Clear needs_review on the link. NotFoundError if there is no such link."""
        ...

    def drop_link(self, guidance_id: str, function_id: str) -> None:
        """Remove the link from both sides; the guidance and function stay. NotFoundError if none."""
        ...

    def approve(self, kind: SkillKind, skill_id: str) -> Function | Guidance:
        """Set status approved without a new version (the content is unchanged). NotFoundError if none."""
        ...

    def closure(self, function_id: str) -> list[Function]:
        """The function and everything it depends on, transitively, dependencies first.

        Deterministic: a depth-first walk of `depends_on` in the order written, each function
        placed after all of its dependencies and listed once. NotFoundError if there is none."""
        ...


@dataclass(frozen=True)
class IndexedSkill:
    """One library item as the index stores it: its stamp, searchable text and unit vector."""

    kind: str
    skill_id: str
    stamp: str
    text: str
    vector: Sequence[float]


class StampedLibrary(SkillLibrary, Protocol):
    """A library that also says, cheaply, what changed: what keeps its search index current
    compares these stamps with the index's."""

    def stamps(self) -> list[tuple[SkillKind, str, str, str]]:
        """(kind, id, status, stamp) of every item; the stamp is `{version}|{updated_at}`."""
        ...


class SkillIndex(Protocol):
    """Vector and keyword search over the approved functions and guidance: a projection of the
    library, never the authority (every hit is read again from the library)."""

    def ensure_ready(self) -> None:
        """Create what a writer needs (an index and its mapping); readers never call it."""
        ...

    def stamps(self) -> dict[SkillKey, str]: ...

    def update(self, put: Sequence[IndexedSkill], remove: Sequence[SkillKey]) -> None: ...

    def vector_search(self, vector: Sequence[float], k: int) -> list[SkillKey]: ...

    def keyword_search(self, text: str, k: int) -> list[SkillKey]: ...


class SkillReviewer(Protocol):
    """The LLM port's review duty: read a session's events and propose the procedures it wrote up.
    Proposals must be grounded: an implementation is text an event contains, never invented."""

    def propose_skills(self, events: Sequence[Event]) -> Proposals: ...
