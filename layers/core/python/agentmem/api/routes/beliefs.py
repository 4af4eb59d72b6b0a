"""Routes of the semantic tier: current beliefs, a key's version chain, search by meaning."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from agentmem.api.errors import error_responses
from agentmem.model.api_beliefs import BeliefChainView, BeliefList, BeliefSearchRequest, BeliefSearchResponse
from agentmem.model.common import ID_PATTERN
from agentmem.semantic.service import SemanticService

SubjectId = Annotated[str, Path(pattern=ID_PATTERN, description="Subject id.")]
FactKeyPath = Annotated[str, Path(pattern=r"^[a-z][a-z0-9_]{0,63}$", description="Fact key.")]


def beliefs_router(semantic: Callable[[], SemanticService]) -> APIGatewayRouter:
    router = APIGatewayRouter()

    @router.get(
        "/v1/subjects/<subject_id>/beliefs",
        summary="Current beliefs about a subject",
        responses=error_responses(422, 503),
        tags=["semantic"],
    )
    def list_beliefs(subject_id: SubjectId) -> BeliefList:
        return BeliefList(items=semantic().current(subject_id))

    @router.get(
        "/v1/subjects/<subject_id>/beliefs/<key>",
        summary="The current belief under a key, and its version chain on request",
        responses=error_responses(404, 422, 503),
        tags=["semantic"],
    )
    def get_belief(
        subject_id: SubjectId,
        key: FactKeyPath,
        history: Annotated[bool, Query(description="Include every archived version.")] = False,
    ) -> BeliefChainView:
        chain = semantic().belief(subject_id, key, history=history)
        return BeliefChainView(key=chain.key, current=chain.current, history=chain.history)

    @router.post(
        "/v1/subjects/<subject_id>/beliefs/search",
        summary="Search current beliefs by meaning",
        responses=error_responses(400, 415, 422, 503),
        tags=["semantic"],
    )
    def search_beliefs(
        subject_id: SubjectId, body: Annotated[BeliefSearchRequest, Body()]
    ) -> BeliefSearchResponse:
        return BeliefSearchResponse(items=semantic().search(subject_id, body.query, body.k))

    return router
