"""Read-only listings that let a reader find its way without knowing ids up front: the sessions a
subject appears in, and the items of the skill libraries. The memory inspector (`/ui`) browses
with them, through the API like any client, so it sees exactly what the caller may see.

Who may list: every caller the API admits, as for the log and the libraries themselves (events,
functions and guidance carry no principals; docs/access.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Literal

from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayRouter
from pydantic import BaseModel, Field

from agentmem.api.errors import error_responses
from agentmem.model.common import ID_PATTERN
from agentmem.ports.procedural import StampedLibrary
from agentmem.ports.subjects import SubjectLog

if TYPE_CHECKING:
    pass

SubjectId = Annotated[str, Path(pattern=ID_PATTERN, description="Subject id.")]
Status = Annotated[
    Literal["draft", "approved"] | None, Query(description="Only items with this status; omit for all.")
]


class SessionList(BaseModel):
    items: list[str] = Field(description="Ids of the sessions holding an event of the subject, sorted.")
    next: str | None = Field(default=None, description="Always null: every session is returned.")


class LibraryEntry(BaseModel):
    id: str
    status: str
    version: int


class LibraryList(BaseModel):
    items: list[LibraryEntry] = Field(description="By id.")
    next: str | None = Field(default=None, description="Always null: every item is returned.")


def _entries(library: StampedLibrary, kind: str, status: str | None) -> LibraryList:
    items = [
        # The stamp is `{version}|{updated_at}` (StampedLibrary.stamps).
        LibraryEntry(id=skill_id, status=item_status, version=int(stamp.split("|", 1)[0]))
        for item_kind, skill_id, item_status, stamp in library.stamps()
        if item_kind == kind and (status is None or item_status == status)
    ]
    return LibraryList(items=sorted(items, key=lambda entry: entry.id))


def sessions_router(subject_log: Callable[[], SubjectLog]) -> APIGatewayRouter:
    """The read function's: which sessions a subject appears in."""
    router = APIGatewayRouter()

    @router.get(
        "/v1/subjects/<subject_id>/sessions",
        summary="The sessions a subject appears in",
        responses=error_responses(422, 503),
        tags=["episodic"],
    )
    def list_subject_sessions(subject_id: SubjectId) -> SessionList:
        return SessionList(items=subject_log().sessions(subject_id))

    return router


def library_listing_router(stamped: Callable[[], StampedLibrary]) -> APIGatewayRouter:
    """The skills function's: every function and guidance by id, to browse without knowing ids."""
    router = APIGatewayRouter()

    @router.get(
        "/v1/functions",
        summary="Every function of the library: id, status and version",
        responses=error_responses(422, 503),
        tags=["procedural"],
    )
    def list_functions(status: Status = None) -> LibraryList:
        return _entries(stamped(), "function", status)

    @router.get(
        "/v1/guidance",
        summary="Every guidance of the library: id, status and version",
        responses=error_responses(422, 503),
        tags=["procedural"],
    )
    def list_guidance(status: Status = None) -> LibraryList:
        return _entries(stamped(), "guidance", status)

    return router
