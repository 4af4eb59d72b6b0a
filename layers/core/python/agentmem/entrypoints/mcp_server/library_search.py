"""`search_functions` and `search_guidance`: one library each, from the one search of both.

The skill search ranks both libraries as peers in one fusion (`POST /v1/library/search`); each tool
keeps its library's side of that answer: its hits, and the trace entries about its items (ranked
within the library). With `budget_tokens`, the kept hits alone are packed by the same engine and
tokenizer the search uses, so the markdown of one library never spends the budget on the other."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from agentmem.adapters.tokens import count_tokens
from agentmem.entrypoints.mcp_server.backend import MemoryBackend
from agentmem.procedural.search import pack_hits
from agentmem.procedural.search_models import (
    FunctionHit,
    GuidanceHit,
    SearchDropped,
    SkillSearchRequest,
    SkillSearchResponse,
    SkillSearchTrace,
)

Kind = Literal["function", "guidance"]


class FunctionSearchResult(BaseModel):
    functions: list[FunctionHit]
    trace: SkillSearchTrace = Field(description="The search's trace, about functions only.")
    markdown: str | None = Field(default=None, description="Only when `budget_tokens` was given.")
    used_tokens: int | None = None


class GuidanceSearchResult(BaseModel):
    guidance: list[GuidanceHit]
    trace: SkillSearchTrace = Field(description="The search's trace, about guidance only.")
    markdown: str | None = Field(default=None, description="Only when `budget_tokens` was given.")
    used_tokens: int | None = None


def _trace_of(trace: SkillSearchTrace, kind: Kind) -> SkillSearchTrace:
    prefix = f"{kind}:"
    fused = [f for f in trace.fused if f.item_id.startswith(prefix)]
    return trace.model_copy(
        update={
            "candidates": {
                ranker: [i for i in ids if i.startswith(prefix)] for ranker, ids in trace.candidates.items()
            },
            "fused": [f.model_copy(update={"rank": rank}) for rank, f in enumerate(fused, start=1)],
            "dropped": [d for d in trace.dropped if d.item_id.startswith(prefix)],
        }
    )


def _unbudgeted(backend: MemoryBackend, request: SkillSearchRequest) -> SkillSearchResponse:
    # The budget is spent on one library's hits (`_packed`), not on both.
    return backend.search_skills(request.model_copy(update={"budget_tokens": None}))


def _packed(
    hits: list[FunctionHit] | list[GuidanceHit], trace: SkillSearchTrace, budget: int | None
) -> tuple[SkillSearchTrace, str | None, int | None]:
    if budget is None:
        return trace, None, None
    packed = pack_hits(hits, budget, count_tokens)
    dropped = [SearchDropped(item_id=d.item_id, reason=d.reason) for d in packed.dropped]
    return trace.model_copy(update={"dropped": [*trace.dropped, *dropped]}), packed.markdown, packed.tokens


def search_functions(backend: MemoryBackend, request: SkillSearchRequest) -> FunctionSearchResult:
    response = _unbudgeted(backend, request)
    trace, markdown, used = _packed(
        response.functions, _trace_of(response.trace, "function"), request.budget_tokens
    )
    return FunctionSearchResult(
        functions=response.functions, trace=trace, markdown=markdown, used_tokens=used
    )


def search_guidance(backend: MemoryBackend, request: SkillSearchRequest) -> GuidanceSearchResult:
    response = _unbudgeted(backend, request)
    trace, markdown, used = _packed(
        response.guidance, _trace_of(response.trace, "guidance"), request.budget_tokens
    )
    return GuidanceSearchResult(guidance=response.guidance, trace=trace, markdown=markdown, used_tokens=used)
