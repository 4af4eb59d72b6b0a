"""Procedural tier models: functions and guidance as written (specs) and as stored, and the links
between them. Links live in the store, not in either body: a function's `guidance_ids` and a
guidance's `function_ids` are both read from the same link rows, so the two sides cannot disagree."""

from __future__ import annotations

import hashlib
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentmem.errors import InvalidInputError
from agentmem.model.common import Identifier
from agentmem.model.dependents import BeliefRef, Staleness

MAX_IMPLEMENTATION_BYTES = 64 * 1024
"""Implementations larger than this (UTF-8) are refused; larger bodies belong in the blob store."""

SkillKind = Literal["function", "guidance"]


class SkillStatus(StrEnum):
    DRAFT = "draft"
    APPROVED = "approved"


def implementation_hash(implementation: str) -> str:
    """sha256 hex of the UTF-8 implementation: what tells a rewrite from a restatement."""
    return hashlib.sha256(implementation.encode("utf-8")).hexdigest()


class FunctionSpec(BaseModel):
    """A function as an author writes it. Writing it again with the same id makes a new version."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    function_id: Identifier
    name: str = Field(min_length=1, max_length=200)
    signature: str = Field(default="", max_length=2000)
    docstring: str = Field(default="", max_length=20_000)
    implementation: str = Field(description=f"Source code, at most {MAX_IMPLEMENTATION_BYTES} bytes UTF-8.")
    language: str = Field(default="python", min_length=1, max_length=40)
    depends_on: list[Identifier] = Field(default_factory=list, description="Ids of functions it calls.")
    tags: list[str] = Field(default_factory=list)
    status: SkillStatus = SkillStatus.DRAFT
    author: str = Field(default="", max_length=200)

    @field_validator("depends_on", "tags")
    @classmethod
    def _unique(cls, ids: list[str]) -> list[str]:
        """Drop repeats, keeping first occurrences in order."""
        return list(dict.fromkeys(ids))

    def check_size(self) -> None:
        """Raise InvalidInputError naming `implementation` when it is over the size limit."""
        size = len(self.implementation.encode("utf-8"))
        if size > MAX_IMPLEMENTATION_BYTES:
            raise InvalidInputError(
                f"implementation is {size} bytes, over the limit of {MAX_IMPLEMENTATION_BYTES}; "
                "store larger bodies in the blob store",
                field="implementation",
            )


class Function(FunctionSpec):
    """A stored function: its spec plus version, hash, timestamps and the guidance that links it."""

    version: int = Field(ge=1)
    impl_hash: str = Field(description="sha256 hex of the implementation.")
    created_at: str
    updated_at: str
    guidance_ids: list[str] = Field(default_factory=list)


class GuidanceImage(BaseModel):
    """An image stored by reference in the blob store, aligned to a place in the text."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    blob_uri: str = Field(min_length=1, max_length=1000)
    alt: str = Field(default="", max_length=1000)
    anchor: str = Field(default="", max_length=200, description="Where in the content it belongs.")


class GuidanceSpec(BaseModel):
    """Guidance as an author writes it: markdown that refers to functions by id."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    guidance_id: Identifier
    title: str = Field(min_length=1, max_length=500)
    content: str = Field(default="", max_length=200_000, description="Markdown.")
    images: list[GuidanceImage] = Field(default_factory=list)
    function_ids: list[Identifier] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    status: SkillStatus = SkillStatus.DRAFT
    author: str = Field(default="", max_length=200)
    cites: list[BeliefRef] = Field(
        default_factory=list,
        max_length=50,
        exclude_if=lambda value: not value,  # absent when empty: stored and answered as before
        description="Beliefs it is built on (a subject's fact key): it goes stale when one changes.",
    )

    @field_validator("function_ids", "tags")
    @classmethod
    def _unique(cls, ids: list[str]) -> list[str]:
        """Drop repeats, keeping first occurrences in order."""
        return list(dict.fromkeys(ids))


class Guidance(GuidanceSpec):
    """Stored guidance: its spec plus version and timestamps. `function_ids` reflects the links
    as they stand now (a deleted or dropped function is gone from it)."""

    version: int = Field(ge=1)
    created_at: str
    updated_at: str


class GuidanceRead(Guidance):
    """`GET /v1/guidance/{id}`: the guidance and what changed under the beliefs it cites."""

    stale: list[Staleness] = Field(
        default_factory=list, description="Each cited belief that changed since this version was written."
    )


class Link(BaseModel):
    """One guidance-to-function reference. `needs_review` is set when the function's
    implementation changes, and cleared by confirming the link."""

    model_config = ConfigDict(frozen=True)

    guidance_id: str
    function_id: str
    needs_review: bool = False


class ProposedFunction(BaseModel):
    """A function as the reviewer found it in the log: named, with the names it calls."""

    name: str = Field(min_length=1, max_length=200)
    signature: str = ""
    docstring: str = ""
    implementation: str = Field(min_length=1)
    language: str = "python"
    calls: list[str] = Field(default_factory=list, description="Names (or library ids) it depends on.")
    tags: list[str] = Field(default_factory=list)
    source_seq: int = Field(ge=1, description="The event it came from.")


class ProposedGuidance(BaseModel):
    """A written-up procedure: markdown that uses functions by name."""

    title: str = Field(min_length=1, max_length=500)
    content: str = ""
    uses: list[str] = Field(default_factory=list, description="Names (or library ids) of functions.")
    tags: list[str] = Field(default_factory=list)
    source_seq: int = Field(ge=1)


class Proposals(BaseModel):
    functions: list[ProposedFunction] = Field(default_factory=list)
    guidance: list[ProposedGuidance] = Field(default_factory=list)
