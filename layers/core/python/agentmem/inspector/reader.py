"""What the inspector reads, as typed calls over the HTTP API and nothing else.

Every page is built from these calls, and every call is one of the API's read routes, so the
inspector sees exactly what its caller may see: the routes apply the principals and keys
(agentmem.access), and nothing the caller may not read is shown or counted. Two transports carry
the calls: in-process through the local server's own resolver (`agentmem serve`), or over HTTP
with `MemoryClient` (`agentmem inspect --url`). Neither can write: `READ_ROUTES` is the whole
list of what a transport will send."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote

from agentmem.api.routes.browse import LibraryList, SessionList
from agentmem.api.routes.library import FunctionClosure, LinkList
from agentmem.client import MemoryApiError
from agentmem.compose.model import ComposeRequest
from agentmem.compose.report import ComposeResponse
from agentmem.model.api_beliefs import BeliefChainView, BeliefList
from agentmem.model.beliefs import Belief
from agentmem.model.common import ID_PATTERN
from agentmem.model.context import ContextRequest, ContextResponse
from agentmem.model.events import Event, EventPage
from agentmem.procedural.model import Function, GuidanceRead, Link

_ID = r"[A-Za-z0-9._:-]{1,128}"
READ_ROUTES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (method, re.compile(f"^{pattern}$"))
    for method, pattern in (
        ("GET", f"/v1/subjects/{_ID}/sessions"),
        ("GET", f"/v1/subjects/{_ID}/beliefs"),
        ("GET", f"/v1/subjects/{_ID}/beliefs/[a-z][a-z0-9_]{{0,63}}"),
        ("GET", f"/v1/sessions/{_ID}/events"),
        ("POST", "/v1/context"),
        ("POST", f"/v1/skills/{_ID}/compose"),
        ("GET", f"/v1/skills/{_ID}"),
        ("GET", "/v1/functions"),
        ("GET", "/v1/guidance"),
        ("GET", f"/v1/functions/{_ID}"),
        ("GET", f"/v1/functions/{_ID}/closure"),
        ("GET", f"/v1/guidance/{_ID}"),
        ("GET", "/v1/library/links"),
    )
)
"""Every route the inspector calls. The two POSTs are reads: a context read and a composition
(sent without a conversation id, which would record what was sent)."""

FACT_KEY = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


def is_read_route(method: str, path: str) -> bool:
    return any(method == m and pattern.fullmatch(path) for m, pattern in READ_ROUTES)


@dataclass(frozen=True)
class Viewer:
    """Who the inspector reads as. With API keys, the key's grant (its authorizer context); in
    loopback development mode, the principals claimed (as `X-Agentmem-Principals` claims them).
    Remotely (`agentmem inspect`) the client's own credentials decide; `claimed` is then only
    forwarded as the development header, which a deployed API never honours."""

    authorizer: Mapping[str, str] | None = None
    claimed: str | None = None

    @property
    def label(self) -> str:
        if self.authorizer is not None:
            role = self.authorizer.get("role", "reader")
            return f"API key: {self.authorizer.get('principals', '') or 'no principals'} ({role})"
        return f"as {self.claimed}" if self.claimed else "anonymous (everyone)"


class Transport(Protocol):
    """Carries the inspector's API calls: in process, or over HTTP (agentmem.inspector.transports)."""

    def call(
        self, method: str, path: str, viewer: Viewer, *, query: Mapping[str, Any] | None, body: Any
    ) -> Any:
        """The JSON answer of one API call as `viewer`; MemoryApiError on a non-2xx answer."""
        ...


def checked_id(value: str, field: str) -> str:
    """`value` when it is an API id; a 422 like the API's own otherwise. Ids go into paths, so an
    id holding `/` must never reach a transport."""
    if not re.fullmatch(ID_PATTERN, value):  # fullmatch: `$` alone would let "id\n" through
        raise MemoryApiError(422, "validation_error", f"{field} must match {ID_PATTERN}", field)
    return quote(value, safe="")


