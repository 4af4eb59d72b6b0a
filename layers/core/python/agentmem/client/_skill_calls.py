"""The API calls of the procedural tier and the composer, as programs both clients run."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agentmem.client._program import ApiRequest, Program, path_segment
from agentmem.compose.model import (
    MAX_ASSETS_PER_PUT,
    Asset,
    ComposerSkill,
    ComposerSkillSpec,
    PutAssetsResponse,
)
from agentmem.compose.report import ComposeResponse
from agentmem.procedural.model import Function, FunctionSpec, Guidance, GuidanceSpec
from agentmem.procedural.review import ReviewResponse
from agentmem.procedural.search_models import SkillSearchResponse

# -- procedural tier ----------------------------------------------------------------------------


def put_function(spec: FunctionSpec) -> Program[Function]:
    path = f"/v1/functions/{path_segment(spec.function_id)}"
    return Function.model_validate((yield ApiRequest("PUT", path, spec.model_dump(mode="json"))))


def put_guidance(spec: GuidanceSpec) -> Program[Guidance]:
    path = f"/v1/guidance/{path_segment(spec.guidance_id)}"
    return Guidance.model_validate((yield ApiRequest("PUT", path, spec.model_dump(mode="json"))))


def approve_function(function_id: str) -> Program[Function]:
    path = f"/v1/functions/{path_segment(function_id)}/approve"
    return Function.model_validate((yield ApiRequest("POST", path)))


def approve_guidance(guidance_id: str) -> Program[Guidance]:
    path = f"/v1/guidance/{path_segment(guidance_id)}/approve"
    return Guidance.model_validate((yield ApiRequest("POST", path)))


def search_skills(task: str, *, k: int = 5, budget_tokens: int | None = None) -> Program[SkillSearchResponse]:
    body: dict[str, Any] = {"task": task, "k": k}
    if budget_tokens is not None:
        body["budget_tokens"] = budget_tokens
    return SkillSearchResponse.model_validate((yield ApiRequest("POST", "/v1/library/search", body)))


def review_session(session_id: str) -> Program[ReviewResponse]:
    """Draft skills proposed from the session's write-ups; nothing is searchable until approved."""
    answer = yield ApiRequest("POST", "/v1/library/review", {"session_id": session_id})
    return ReviewResponse.model_validate(answer)


# -- composer -----------------------------------------------------------------------------------


def put_assets(
    assets: Sequence[Asset], *, on_bulk: Callable[[int], None] | None = None
) -> Program[PutAssetsResponse]:
    """Write assets in bulks of the API's size (each bulk one transaction); returns the last
    bulk's answer, whose `revision` is the catalogue's after all of them. `on_bulk` hears how
    many each bulk wrote (agentmem.progress draws a bar from it)."""
    answer = PutAssetsResponse(written=0, revision=0)
    written = 0
    for start in range(0, len(assets), MAX_ASSETS_PER_PUT):
        bulk = [a.model_dump(mode="json") for a in assets[start : start + MAX_ASSETS_PER_PUT]]
        answer = PutAssetsResponse.model_validate((yield ApiRequest("PUT", "/v1/assets", {"assets": bulk})))
        written += answer.written
        if on_bulk is not None:
            on_bulk(answer.written)
    return answer.model_copy(update={"written": written})


def put_skill(skill_id: str, spec: ComposerSkillSpec) -> Program[ComposerSkill]:
    """An authored composer skill: intent, procedure, contract, guardrails and a scope."""
    path = f"/v1/skills/{path_segment(skill_id)}"
    return ComposerSkill.model_validate((yield ApiRequest("PUT", path, spec.model_dump(mode="json"))))


def compose(
    skill_id: str,
    question: str,
    *,
    budget_tokens: int | None = None,
    conversation_id: str | None = None,
) -> Program[ComposeResponse]:
    """The skill's document for this question, within the budget, and the report of how."""
    body: dict[str, Any] = {"question": question}
    optional = {"budget_tokens": budget_tokens, "conversation_id": conversation_id}
    body.update({k: v for k, v in optional.items() if v is not None})
    path = f"/v1/skills/{path_segment(skill_id)}/compose"
    return ComposeResponse.model_validate((yield ApiRequest("POST", path, body)))
