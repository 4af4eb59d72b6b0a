"""`POST /v1/context`: the budgeted slice of memory an agent reads before it acts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Body
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from agentmem.api.errors import error_responses
from agentmem.context.service import ContextService
from agentmem.model.context import ContextRequest, ContextResponse


def context_router(context: Callable[[], ContextService]) -> APIGatewayRouter:
    router = APIGatewayRouter()

    @router.post(
        "/v1/context",
        summary="Read a ranked slice of shared memory that fits a token budget",
        description=(
            "Queries this session's log and the subject's current beliefs, merges them and packs "
            "them into `budget_tokens`, counted exactly with tiktoken. A session with no events yet "
            "is not an error (the trace says so); a subject with no memory at all is a 404."
        ),
        responses=error_responses(400, 404, 415, 422, 503),
        tags=["read"],
    )
    def read_context(body: Annotated[ContextRequest, Body()]) -> ContextResponse:
        return context().build(body)

    return router
