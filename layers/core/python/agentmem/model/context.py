"""`POST /v1/context`: a budgeted slice of shared memory for one agent's next prompt."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agentmem.model.common import Identifier
from agentmem.model.projection import ProjectionLag
from agentmem.model.watermark import MAX_TOKEN_CHARS, TOKEN_PATTERN, SinceReport

MAX_BUDGET = 50_000
Source = Literal["episodic", "semantic", "history", "skills"]


class ContextRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subject_id: Identifier
    session_id: Identifier
    agent: Identifier
    query: str = Field(min_length=1, max_length=8000, pattern=r"\S")
    budget_tokens: int = Field(default=3000, ge=1, le=MAX_BUDGET)
    split: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Unset (the default): every source asked for competes in one ranking by the"
        " query, and the budget goes down that ranking whatever the source. A number: the episodic"
        " share of the budget; the other sources asked for share the rest evenly, and what a source"
        " leaves unused flows to the others.",
    )
    encoding: Literal["o200k_base", "cl100k_base"] = "o200k_base"
    include: list[Source] = Field(
        default=["episodic", "semantic", "history"],
        min_length=1,
        description="Sources to read: this session's events (episodic), current beliefs (semantic),"
        " the subject's earlier sessions as passages (history), authored skills (skills).",
    )
    since: str | None = Field(
        default=None,
        max_length=MAX_TOKEN_CHARS,
        pattern=TOKEN_PATTERN,
        description="A watermark from an earlier read's `trace.watermark` (same subject; any of its"
        " sessions). The answer then leads with what changed after it: this session's new events,"
        " beliefs whose version moved (old -> new, flagged when contradicted), beliefs first stated,"
        " retired or gone, and history passages newly labelled superseded; then the rest of the"
        " budget as without it. Changes are never dropped for budget before unchanged items.",
    )


class ContextItem(BaseModel):
    item_id: str
    source: str
    level: str = Field(description="full, short or identity: how much detail survived the budget.")
    tokens: int
    score: float
    ref: dict[str, Any]


class DroppedItem(BaseModel):
    item_id: str
    source: str
    reason: str


class EpisodicWindow(BaseModel):
    """Which of the session's events the read ranked: the newest `size` at most, so read latency
    never grows with the session; what lay outside is counted, never silently left out."""

    size: int = Field(description="The most events one read ranks: the session's newest.")
    ranked: int = Field(description="Events in the window this read.")
    first_seq: int | None = Field(description="Oldest seq in the window (None: no events).")
    last_seq: int | None = Field(description="Newest seq in the window.")
    outside: int = Field(description="Older events of the session, not ranked by this read.")
    outside_seqs: tuple[int, int] | None = Field(
        description="Their seq range [first, last], inclusive, or None when nothing lay outside."
    )


class ContextTrace(BaseModel):
    budget_tokens: int
    used_tokens: int
    encoding: str
    log_watermark_seq: int = Field(description="The last seq of this session that the read saw.")
    episodic_window: EpisodicWindow | None = Field(
        default=None, description="The session events the read ranked; None when episodic was not asked for."
    )
    belief_generation: int | None
    passage_generation: int | None = Field(
        default=None, description="The history passage generation read; None when history was not read."
    )
    history_pending_vectors: int | None = Field(
        default=None,
        description="The subject's history passages not embedded yet: keyword search found them,"
        " vector search could not. None when history was not read.",
    )
    belief_versions: dict[str, int] = Field(description="doc_id -> version of every belief used.")
    tokens_by_source: dict[str, int]
    candidates_by_source: dict[str, int]
    dropped: list[DroppedItem]
    notes: list[str]
    watermark: str = Field(
        default="",
        description="Pass as `since` on a later read to lead it with what changed after this one"
        " (docs/since-reads.md).",
    )
    since: SinceReport | None = Field(default=None, description="Set when the read was given `since`.")
    new_since: list[str] | None = Field(
        default=None,
        description="Item ids placed because they changed after `since` (also `ref.since` on each"
        " item); None when the read had no `since`.",
    )
    projection_lag: ProjectionLag | None = Field(
        default=None,
        description="Set only while projection is failing: since when, why, and how far the beliefs"
        " lag the log. This session's events and the history passages are still read.",
    )


class ContextResponse(BaseModel):
    markdown: str
    items: list[ContextItem]
    trace: ContextTrace
