"""Routes of the composer: knowledge assets, authored skills, and compose. Every route answers to
the access rule (agentmem.access, docs/access.md): reading an asset needs one of its principals
along the hierarchy, writing assets and skills needs the writer role."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from agentmem.access import require_writer
from agentmem.api.errors import error_responses
from agentmem.api.principals import CallerRules
from agentmem.compose import authoring
from agentmem.compose.model import (
    AssetRead,
    ComposeRequest,
    ComposerSkill,
    ComposerSkillSpec,
    PutAssetsRequest,
    PutAssetsResponse,
)
from agentmem.compose.report import ComposeReport, ComposeResponse
from agentmem.compose.service import ComposerService
from agentmem.errors import NotFoundError
from agentmem.model.common import ID_PATTERN
from agentmem.semantic.citations import Citations, asset_dependent

AssetId = Annotated[str, Path(pattern=ID_PATTERN, description="Asset id.")]
SkillId = Annotated[str, Path(pattern=ID_PATTERN, description="Composer skill id.")]
ReportId = Annotated[str, Path(pattern=ID_PATTERN, description="Compose report id.")]
TAGS = ["composer"]
DEPRECATED_BY = "X-Agentmem-Deprecated-By"
"""On a writer's GET of an asset under a deprecated one: the nearest deprecated ancestor's id."""
REPORT_ID = "X-Agentmem-Report-Id"
"""On a composition built on beliefs: the id its report is kept under (docs/stale-dependents.md)."""


def compose_router(
    composer: Callable[[], ComposerService], callers: CallerRules, citations: Callable[[], Citations]
) -> APIGatewayRouter:
    router = APIGatewayRouter()
    caller = callers.current(router)

    @router.put(
        "/v1/assets",
        summary="Write knowledge assets in bulk (create or replace, one transaction)",
        description=(
            "Needs the writer role. A writer may replace only assets it may read, and may write an "
            "asset only as one it can still read (its principals and its ancestors')."
        ),
        responses=error_responses(400, 403, 413, 415, 422, 503),
        tags=TAGS,
    )
    def put_assets(body: Annotated[PutAssetsRequest, Body()]) -> PutAssetsResponse:
        service = composer()
        revision = authoring.put_assets(service.catalogue, body, caller(), service.view())
        for asset in body.assets:  # each write is a new build of the asset: at today's versions
            citations().cite_asset(asset.asset_id, asset.cites, revision)
        return PutAssetsResponse(written=len(body.assets), revision=revision)

    @router.get(
        "/v1/assets/<asset_id>",
        summary="One asset, payload included",
        description=(
            "404 for an asset the caller may not read (one of its principals and of each ancestor's "
            "is needed) and, unless the caller is a writer, for a deprecated asset or one under a "
            f"deprecated asset; a writer then gets `{DEPRECATED_BY}` naming that ancestor. `stale` lists "
            "each belief it cites that changed since it was written."
        ),
        responses={
            200: {"description": "The asset.", "content": {"application/json": {"model": AssetRead}}},
            **error_responses(404, 422, 503),
        },
        tags=TAGS,
    )
    def get_asset(asset_id: AssetId) -> Response[AssetRead]:
        asset, dead = composer().asset(asset_id, caller())
        headers = {DEPRECATED_BY: dead.asset_id} if dead is not None else None
        stale = citations().stale(asset_dependent(asset_id)) if asset.cites else []
        body = AssetRead(**asset.model_dump(), stale=stale)
        return Response(
            status_code=200, content_type=content_types.APPLICATION_JSON, body=body, headers=headers
        )

    @router.delete(
        "/v1/assets/<asset_id>",
        summary="Delete an asset; it leaves every scope at the next compose",
        responses={
            204: {"description": "Deleted; no body.", "content": {}},
            **error_responses(403, 404, 422, 503),
        },
        tags=TAGS,
    )
    def delete_asset(asset_id: AssetId) -> Response[Any]:
        service = composer()
        authoring.delete_asset(service.catalogue, asset_id, caller(), service.view())
        citations().forget(asset_dependent(asset_id))
        return Response(status_code=204, content_type=None, body=None)

    @router.put(
        "/v1/skills/<skill_id>",
        summary="Write an authored skill: intent, procedure, output contract, guardrails and a scope",
        description=(
            "Needs the writer role. Validated and versioned. Scope globs: `*` within one path "
            "segment, `**` any depth."
        ),
        responses=error_responses(400, 403, 415, 422, 503),
        tags=TAGS,
    )
    def put_skill(skill_id: SkillId, body: Annotated[ComposerSkillSpec, Body()]) -> ComposerSkill:
        require_writer(caller(), "writing composer skills")
        return authoring.put_skill(composer().catalogue, skill_id, body)

    @router.get(
        "/v1/skills/<skill_id>",
        summary="An authored skill's current version",
        responses=error_responses(404, 422, 503),
        tags=TAGS,
    )
    def get_skill(skill_id: SkillId) -> ComposerSkill:
        return composer().skill(skill_id)

    @router.post(
        "/v1/skills/<skill_id>/compose",
        summary="Compose the skill's document for one question, under a token budget, with a report",
        description=(
            "The caller's principals come from the auth context. The scope compiles into one "
            "filter; strategies retrieve, sections are ranked and cut to the budget (default: "
            "the skill's, at most 50,000 tokens); the report says what ran, what was cut and why, "
            f"and `stale` which cited beliefs changed. Built on beliefs, the report is kept: `{REPORT_ID}` "
            "names it for `GET /v1/compose/reports/{report_id}`."
        ),
        responses=error_responses(400, 404, 415, 422, 503),
        tags=TAGS,
    )
    def compose(skill_id: SkillId, body: Annotated[ComposeRequest, Body()]) -> Response[ComposeResponse]:
        result, report_id = composer().compose_kept(skill_id, body, caller().principals)
        headers = {REPORT_ID: report_id} if report_id is not None else None
        return Response(
            status_code=200, content_type=content_types.APPLICATION_JSON, body=result, headers=headers
        )

    @router.get(
        "/v1/compose/reports/<report_id>",
        summary="A kept compose report, with what changed under it since",
        description=(
            "Kept for compositions built on beliefs (cited by their assets). `stale` lists each "
            "belief that changed since. 404 unless the caller holds every principal it was composed for."
        ),
        responses=error_responses(404, 422, 503),
        tags=TAGS,
    )
    def get_report(report_id: ReportId) -> ComposeReport:
        service = composer()
        report = service.inputs.report(report_id) if service.inputs is not None else None
        # It names what its principals may read: only a caller who may read all of that sees it.
        if report is None or not set(report.principals) <= set(caller().principals):
            raise NotFoundError(f"no compose report {report_id!r}", field="report_id")
        return report

    return router
