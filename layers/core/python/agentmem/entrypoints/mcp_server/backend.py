"""What the MCP tools call: one small interface over agentmem, with the embedded services behind it
here and a deployed tenant's HTTP API behind it in `agentmem.entrypoints.mcp_server.remote`.

Every method takes and returns the HTTP API's own models, so a tool's schema, its validation and
its result are the API's, whichever backend answers. The local backend applies the same rules as
the routes (the writer role for review, the reserved skill ids, principals from the caller, never
from the arguments); a deployed tenant applies them itself, to the identity that signs the call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from agentmem.access import Caller, require_writer
from agentmem.compose.model import ComposeRequest
from agentmem.compose.report import ComposeResponse
from agentmem.model.api_beliefs import BeliefChainView, BeliefList, BeliefSearchRequest, BeliefSearchResponse
from agentmem.model.context import ContextRequest, ContextResponse
from agentmem.model.events import AppendEventRequest, AppendEventResponse
from agentmem.procedural.model import Guidance, SkillKind, SkillStatus
from agentmem.procedural.review import ReviewRequest, ReviewResponse
from agentmem.procedural.search_models import SkillSearchRequest, SkillSearchResponse

if TYPE_CHECKING:
    from agentmem.api.routes.library import FunctionClosure
    from agentmem.wiring import Services


class MemoryBackend(Protocol):
    """The operations an agent performs through MCP. Blocking: the server runs them in a worker
    thread. Failures are domain errors (agentmem.errors) or, remotely, the API's error answer."""

    @property
    def procedural_enabled(self) -> bool:
        """False when the tenant switched the procedural tier off: no skill tools, no gate."""
        ...

    def stocked_libraries(self) -> frozenset[SkillKind]:
        """The libraries holding an approved entry, the only kind a search finds: the ones the
        search gate asks a session to search. Empty when the procedural tier is off."""
        ...

    def append(self, session_id: str, request: AppendEventRequest) -> AppendEventResponse: ...
    def context(self, request: ContextRequest) -> ContextResponse: ...
    def beliefs(self, subject_id: str) -> BeliefList: ...
    def search_beliefs(self, subject_id: str, request: BeliefSearchRequest) -> BeliefSearchResponse: ...
    def belief_history(self, subject_id: str, key: str) -> BeliefChainView: ...
    def search_skills(self, request: SkillSearchRequest) -> SkillSearchResponse: ...
    def function_closure(self, function_id: str) -> FunctionClosure: ...
    def guidance(self, guidance_id: str) -> Guidance: ...
    def compose(self, skill_id: str, request: ComposeRequest, caller: Caller) -> ComposeResponse: ...
    def review(self, request: ReviewRequest, caller: Caller) -> ReviewResponse: ...


class LocalBackend:
    """The embedded backend: the same domain services `agentmem serve` routes call."""

    def __init__(self, services: Services) -> None:
        self._services = services

    @property
    def procedural_enabled(self) -> bool:
        return self._services.settings.procedural_enabled

    def stocked_libraries(self) -> frozenset[SkillKind]:
        if not self.procedural_enabled:
            return frozenset()
        approved = SkillStatus.APPROVED.value
        return frozenset(kind for kind, _, status, _ in self._services.skills.stamps() if status == approved)

    def append(self, session_id: str, request: AppendEventRequest) -> AppendEventResponse:
        event = self._services.episodic.append(session_id, request).event
        return AppendEventResponse(
            event_id=event.event_id, seq=event.seq, session_id=event.session_id, stored=event.stored
        )

    def context(self, request: ContextRequest) -> ContextResponse:
        return self._services.context.build(request)

    def beliefs(self, subject_id: str) -> BeliefList:
        return BeliefList(items=self._services.semantic.current(subject_id))

    def search_beliefs(self, subject_id: str, request: BeliefSearchRequest) -> BeliefSearchResponse:
        return BeliefSearchResponse(
            items=self._services.semantic.search(subject_id, request.query, request.k)
        )

    def belief_history(self, subject_id: str, key: str) -> BeliefChainView:
        chain = self._services.semantic.belief(subject_id, key, history=True)
        return BeliefChainView(key=chain.key, current=chain.current, history=chain.history)

    def search_skills(self, request: SkillSearchRequest) -> SkillSearchResponse:
        return self._services.skill_search.search(request)

    def function_closure(self, function_id: str) -> FunctionClosure:
        from agentmem.api.routes.library import FunctionClosure

        return FunctionClosure(function_id=function_id, items=self._services.skills.closure(function_id))

    def guidance(self, guidance_id: str) -> Guidance:
        return self._services.skills.get_guidance(guidance_id)

    def compose(self, skill_id: str, request: ComposeRequest, caller: Caller) -> ComposeResponse:
        return self._services.composer.compose(skill_id, request, caller.principals)

    def review(self, request: ReviewRequest, caller: Caller) -> ReviewResponse:
        require_writer(caller, "reviewing a session into drafts")
        return self._services.skill_review.review(request)