class MemoryReader:
    """The inspector's read operations, as `viewer`, through `transport`."""

    def __init__(self, transport: Transport, viewer: Viewer) -> None:
        self._transport = transport
        self.viewer = viewer

    def _call(self, method: str, path: str, query: Mapping[str, Any] | None = None, body: Any = None) -> Any:
        if not is_read_route(method, path):
            raise AssertionError(f"the inspector only reads: {method} {path} is not a read route")
        return self._transport.call(method, path, self.viewer, query=query, body=body)

    # -- episodic -----------------------------------------------------------------------------

    def sessions(self, subject_id: str) -> list[str]:
        path = f"/v1/subjects/{checked_id(subject_id, 'subject_id')}/sessions"
        return SessionList.model_validate(self._call("GET", path)).items

    def events(
        self,
        session_id: str,
        *,
        after: int = 0,
        limit: int = 200,
        agent: str | None = None,
        round: int | None = None,
    ) -> EventPage:
        query: dict[str, Any] = {"after": after, "limit": limit}
        if agent:
            query["agent"] = agent
            checked_id(agent, "agent")
        if round is not None:
            query["round"] = round
        path = f"/v1/sessions/{checked_id(session_id, 'session_id')}/events"
        return EventPage.model_validate(self._call("GET", path, query))

    def event_with_content(self, session_id: str, seq: int) -> Event | None:
        """One event with its blob resolved (the fetch link of a blob), or None."""
        query = {"after": max(0, seq - 1), "limit": 1, "resolve_blobs": "true"}
        path = f"/v1/sessions/{checked_id(session_id, 'session_id')}/events"
        page = EventPage.model_validate(self._call("GET", path, query))
        return next((e for e in page.items if e.seq == seq), None)

    # -- semantic -----------------------------------------------------------------------------

    def beliefs(self, subject_id: str) -> list[Belief]:
        path = f"/v1/subjects/{checked_id(subject_id, 'subject_id')}/beliefs"
        return BeliefList.model_validate(self._call("GET", path)).items

    def chain(self, subject_id: str, key: str) -> BeliefChainView:
        if not FACT_KEY.fullmatch(key):
            raise MemoryApiError(422, "validation_error", "key must be a lower snake case fact key", "key")
        path = f"/v1/subjects/{checked_id(subject_id, 'subject_id')}/beliefs/{key}"
        return BeliefChainView.model_validate(self._call("GET", path, {"history": "true"}))

    # -- procedural ---------------------------------------------------------------------------

    def library(self, kind: str) -> LibraryList:
        path = "/v1/functions" if kind == "function" else "/v1/guidance"
        return LibraryList.model_validate(self._call("GET", path))

    def function(self, function_id: str) -> Function:
        path = f"/v1/functions/{checked_id(function_id, 'function_id')}"
        return Function.model_validate(self._call("GET", path))

    def closure(self, function_id: str) -> list[Function]:
        path = f"/v1/functions/{checked_id(function_id, 'function_id')}/closure"
        return FunctionClosure.model_validate(self._call("GET", path)).items

    def guidance(self, guidance_id: str) -> GuidanceRead:
        path = f"/v1/guidance/{checked_id(guidance_id, 'guidance_id')}"
        return GuidanceRead.model_validate(self._call("GET", path))

    def links(self) -> list[Link]:
        return LinkList.model_validate(self._call("GET", "/v1/library/links")).items

    # -- reads --------------------------------------------------------------------------------

    def context(self, request: ContextRequest) -> ContextResponse:
        body = request.model_dump(mode="json")
        return ContextResponse.model_validate(self._call("POST", "/v1/context", body=body))

    def compose(self, skill_id: str, request: ComposeRequest) -> ComposeResponse:
        # Never a conversation id: that would record what was sent, and the inspector only reads.
        body = request.model_dump(mode="json", exclude={"conversation_id"}, exclude_none=True)
        path = f"/v1/skills/{checked_id(skill_id, 'skill_id')}/compose"
        return ComposeResponse.model_validate(self._call("POST", path, body=body))
