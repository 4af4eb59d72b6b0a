"""Request and response bodies of `POST /v1/library/search`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentmem.model.context import MAX_BUDGET
from agentmem.procedural.model import Function, Guidance

MAX_K = 50
"""The ceiling on `k`: each ranker reads 3k items deep, so k bounds a search's cost."""


class SkillSearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task: str = Field(
        min_length=1, max_length=4000, pattern=r"\S", description="What the agent is about to do."
    )
    k: int = Field(
        default=5,
        ge=1,
        le=MAX_K,
        description=f"At most this many functions and this many guidance: 1 to {MAX_K} (more is a 422).",
    )
    budget_tokens: int | None = Field(
        default=None,
        ge=1,
        le=MAX_BUDGET,
        description="When given, the answer carries `markdown` rendering the found items within it.",
    )


class FunctionHit(Function):
    score: float = Field(description="Fused RRF score.")
    closure: list[str] = Field(description="Ids of the function and its dependencies, dependencies first.")


class GuidanceHit(Guidance):
    score: float = Field(description="Fused RRF score.")


class FusedRank(BaseModel):
    item_id: str = Field(description="`function:{id}` or `guidance:{id}`.")
    rank: int
    score: float
    ranks: dict[str, int] = Field(description="Its rank in each ranker that found it.")


class SearchDropped(BaseModel):
    item_id: str
    reason: str


class SkillSearchTrace(BaseModel):
    candidates: dict[str, list[str]] = Field(description="Item ids each ranker found, best first.")
    fused: list[FusedRank]
    dropped: list[SearchDropped]
    keyword_gate: str = Field(
        default="", description="Whether the keyword ranker was trusted in the fusion, and why."
    )


class SkillSearchResponse(BaseModel):
    functions: list[FunctionHit]
    guidance: list[GuidanceHit]
    trace: SkillSearchTrace
    markdown: str | None = Field(default=None, description="Only when `budget_tokens` was given.")
    used_tokens: int | None = None
