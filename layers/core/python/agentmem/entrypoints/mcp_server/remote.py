"""A deployed tenant as the MCP server's backend: every tool call is one call of the tenant's HTTP
API through `MemoryClient`, signed with SigV4 on API Gateway (or carrying an API key for a remote
`agentmem serve`). The tenant resolves the caller from that signature, so principals and role are
the IAM identity's; the MCP server adds nothing to them and cannot widen them.

Where the client has a method for a route it is used (so a route the client follows moves here
too); the rest go through `MemoryClient.request` on paths that are stable API."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from agentmem.access import Caller
from agentmem.compose.model import ComposeRequest
from agentmem.compose.report import ComposeResponse
from agentmem.model.api_beliefs import BeliefChainView, BeliefList, BeliefSearchRequest, BeliefSearchResponse
from agentmem.model.context import ContextRequest, ContextResponse
from agentmem.model.events import AppendEventRequest, AppendEventResponse
from agentmem.procedural.model import Guidance, SkillKind
from agentmem.procedural.review import ReviewRequest, ReviewResponse
from agentmem.procedural.search_models import SkillSearchRequest, SkillSearchResponse

if TYPE_CHECKING:
    from agentmem.api.routes.library import FunctionClosure
    from agentmem.client import MemoryClient


class RemoteBackend:
    def __init__(self, client: MemoryClient) -> None:
        self._client = client

    @property
    def procedural_enabled(self) -> bool:
        # Not knowable without a call; a tenant that switched it off answers 404 tier_disabled.
        return True

    def stocked_libraries(self) -> frozenset[SkillKind]:
        from agentmem.client import MemoryApiError

        stocked: set[SkillKind] = set()
        kinds: tuple[tuple[SkillKind, str], ...] = (
            ("function", "/v1/functions"),
            ("guidance", "/v1/guidance"),
        )
        for kind, path in kinds:
            try:
                listing = self._client.request("GET", path, query={"status": "approved"})
            except MemoryApiError as exc:
                if exc.code == "tier_disabled":  # nothing to search: the gate must not wait for it
                    return frozenset()
                raise
            if listing.get("items"):
                stocked.add(kind)
        return frozenset(stocked)

    def append(self, session_id: str, request: AppendEventRequest) -> AppendEventResponse:
        body = request.model_dump(mode="json", exclude_none=True)
        # As MemoryClient does: a key on every append, so its own retries never append twice.
        body.setdefault("idempotency_key", f"auto-{uuid.uuid4().hex}")
        answer = self._client.request("POST", f"/v1/sessions/{session_id}/events", body)
        return AppendEventResponse.model_validate(answer)

    def context(self, request: ContextRequest) -> ContextResponse:
        body = request.model_dump(mode="json")
        return ContextResponse.model_validate(self._client.request("POST", "/v1/context", body))

    def beliefs(self, subject_id: str) -> BeliefList:
        return BeliefList(items=self._client.beliefs(subject_id))

    def search_beliefs(self, subject_id: str, request: BeliefSearchRequest) -> BeliefSearchResponse:
        path = f"/v1/subjects/{subject_id}/beliefs/search"
        return BeliefSearchResponse.model_validate(self._client.request("POST", path, request.model_dump()))

    def belief_history(self, subject_id: str, key: str) -> BeliefChainView:
        return self._client.belief_history(subject_id, key)

    def search_skills(self, request: SkillSearchRequest) -> SkillSearchResponse:
        return self._client.search_skills(request.task, k=request.k, budget_tokens=request.budget_tokens)

    def function_closure(self, function_id: str) -> FunctionClosure:
        from agentmem.api.routes.library import FunctionClosure

        answer = self._client.request("GET", f"/v1/functions/{function_id}/closure")
        return FunctionClosure.model_validate(answer)

    def guidance(self, guidance_id: str) -> Guidance:
        answer = self._client.request("GET", f"/v1/guidance/{guidance_id}")
        # The tool answers what the local backend does: the guidance, without the GET's `stale`.
        return Guidance.model_validate({k: v for k, v in answer.items() if k != "stale"})

    def compose(self, skill_id: str, request: ComposeRequest, caller: Caller) -> ComposeResponse:
        # `caller` is not sent: the tenant reads the principals from the signature.
        return self._client.compose(
            skill_id,
            request.question,
            budget_tokens=request.budget_tokens,
            conversation_id=request.conversation_id,
        )

    def review(self, request: ReviewRequest, caller: Caller) -> ReviewResponse:
        return self._client.review_session(request.session_id)
