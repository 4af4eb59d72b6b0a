"""The report every composition returns: enough to answer "why didn't it know about X?" in a
five-minute read. It never names nor counts an asset the caller may not read (docs/access.md):
every count covers only what the caller may read, so a rule's matches do not reveal hidden ones."""

from __future__ import annotations

from pydantic import BaseModel, Field

from agentmem.model.dependents import Staleness


class ScopeReport(BaseModel):
    revision: int = Field(description="Catalogue revision the scope was resolved at.")
    assets: int = Field(
        description="Assets the scope admits that the caller may read (deprecated and excluded ones are out)."
    )
    rules: dict[str, int] = Field(
        description="Each rule (`include:<glob>`, `static:<id>`) and its matches the caller may read."
    )
    empty_rules: list[str] = Field(
        description="Rules that matched nothing the caller may read: they fail closed."
    )
    excluded: int = Field(description="Matches the caller may read that an exclude rule took out.")
    deprecated: int = Field(
        description="Matches the caller may read, out as deprecated (or under a deprecated asset)."
    )
    cached: bool = Field(description="Resolved scope reused (same skill version and catalogue revision).")


class StrategyReport(BaseModel):
    name: str
    fired: bool
    why: str = Field(description="The predicate's reason to fire, or why it did not.")
    candidates: int
    ms: float
    timed_out: bool = False


class SectionReport(BaseModel):
    rank: int
    path: str
    heading: str
    score: float
    items: list[str] = Field(description="Asset ids of its members, in rank order.")
    estimated_tokens: int = Field(description="Members at full detail, before the cut.")
    rendered_tokens: int
    levels: dict[str, int] = Field(description="Asset id -> render level placed (0 = full).")
    exploded_from: str | None = Field(default=None, description="The section it was split out of.")
    above_cut: bool = Field(description="Every member placed at full detail.")


class DroppedAsset(BaseModel):
    asset_id: str
    reason: str
    stage: str = Field(description="scope, permission, routing, budget, conversation ...")


class ComposeReport(BaseModel):
    skill_id: str
    skill_version: int
    budget_tokens: int
    used_tokens: int
    encoding: str
    principals: list[str]
    scope: ScopeReport
    strategies: list[StrategyReport]
    route: str = Field(description="fetch_whole, llm_filter, rerank or vector_rerank, by candidate count.")
    candidates: int
    rankers: dict[str, list[str]] = Field(description="Each ranker's list, best first (top 20 shown).")
    sections: list[SectionReport]
    cut_line: int | None = Field(description="Rank of the last section placed whole at full detail.")
    dropped: list[DroppedAsset]
    offloaded: list[dict[str, str | int]] = Field(default_factory=list)
    template_misses: list[dict[str, str]] = Field(default_factory=list)
    shadow_mismatches: list[dict[str, str]] = Field(default_factory=list)
    already_sent: list[str] = Field(
        default_factory=list, description="Unchanged since sent in this conversation."
    )
    truncated: bool = Field(
        description="The budget cut dropped or shortened something: guardrail event emitted."
    )
    cache: dict[str, bool] = Field(default_factory=dict)
    ms: dict[str, float] = Field(default_factory=dict)
    stale: list[Staleness] = Field(
        default_factory=list,
        description="Beliefs the document's assets cite that changed since they (or it) were built.",
    )


class ComposeResponse(BaseModel):
    markdown: str
    report: ComposeReport
