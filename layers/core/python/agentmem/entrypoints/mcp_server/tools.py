"""The MCP tools: each one's arguments and result are the HTTP API's pydantic models (the path
parameters of a route become fields beside its body), so the JSON schemas a client lists are
generated from the very models the API validates with, and a result carries the same budgets and
traces as the API's answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from agentmem.access import Caller, may_append_events
from agentmem.compose.model import ComposeRequest
from agentmem.compose.report import ComposeResponse
from agentmem.entrypoints.mcp_server.backend import MemoryBackend
from agentmem.entrypoints.mcp_server.library_search import (
    FunctionSearchResult,
    GuidanceSearchResult,
    search_functions,
    search_guidance,
)
from agentmem.model.api_beliefs import BeliefChainView, BeliefSearchRequest, BeliefSearchResponse
from agentmem.model.common import Identifier
from agentmem.model.context import ContextRequest, ContextResponse
from agentmem.model.events import AppendEventRequest, AppendEventResponse
from agentmem.procedural.model import Guidance, SkillKind
from agentmem.procedural.review import ReviewRequest, ReviewResponse
from agentmem.procedural.search_models import SkillSearchRequest

FactKey = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,63}$")]


class MemoryAppendArgs(AppendEventRequest):
    """`POST /v1/sessions/{session_id}/events`: the path's session id beside the body."""

    session_id: Identifier = Field(description="The session the event belongs to.")

    def request(self) -> AppendEventRequest:
        return AppendEventRequest.model_validate(self.model_dump(exclude={"session_id"}, exclude_unset=True))


class BeliefsSearchArgs(BeliefSearchRequest):
    subject_id: Identifier


class BeliefHistoryArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subject_id: Identifier
    key: FactKey = Field(description="The fact key, e.g. risk_tolerance.")


class FunctionArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    function_id: Identifier


class GuidanceArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    guidance_id: Identifier


class ReviewArgs(ReviewRequest):
    model_config = ConfigDict(extra="forbid")


class ComposeSkillArgs(ComposeRequest):
    """`POST /v1/skills/{skill_id}/compose`. No principals: they are the server's identity."""

    skill_id: Identifier

    def request(self) -> ComposeRequest:
        return ComposeRequest.model_validate(self.model_dump(exclude={"skill_id"}, exclude_unset=True))


Run = Callable[[MemoryBackend, Any, Caller], BaseModel]
Permitted = Callable[[Caller], bool]


def _anyone(caller: Caller) -> bool:
    return True


def _writer(caller: Caller) -> bool:
    return caller.is_writer


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    arguments: type[BaseModel]
    result: type[BaseModel]
    run: Run
    permitted: Permitted = _anyone
    """Whether a caller may have the tool at all: the access rule of the API route it stands for."""
    writes: bool = False
    """Hidden on a server started --read-only, whoever the caller."""
    searches: SkillKind | None = None
    """The library this tool searches: the gate waits for it when that library has entries."""
    procedural: bool = False
    """Needs the procedural tier (functions and guidance)."""

    def input_schema(self) -> dict[str, Any]:
        return self.arguments.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        return self.result.model_json_schema(mode="serialization")


def _closure_result() -> type[BaseModel]:
    from agentmem.api.routes.library import FunctionClosure

    return FunctionClosure


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "search_functions",
        "Find approved functions of the skill library for a task, by meaning and by keyword. Each "
        "arrives with its dependency closure (ids, dependencies first) and the guidance that links "
        "it. With budget_tokens, `markdown` renders the found functions within that budget.",
        SkillSearchRequest,
        FunctionSearchResult,
        lambda backend, args, caller: search_functions(backend, args),
        searches="function",
        procedural=True,
    ),
    ToolSpec(
        "search_guidance",
        "Find approved guidance (written procedures) for a task, by meaning and by keyword. Each "
        "names the functions it uses. With budget_tokens, `markdown` renders them within it.",
        SkillSearchRequest,
        GuidanceSearchResult,
        lambda backend, args, caller: search_guidance(backend, args),
        searches="guidance",
        procedural=True,
    ),
    ToolSpec(
        "memory_context",
        "Read the ranked slice of shared memory for your next step, packed into budget_tokens "
        "(counted exactly): this session's events, the subject's current beliefs and its earlier "
        "sessions. The trace says what each source contributed and what was dropped, and why. "
        "Pass an earlier read's trace.watermark as since to lead with what changed after it.",
        ContextRequest,
        ContextResponse,
        lambda backend, args, caller: backend.context(args),
    ),
    ToolSpec(
        "beliefs_search",
        "Search a subject's current beliefs by meaning.",
        BeliefsSearchArgs,
        BeliefSearchResponse,
        lambda backend, args, caller: backend.search_beliefs(
            args.subject_id, BeliefSearchRequest(query=args.query, k=args.k)
        ),
    ),
    ToolSpec(
        "belief_history",
        "A fact key's current belief and every archived version, oldest first, with contradiction "
        "flags and provenance.",
        BeliefHistoryArgs,
        BeliefChainView,
        lambda backend, args, caller: backend.belief_history(args.subject_id, args.key),
    ),
    ToolSpec(
        "get_function",
        "A function with its dependency closure: dependencies first, each after its own, the "
        "function itself last, ready to run together.",
        FunctionArgs,
        _closure_result(),
        lambda backend, args, caller: backend.function_closure(args.function_id),
        procedural=True,
    ),
    ToolSpec(
        "get_guidance",
        "A guidance document in full (markdown), with the ids of the functions it uses.",
        GuidanceArgs,
        Guidance,
        lambda backend, args, caller: backend.guidance(args.guidance_id),
        procedural=True,
    ),
    ToolSpec(
        "compose_skill",
        "Compose an authored skill's document for one question under a token budget (default the "
        "skill's, at most 50,000), with a report of what ran, what was cut and why. It reads what "
        "this server's identity may read; that cannot be changed from here.",
        ComposeSkillArgs,
        ComposeResponse,
        lambda backend, args, caller: backend.compose(args.skill_id, args.request(), caller),
    ),
    ToolSpec(
        "memory_append",
        "Append your output to the session's shared log; the ack means it is durable. Send `facts` "
        "to state beliefs explicitly; an idempotency_key makes a retry append nothing twice.",
        MemoryAppendArgs,
        AppendEventResponse,
        lambda backend, args, caller: backend.append(args.session_id, args.request()),
        permitted=may_append_events,
        writes=True,
    ),
    ToolSpec(
        "review_session",
        "Propose draft skills from what a session wrote up (events of kinds code and procedure). "
        "Drafts are never found by search until someone approves them.",
        ReviewArgs,
        ReviewResponse,
        lambda backend, args, caller: backend.review(ReviewRequest(session_id=args.session_id), caller),
        permitted=_writer,
        writes=True,
        procedural=True,
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}
SEARCHES = tuple(tool.name for tool in TOOLS if tool.searches)


def searches_of(stocked: frozenset[SkillKind]) -> tuple[str, ...]:
    """The gate's ask for libraries `stocked` with entries: the search of each, in list order."""
    return tuple(tool.name for tool in TOOLS if tool.searches is not None and tool.searches in stocked)
