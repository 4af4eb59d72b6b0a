"""Request and response bodies of the belief routes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agentmem.model.beliefs import Belief, BeliefHit
from agentmem.model.projection import ProjectionLag


class BeliefList(BaseModel):
    items: list[Belief]
    next: str | None = None


class BeliefChainView(BaseModel):
    key: str
    current: list[Belief] = Field(description="The current belief; several for a set-valued key.")
    history: list[Belief] | None = Field(description="Every version, oldest first, when history=true.")


class BeliefSearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=2000, pattern=r"\S")
    k: int = Field(default=5, ge=1, le=50)


class BeliefSearchResponse(BaseModel):
    items: list[BeliefHit]


class ConsistencySample(BaseModel):
    """A bounded reconciliation of the log against the beliefs (see `agentmem verify`)."""

    chains_checked: int
    citations_checked: int = Field(description="Statements cited by beliefs, each looked up in the log.")
    facts_checked: int = Field(description="Facts those events state, each looked for in its chain.")
    divergences: int


class DeepHealth(BaseModel):
    status: str = Field(description="ok, or failing with the reasons listed.")
    embedder: str
    generation: int
    subjects_checked: int
    problems: list[str]
    consistency: ConsistencySample | None = Field(
        default=None, description="The log checked against a sample of beliefs; None when not run."
    )
    projection: ProjectionLag | None = Field(
        default=None,
        description="Set while projection is failing (which makes the check fail): since when, why,"
        " and how far the beliefs lag the log.",
    )
