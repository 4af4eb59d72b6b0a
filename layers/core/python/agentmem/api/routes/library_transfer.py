"""Routes that move skills in and out of the procedural tier: review of a session into drafts,
and import and export of Agent Skills folders (as zips, base64 in JSON, since every route speaks
JSON and API Gateway then needs no binary media types). Review and import write drafts, so they
need the writer role (agentmem.access); export is a read, open to every caller."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.event_handler.router import APIGatewayRouter
from pydantic import BaseModel, Field

from agentmem.access import require_writer
from agentmem.api.errors import error_responses
from agentmem.api.principals import CallerRules
from agentmem.errors import InvalidInputError
from agentmem.model.common import ID_PATTERN
from agentmem.ports.procedural import SkillLibrary
from agentmem.procedural.agent_skills import export_zip, import_bundle
from agentmem.procedural.agent_skills_read import read_skill_zip
from agentmem.procedural.model import Function, Guidance
from agentmem.procedural.review import ReviewRequest, ReviewResponse, ReviewService
from agentmem.semantic.citations import Citations

GuidanceId = Annotated[str, Path(pattern=ID_PATTERN, description="Guidance id.")]
TAGS = ["procedural"]
MAX_ZIP_BASE64 = 4 * 1024 * 1024  # under API Gateway's 10 MB and Lambda's 6 MB payload limits


class SkillZip(BaseModel):
    zip_base64: str = Field(max_length=MAX_ZIP_BASE64, description="An Agent Skills folder, zipped.")


class ImportedSkill(BaseModel):
    """What an import stored, as drafts: the guidance and the functions it links."""

    guidance: Guidance
    functions: list[Function]


def _json(status: int, body: BaseModel) -> Response[Any]:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=body)


def library_transfer_router(
    library_factory: Callable[[], SkillLibrary],
    review_factory: Callable[[], ReviewService],
    callers: CallerRules,
    citations: Callable[[], Citations],
) -> APIGatewayRouter:
    router = APIGatewayRouter()
    current = callers.current(router)

    @router.post(
        "/v1/library/review",
        summary="Propose draft skills from what a session wrote up (kinds code and procedure)",
        description=(
            "Reads the session's log and proposes drafts through the LLM port: functions first, "
            "then guidance that points at them by id. Nothing is searchable until it is approved. "
            "Ids are `{name}.{session_id}`; an id already in the library is left as it is, so "
            "reviewing a session twice writes nothing new. `notes` says what was left out and why."
        ),
        responses={
            201: {
                "description": "The drafts this review wrote (possibly none).",
                "content": {"application/json": {"model": ReviewResponse}},
            },
            **error_responses(400, 403, 404, 415, 422, 503),
        },
        tags=TAGS,
    )
    def review_session(body: Annotated[ReviewRequest, Body()]) -> Response[ReviewResponse]:
        require_writer(current(), "reviewing a session into drafts")
        return _json(201, review_factory().review(body))

    @router.post(
        "/v1/library/import",
        summary="Import an Agent Skills folder (SKILL.md with front matter, scripts beside it)",
        description="Becomes draft guidance plus linked draft functions; importing it again changes nothing.",
        responses={
            201: {
                "description": "Stored as drafts.",
                "content": {"application/json": {"model": ImportedSkill}},
            },
            **error_responses(400, 403, 413, 415, 422, 503),
        },
        tags=TAGS,
    )
    def import_skill(body: Annotated[SkillZip, Body()]) -> Response[ImportedSkill]:
        require_writer(current(), "importing skills")
        try:
            data = base64.b64decode(body.zip_base64, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise InvalidInputError("zip_base64 is not valid base64", field="zip_base64") from exc
        guidance, functions = import_bundle(read_skill_zip(data), library_factory())
        # As a write through /v1/guidance does: its manifest's `cites`, at the versions now.
        citations().cite_guidance(guidance.guidance_id, guidance.cites, guidance.version)
        return _json(201, ImportedSkill(guidance=guidance, functions=functions))

    @router.get(
        "/v1/guidance/<guidance_id>/export",
        summary="Export guidance and its functions as an Agent Skills folder (zipped, base64)",
        responses=error_responses(404, 422, 503),
        tags=TAGS,
    )
    def export_skill(guidance_id: GuidanceId) -> SkillZip:
        return SkillZip(zip_base64=base64.b64encode(export_zip(library_factory(), guidance_id)).decode())

    return router
