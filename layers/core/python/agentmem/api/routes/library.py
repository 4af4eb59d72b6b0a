"""Routes of the procedural tier: CRUD of the function and guidance libraries, a function's
dependency closure, approval, and review of the links a rewrite put in doubt.

Writes are upserts keyed by the id in the body: `POST` answers 201, `PUT` on the id's own path
answers 200, and writing a spec identical to the stored version returns it unchanged. The library
is fetched per request from `library_factory`, so building it (and opening its store) waits for
the first procedural request.

Every write (create, rewrite, delete, approve, confirm or drop a link) needs the writer role
(agentmem.access); reads and search are open to every caller the API admits: functions and
guidance carry no principals (docs/access.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from aws_lambda_powertools.event_handler.router import APIGatewayRouter
from pydantic import BaseModel, Field

from agentmem.access import require_writer
from agentmem.api.errors import error_responses
from agentmem.api.principals import CallerRules
from agentmem.errors import InvalidInputError
from agentmem.model.common import ID_PATTERN
from agentmem.ports.procedural import SkillLibrary
from agentmem.procedural.model import Function, FunctionSpec, Guidance, GuidanceRead, GuidanceSpec, Link
from agentmem.procedural.search import SkillSearch
from agentmem.procedural.search_models import SkillSearchRequest, SkillSearchResponse
from agentmem.semantic.citations import Citations, guidance_dependent

FunctionId = Annotated[str, Path(pattern=ID_PATTERN, description="Function id.")]
GuidanceId = Annotated[str, Path(pattern=ID_PATTERN, description="Guidance id.")]

TAGS = ["procedural"]


class FunctionClosure(BaseModel):
    """A function with everything it depends on, transitively, ready for a sandbox."""

    function_id: str
    items: list[Function] = Field(
        description="Dependencies first, each after all of its own; the function itself is last."
    )


class LinkList(BaseModel):
    items: list[Link]
    next: str | None = Field(default=None, description="Always null: every matching link is returned.")


def _created(model: type[BaseModel], description: str) -> dict[int, OpenAPIResponse]:
    return {201: {"description": description, "content": {"application/json": {"model": model}}}}


NO_CONTENT: dict[int, OpenAPIResponse] = {204: {"description": "Deleted; no body.", "content": {}}}


def _created_json(body: BaseModel) -> Response[Any]:
    return Response(status_code=201, content_type=content_types.APPLICATION_JSON, body=body)


def _no_content() -> Response[Any]:
    """204 with no body and no content type (the document says so: `content: {}`)."""
    return Response(status_code=204, content_type=None, body=None)


def _same_id(path_value: str, body_value: str, field: str) -> None:
    if path_value != body_value:
        raise InvalidInputError(
            f"{field} in the body ({body_value!r}) differs from the path ({path_value!r})", field=field
        )


def library_router(
    library_factory: Callable[[], SkillLibrary],
    search_factory: Callable[[], SkillSearch],
    callers: CallerRules,
    citations: Callable[[], Citations],
) -> APIGatewayRouter:
    router = APIGatewayRouter()
    current = callers.current(router)

    def cited(guidance: Guidance) -> Guidance:
        """Record what this version cites (docs/stale-dependents.md), at the versions now."""
        citations().cite_guidance(guidance.guidance_id, guidance.cites, guidance.version)
        return guidance

    def writer(action: str) -> SkillLibrary:
        """The library, once the caller is known to hold the writer role."""
        require_writer(current(), action)
        return library_factory()

    # -- search ------------------------------------------------------------------------------

    @router.post(
        "/v1/library/search",
        summary="Find approved functions and guidance for a task, by meaning and by keyword",
        description=(
            "Searches both libraries as peers: a vector ranker and a BM25 ranker, fused with "
            "reciprocal rank fusion (k=60). Functions carry their dependency closure and "
            "`guidance_ids`; guidance carries `function_ids`. Drafts are never returned. With "
            "`budget_tokens`, `markdown` renders the found items within that budget."
        ),
        responses=error_responses(400, 415, 422, 503),
        tags=TAGS,
    )
    def search_skills(body: Annotated[SkillSearchRequest, Body()]) -> SkillSearchResponse:
        return search_factory().search(body)

    # -- functions ---------------------------------------------------------------------------

    @router.post(
        "/v1/functions",
        summary="Write a function: version 1, or a new version of an existing id",
        responses={
            **_created(Function, "Written (or an identical restatement of the stored version)."),
            **error_responses(400, 403, 415, 422, 503),
        },
        tags=TAGS,
    )
    def create_function(body: Annotated[FunctionSpec, Body()]) -> Response[Function]:
        return _created_json(writer("writing functions").put_function(body))

    @router.get(
        "/v1/functions/<function_id>",
        summary="A function's current version, with the guidance that links it",
        responses=error_responses(404, 422, 503),
        tags=TAGS,
    )
    def get_function(function_id: FunctionId) -> Function:
        return library_factory().get_function(function_id)

    @router.put(
        "/v1/functions/<function_id>",
        summary="Rewrite a function; a changed implementation puts its links under review",
        responses=error_responses(400, 403, 415, 422, 503),
        tags=TAGS,
    )
    def put_function(function_id: FunctionId, body: Annotated[FunctionSpec, Body()]) -> Function:
        _same_id(function_id, body.function_id, "function_id")
        return writer("writing functions").put_function(body)

    @router.delete(
        "/v1/functions/<function_id>",
        summary="Delete a function and unlink it from every guidance",
        responses={**NO_CONTENT, **error_responses(403, 404, 409, 422, 503)},
        tags=TAGS,
    )
    def delete_function(function_id: FunctionId) -> Response[Any]:
        writer("deleting functions").delete_function(function_id)
        return _no_content()

    @router.get(
        "/v1/functions/<function_id>/closure",
        summary="A function and its dependency closure, dependencies first",
        responses=error_responses(404, 422, 503),
        tags=TAGS,
    )
    def function_closure(function_id: FunctionId) -> FunctionClosure:
        return FunctionClosure(function_id=function_id, items=library_factory().closure(function_id))

    @router.post(
        "/v1/functions/<function_id>/approve",
        summary="Approve a function (no new version: the content is unchanged)",
        responses=error_responses(403, 404, 422, 503),
        tags=TAGS,
    )
    def approve_function(function_id: FunctionId) -> Function:
        approved = writer("approving functions").approve("function", function_id)
        assert isinstance(approved, Function)
        return approved

    # -- guidance ----------------------------------------------------------------------------

    @router.post(
        "/v1/guidance",
        summary="Write guidance: version 1, or a new version of an existing id",
        responses={
            **_created(Guidance, "Written (or an identical restatement of the stored version)."),
            **error_responses(400, 403, 415, 422, 503),
        },
        tags=TAGS,
    )
    def create_guidance(body: Annotated[GuidanceSpec, Body()]) -> Response[Guidance]:
        return _created_json(cited(writer("writing guidance").put_guidance(body)))

    @router.get(
        "/v1/guidance/<guidance_id>",
        summary="Guidance's current version, with the functions it links now",
        description="`stale` lists each belief it cites that changed since this version was written.",
        responses=error_responses(404, 422, 503),
        tags=TAGS,
    )
    def get_guidance(guidance_id: GuidanceId) -> GuidanceRead:
        found = library_factory().get_guidance(guidance_id)
        stale = citations().stale(guidance_dependent(guidance_id)) if found.cites else []
        return GuidanceRead(**found.model_dump(), stale=stale)

    @router.put(
        "/v1/guidance/<guidance_id>",
        summary="Rewrite guidance; links it keeps keep their review flag",
        responses=error_responses(400, 403, 415, 422, 503),
        tags=TAGS,
    )
    def put_guidance(guidance_id: GuidanceId, body: Annotated[GuidanceSpec, Body()]) -> Guidance:
        _same_id(guidance_id, body.guidance_id, "guidance_id")
        return cited(writer("writing guidance").put_guidance(body))

    @router.delete(
        "/v1/guidance/<guidance_id>",
        summary="Delete guidance and unlink it from its functions",
        responses={**NO_CONTENT, **error_responses(403, 404, 422, 503)},
        tags=TAGS,
    )
    def delete_guidance(guidance_id: GuidanceId) -> Response[Any]:
        writer("deleting guidance").delete_guidance(guidance_id)
        citations().forget(guidance_dependent(guidance_id))
        return _no_content()

    @router.post(
        "/v1/guidance/<guidance_id>/approve",
        summary="Approve guidance (no new version: the content is unchanged)",
        responses=error_responses(403, 404, 422, 503),
        tags=TAGS,
    )
    def approve_guidance(guidance_id: GuidanceId) -> Guidance:
        approved = writer("approving guidance").approve("guidance", guidance_id)
        assert isinstance(approved, Guidance)
        return approved

    # -- links -------------------------------------------------------------------------------

    @router.get(
        "/v1/library/links",
        summary="Links between guidance and functions, optionally only those needing review",
        responses=error_responses(422, 503),
        tags=TAGS,
    )
    def list_links(
        needs_review: Annotated[
            bool | None, Query(description="Only links with this review flag; omit for all.")
        ] = None,
    ) -> LinkList:
        return LinkList(items=library_factory().links(needs_review=needs_review))

    @router.post(
        "/v1/library/links/<guidance_id>/<function_id>/confirm",
        summary="Confirm a link after its function changed (clears needs_review)",
        responses=error_responses(403, 404, 422, 503),
        tags=TAGS,
    )
    def confirm_link(guidance_id: GuidanceId, function_id: FunctionId) -> Link:
        return writer("confirming links").confirm_link(guidance_id, function_id)

    @router.delete(
        "/v1/library/links/<guidance_id>/<function_id>",
        summary="Drop a link from both sides; the guidance and function stay",
        responses={**NO_CONTENT, **error_responses(403, 404, 422, 503)},
        tags=TAGS,
    )
    def drop_link(guidance_id: GuidanceId, function_id: FunctionId) -> Response[Any]:
        writer("dropping links").drop_link(guidance_id, function_id)
        return _no_content()

    return router
