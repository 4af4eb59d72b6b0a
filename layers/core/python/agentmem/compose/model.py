"""Composer models: knowledge assets, authored skills with a scope over them, and compose requests.

An asset's path is hierarchical, `/`-separated; its first three levels are integration, selection
and object, and anything deeper is detail (`warehouse/analytics/dim_customers_v3/columns/id`).
A skill keeps only intent, procedure, output contract, guardrails and a scope: the facts are
resolved against the live catalogue on every compose."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, field_validator

from agentmem.model.common import Identifier
from agentmem.model.dependents import BeliefRef, Staleness

MAX_CITES = 50


def _empty(value: object) -> bool:
    return not value  # left out of JSON when empty, so assets citing nothing are stored as before


MAX_ASSETS_PER_PUT = 99
"""One DynamoDB transaction holds at most 100 writes: 99 assets and the catalogue's revision. Every
backend takes the same bulk size, so a client written against one works against the other."""
DEFAULT_BUDGET = 15_000
BUDGET_CEILING = 50_000
MAX_DEPTH = 12
SEGMENT = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
LEVEL_NAMES = ("integration", "selection", "object", "detail")


def _valid_path(path: str) -> str:
    segments = path.split("/")
    if len(segments) > MAX_DEPTH:
        raise ValueError(f"a path has at most {MAX_DEPTH} levels")
    for segment in segments:
        if not SEGMENT.match(segment) or segment in (".", ".."):
            raise ValueError(f"path segment {segment!r} must match [A-Za-z0-9_.-]{{1,128}}")
    return path


AssetPath = Annotated[str, StringConstraints(min_length=1, max_length=1024), AfterValidator(_valid_path)]


def level_of(path: str) -> str:
    """integration, selection, object or detail, by depth."""
    return LEVEL_NAMES[min(path.count("/"), len(LEVEL_NAMES) - 1)]


class Asset(BaseModel):
    """One piece of an organisation's knowledge, as its owner publishes it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    asset_id: Identifier
    path: AssetPath
    kind: Identifier = Field(description="table, column, wiki_page, note, saved_query, thread, ...")
    title: str = Field(min_length=1, max_length=500)
    body: str = Field(default="", max_length=4000, description="A short description.")
    payload: dict[str, Any] = Field(default_factory=dict, description="The full content, by kind.")
    principals: list[Identifier] = Field(min_length=1, max_length=50, description="Who may read it.")
    deprecated: bool = False
    updated_at: datetime
    cites: list[BeliefRef] = Field(
        default_factory=list,
        max_length=MAX_CITES,
        exclude_if=_empty,
        description="Beliefs it is built on: it goes stale when one of them changes.",
    )

    @field_validator("principals")
    @classmethod
    def _unique(cls, principals: list[str]) -> list[str]:
        return sorted(set(principals))


class StoredAsset(Asset):
    """An asset as the catalogue holds it: `change_seq` is the catalogue revision of its last write."""

    change_seq: int = Field(ge=1)


class AssetRead(StoredAsset):
    """`GET /v1/assets/{id}`: the stored asset and what changed under the beliefs it cites."""

    stale: list[Staleness] = Field(
        default_factory=list, description="Each cited belief that changed since it was written."
    )


class AssetHeader(BaseModel):
    """What scope resolution and permission checks need, without the payload."""

    model_config = ConfigDict(frozen=True)

    asset_id: str
    path: str
    kind: str
    title: str
    principals: tuple[str, ...]
    deprecated: bool
    change_seq: int
    cites: tuple[BeliefRef, ...] = Field(default=(), exclude_if=_empty)


class PutAssetsRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    assets: list[Asset] = Field(min_length=1, max_length=MAX_ASSETS_PER_PUT)

    @field_validator("assets")
    @classmethod
    def _distinct(cls, assets: list[Asset]) -> list[Asset]:
        seen: set[str] = set()
        for asset in assets:
            if asset.asset_id in seen:
                raise ValueError(f"asset_id {asset.asset_id!r} appears twice")
            seen.add(asset.asset_id)
        return assets


class PutAssetsResponse(BaseModel):
    written: int
    revision: int = Field(description="The catalogue revision after this write.")


class Scope(BaseModel):
    """An authored scope: path globs (`*` one segment, `**` any number of segments) and ids."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    include: list[str] = Field(default_factory=list, max_length=100)
    exclude: list[str] = Field(default_factory=list, max_length=100)
    static_ids: list[Identifier] = Field(default_factory=list, max_length=500)


class ComposerSkillSpec(BaseModel):
    """A skill as an author writes it (`PUT /v1/skills/{skill_id}`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    intent: str = Field(min_length=1, max_length=4000)
    procedure: str = Field(default="", max_length=20_000)
    output_contract: str = Field(default="", max_length=8000)
    guardrails: str = Field(default="", max_length=8000)
    scope: Scope
    budget_tokens: int = Field(default=DEFAULT_BUDGET, ge=200, le=BUDGET_CEILING)


class ComposerSkill(ComposerSkillSpec):
    skill_id: str
    version: int = Field(ge=1)
    updated_at: str


class ComposeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=4000, pattern=r"\S")  # blank: nothing to embed
    budget_tokens: int | None = Field(default=None, ge=200, le=BUDGET_CEILING)
    conversation_id: Identifier | None = None
