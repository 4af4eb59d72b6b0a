"""Semantic tier models: declared fact types, observed statements, and the beliefs folded from them."""

from __future__ import annotations

import re
import unicodedata
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from agentmem.model.common import Identifier

FactKey = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,63}$")]
"""A fact key: lower snake case, e.g. `risk_tolerance`."""


def _absent(value: object) -> bool:
    return value is None


class Cardinality(StrEnum):
    SINGLE = "single"
    SET = "set"


class Verdict(StrEnum):
    NEW = "NEW"  # first statement under this key (or a new member of a set key)
    SAME = "SAME"  # restates the current belief: provenance grows, no new version
    UPDATE = "UPDATE"  # refines or revises it: the old version is archived
    CONFLICT = "CONFLICT"  # contradicts it: archived, superseded, and flagged


class FactType(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    key: FactKey
    cardinality: Cardinality = Cardinality.SINGLE
    description: str = Field(default="", max_length=500)


class FactInput(BaseModel):
    """A fact an agent states explicitly on an event ("bring your own structure")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: FactKey
    text: str = Field(min_length=1, max_length=2000, description="A self-contained sentence.")
    value: str | None = Field(default=None, min_length=1, max_length=500, description="The bare value.")
    member: Identifier | None = Field(default=None, description="Member id for set-valued keys.")


class ExtractedFact(FactInput):
    """A fact extraction found in an event's content. Its key may be one nobody declared: the
    extractor then proposes the key's cardinality and a short description of what it holds, and
    the projector's key resolver maps it onto an existing key of the subject when they mean the
    same thing. For a declared key both are ignored: the declaration wins."""

    cardinality: Cardinality = Cardinality.SINGLE
    description: str = Field(default="", max_length=500)
    replaces: str | None = Field(
        default=None,
        max_length=500,
        exclude_if=_absent,
        description='The value the statement says is no longer true, when it names one ("we moved from '
        'Porto to Lisbon": Porto).',
    )


class KeyProposal(BaseModel):
    """An extracted fact's key, as the key resolver asks the LLM port about it."""

    model_config = ConfigDict(frozen=True)

    key: str
    description: str
    text: str
    value: str
    cardinality: Cardinality


class KeyCandidate(BaseModel):
    """A key the subject already has (or a declared one) that may mean what a proposal means."""

    model_config = ConfigDict(frozen=True)

    key: str
    description: str
    example: str = Field(description="The first sentence stated under the key, or empty.")
    cardinality: Cardinality
    declared: bool
    score: float = Field(description="Cosine similarity to the proposal: how it was shortlisted.")


class KeyChoice(BaseModel):
    """The LLM port's answer: the candidate meaning the same as the proposal, or None for none."""

    model_config = ConfigDict(frozen=True)

    key: str | None
    reason: str


class Observation(BaseModel):
    """One statement of one fact by one event. Beliefs are a deterministic fold of these, sorted by
    `order`, which is what makes projection idempotent and independent of delivery order."""

    model_config = ConfigDict(frozen=True)

    subject_id: str
    key: str
    member: str = ""
    text: str
    value: str
    order: str = Field(description="Total order over the log: created_at|session_id|seq.")
    event_id: str
    session_id: str
    seq: int
    stated_at: str
    proposed_key: str | None = Field(
        default=None, description="The key extraction proposed, when `key` came from the key resolver."
    )
    key_reason: str | None = Field(default=None, description="Why the resolver chose `key`.")
    replaces: str | None = Field(
        default=None,
        exclude_if=_absent,  # absent from stored JSON, so chains without it stay byte-identical
        description="The value this statement says is no longer true, when it names one.",
    )


class Provenance(BaseModel):
    model_config = ConfigDict(frozen=True)

    session_id: str
    event_id: str
    seq: int
    value: str
    replaces: str | None = Field(
        default=None,
        exclude_if=_absent,
        description="The value this statement said is no longer true, when it named one.",
    )


class PriorValue(BaseModel):
    """What a flagged belief replaced, so a reader can say "changed from X (S1) to Y (S2)"."""

    model_config = ConfigDict(frozen=True)

    value: str
    text: str
    session_ids: list[str]
    until: str


class Belief(BaseModel):
    model_config = ConfigDict(frozen=True)

    subject_id: str
    key: str
    member: str = ""
    doc_id: str = Field(
        description="The bare key (`key` or `key#member`) when current; `<that>@v<N>` when archived."
    )
    text: str = Field(description="The fact sentence: self-contained, and the only field embedded.")
    value: str
    version: int
    current: bool
    flag: bool = Field(description="True when this version contradicted the one before it.")
    verdict: Verdict
    previous: PriorValue | None = None
    provenance: list[Provenance]
    valid_from: str
    valid_to: str | None = None
    source_seq: int = Field(description="seq of the last event applied to this version.")
    source_order: str


class BeliefHit(BaseModel):
    model_config = ConfigDict(frozen=True)

    belief: Belief
    score: float
    source: Literal["vector", "keyword"]


NOT_VALUE_CHARS = re.compile(r"[^a-z0-9.%$ ]+")  # compiled once: a read normalises hundreds of values


def normalise_value(value: str) -> str:
    """Casefolded, accent-free, punctuation-free, single-spaced: what "the same value" compares."""
    text = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii").casefold()
    return " ".join(NOT_VALUE_CHARS.sub(" ", text).split())


def member_id(value: str) -> str:
    """A stable member id for a set-valued key, from its normalised value."""
    return "-".join(normalise_value(value).replace(".", " ").split())[:128] or "member"


# Neither a fact key ([a-z0-9_]) nor a member (an Identifier, [A-Za-z0-9._:-], or `member_id`'s
# [a-z0-9%$-]) can hold `#` or `@`, so `key#member` names one chain and `<id>@v<N>` one archived
# version of it: no key, however it is spelled, can take an archived version's identity.
MEMBER_MARK, ARCHIVE_MARK = "#", "@"


def belief_id(key: str, member: str) -> str:
    """The doc id of a chain's current version. Refuses a key or member holding a separator:
    with one, a chain could take another chain's (or an archived version's) identity."""
    if any(mark in part for part in (key, member) for mark in (MEMBER_MARK, ARCHIVE_MARK)):
        raise ValueError(f"fact key {key!r} / member {member!r} holds a reserved character (# or @)")
    return f"{key}{MEMBER_MARK}{member}" if member else key


def archived_id(key: str, member: str, version: int) -> str:
    """The doc id of an archived version: disjoint from every current doc id (see ARCHIVE_MARK)."""
    return f"{belief_id(key, member)}{ARCHIVE_MARK}v{version}"
