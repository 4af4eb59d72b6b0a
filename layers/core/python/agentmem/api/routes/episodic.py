"""Routes of the episodic log: append and page through a session's events.

Appending answers to `access.may_append_events`, the rule the MCP server's `memory_append` answers
to as well, so a caller may append over HTTP exactly when it may over MCP (docs/access.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from agentmem.access import require_may_append_events
from agentmem.api.errors import error_responses
from agentmem.api.principals import CallerRules
from agentmem.episodic.service import MAX_PAGE, EpisodicService
from agentmem.model.common import ID_PATTERN
from agentmem.model.events import MAX_ROUND, MAX_SEQ, AppendEventRequest, AppendEventResponse, EventPage

SessionId = Annotated[str, Path(pattern=ID_PATTERN, description="Session id.")]


def episodic_router(episodic: Callable[[], EpisodicService], callers: CallerRules) -> APIGatewayRouter:
    router = APIGatewayRouter()
    current = callers.current(router)

    @router.post(
        "/v1/sessions/<session_id>/events",
        summary="Append an event to a session's log",
        responses={
            201: {
                "description": "Appended (or an idempotent repeat of an earlier append).",
                "content": {"application/json": {"model": AppendEventResponse}},
            },
            **error_responses(400, 409, 410, 413, 415, 422, 503),
        },
        tags=["episodic"],
    )
    def append_event(
        session_id: SessionId, body: Annotated[AppendEventRequest, Body()]
    ) -> Response[AppendEventResponse]:
        require_may_append_events(current())
        outcome = episodic().append(session_id, body)
        event = outcome.event
        ack = AppendEventResponse(
            event_id=event.event_id, seq=event.seq, session_id=event.session_id, stored=event.stored
        )
        return Response(status_code=201, content_type=content_types.APPLICATION_JSON, body=ack)

    @router.get(
        "/v1/sessions/<session_id>/events",
        summary="Page through a session's events in seq order",
        responses=error_responses(422, 503),
        tags=["episodic"],
    )
    def list_events(
        session_id: SessionId,
        after: Annotated[
            int, Query(ge=0, le=MAX_SEQ, description="Return events with seq greater than this.")
        ] = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
        agent: Annotated[str | None, Query(pattern=ID_PATTERN)] = None,
        round: Annotated[int | None, Query(ge=0, le=MAX_ROUND)] = None,
        resolve_blobs: Annotated[
            bool, Query(description="Inline blob content instead of a pointer.")
        ] = False,
    ) -> EventPage:
        return episodic().list_events(
            session_id, after=after, limit=limit, agent=agent, round=round, resolve_blobs=resolve_blobs
        )

    return router
