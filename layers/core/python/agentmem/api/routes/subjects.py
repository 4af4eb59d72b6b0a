"""Routes about a subject as a whole: erase it everywhere and follow the erasure (the erasure
function's), and export it (the read function's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from agentmem.access import require_writer
from agentmem.api.errors import error_responses
from agentmem.api.principals import CallerRules
from agentmem.model.common import ID_PATTERN
from agentmem.subjects.export import MEDIA_TYPE
from agentmem.subjects.model import ErasureRecord

if TYPE_CHECKING:
    from agentmem.subjects.erasure import ErasureService
    from agentmem.subjects.export import SubjectExport

SubjectId = Annotated[str, Path(pattern=ID_PATTERN, description="Subject id.")]
ErasureId = Annotated[str, Path(pattern=ID_PATTERN, description="Erasure id, as DELETE answered it.")]
NEXT_CURSOR_HEADER = "X-Agentmem-Next-Cursor"


def erasure_router(erasure: Callable[[], ErasureService], callers: CallerRules) -> APIGatewayRouter:
    """Erasure is an operator action: it needs the writer role (docs/access.md)."""
    router = APIGatewayRouter()
    current = callers.current(router)

    @router.delete(
        "/v1/subjects/<subject_id>",
        summary="Erase a subject from every tier, every index generation and every cache",
        description=(
            "Accepted at once: from then on the subject's id is closed (appends answer 410) and no "
            "projection or replay brings it back. Follow the work per tier at the Location. "
            "Repeating the call is harmless: it answers the same erasure and runs it again."
        ),
        responses={
            202: {
                "description": "Accepted (or already accepted): the erasure and its progress per tier.",
                "content": {"application/json": {"model": ErasureRecord}},
            },
            **error_responses(403, 422, 503),
        },
        tags=["subjects"],
    )
    def erase_subject(subject_id: SubjectId) -> Response[ErasureRecord]:
        require_writer(current(), "erasing a subject")
        record = erasure().erase(subject_id)
        return Response(
            status_code=202,
            content_type=content_types.APPLICATION_JSON,
            body=record,
            headers={"Location": f"/v1/erasures/{record.erasure_id}"},
        )

    @router.get(
        "/v1/erasures/<erasure_id>",
        summary="An erasure's progress, tier by tier",
        responses=error_responses(403, 404, 422, 503),
        tags=["subjects"],
    )
    def get_erasure(erasure_id: ErasureId) -> ErasureRecord:
        require_writer(current(), "reading an erasure")
        return erasure().status(erasure_id)

    return router


def export_router(export: Callable[[], SubjectExport], callers: CallerRules) -> APIGatewayRouter:
    """Export is an operator action too: it needs the writer role (docs/access.md)."""
    router = APIGatewayRouter()
    current = callers.current(router)

    @router.get(
        "/v1/subjects/<subject_id>/export",
        summary="Everything held about a subject, as NDJSON (events, blob references, belief chains)",
        description=(
            "One JSON object per line, each with a `type`: subject, event, blob, belief, then end. A "
            "large export is cut into responses: the last line is then `continue` with a `cursor`, "
            f"also in the {NEXT_CURSOR_HEADER} header; pass it back for the rest."
        ),
        responses={
            200: {"description": "NDJSON lines.", "content": {MEDIA_TYPE: {"schema": {"type": "string"}}}},
            **error_responses(403, 410, 422, 503),
        },
        tags=["subjects"],
    )
    def export_subject(
        subject_id: SubjectId,
        cursor: Annotated[str | None, Query(max_length=2048, description="From a `continue` line.")] = None,
        inline_blobs: Annotated[bool, Query(description="Include each blob's content.")] = False,
    ) -> Response[str]:
        require_writer(current(), "exporting a subject")
        page = export().page(subject_id, cursor, inline_blobs=inline_blobs)
        headers = {NEXT_CURSOR_HEADER: page.next_cursor} if page.next_cursor else None
        return Response(status_code=200, content_type=MEDIA_TYPE, body=page.body, headers=headers)

    return router
