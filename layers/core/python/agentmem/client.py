"""`MemoryClient`: a small typed client for the agentmem HTTP API.

Against API Gateway it signs each request with SigV4 (service `execute-api`) through botocore,
using the standard credential chain; against `agentmem serve` it sends plain requests."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

import urllib3

from agentmem.compose.model import (
    MAX_ASSETS_PER_PUT,
    Asset,
    ComposerSkill,
    ComposerSkillSpec,
    PutAssetsResponse,
)
from agentmem.compose.report import ComposeResponse
from agentmem.model.api_beliefs import BeliefChainView, BeliefList
from agentmem.model.beliefs import Belief
from agentmem.model.context import ContextResponse
from agentmem.model.events import AppendEventResponse, EventContent, EventPage
from agentmem.procedural.model import Function, FunctionSpec, Guidance, GuidanceSpec
from agentmem.procedural.review import ReviewResponse
from agentmem.procedural.search_models import SkillSearchResponse

RETRYABLE = frozenset({429, 502, 503, 504})


class MemoryApiError(Exception):
    """A non-2xx answer, carrying the API's error code, message and offending field."""

    def __init__(self, status: int, code: str, message: str, field: str | None) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" (field: {field})" if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field


class MemoryClient:
    def __init__(
        self,
        base_url: str,
        *,
        sigv4_region: str | None = None,
        timeout_seconds: float = 10.0,
        retries: int = 3,
        local_principals: str | None = None,
        api_key: str | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._region = sigv4_region
        # Only `agentmem serve` reads this header (its stand-in for an authorizer); on AWS a
        # caller's principals come from its IAM identity. Writes need a writer principal, e.g.
        # "writer,analyst" (docs/access.md).
        self._principals = local_principals
        # `agentmem serve` with AGENTMEM_API_KEYS set requires one (sent as a bearer token).
        self._api_key = api_key
        self._http = urllib3.PoolManager(
            maxsize=16,  # one connection per concurrent caller thread, reused (keep-alive)
            timeout=urllib3.Timeout(total=timeout_seconds),
            # Retry only what the API marks retryable; a 503 carries Retry-After, which urllib3 honours.
            retries=urllib3.Retry(
                total=retries,
                status_forcelist=RETRYABLE,
                allowed_methods=None,
                backoff_factor=0.2,
                respect_retry_after_header=True,
                raise_on_status=False,
            ),
        )

    def request(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None) -> Any:
        url = self.base_url + path
        params = {k: _query_value(v) for k, v in (query or {}).items() if v is not None}
        if params:
            url += "?" + urlencode(params)
        data = json.dumps(body).encode("utf-8") if body is not None else None
        headers = {"content-type": "application/json", "accept": "application/json"}
        if self._principals:
            headers["x-agentmem-principals"] = self._principals
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"
        if self._region:
            headers = self._sign(method, url, data, headers, self._region)
        response = self._http.request(method, url, body=data, headers=headers)
        payload = json.loads(response.data) if response.data else None
        if response.status >= 400:
            error = (payload or {}).get("error", {}) if isinstance(payload, dict) else {}
            raise MemoryApiError(
                response.status, error.get("code", "http_error"), error.get("message", ""), error.get("field")
            )
        return payload

    def _sign(
        self, method: str, url: str, data: bytes | None, headers: dict[str, str], region: str
    ) -> dict[str, str]:
        import botocore.session
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest

        credentials = botocore.session.get_session().get_credentials()
        if credentials is None:
            raise MemoryApiError(0, "no_credentials", "SigV4 signing needs AWS credentials", None)
        aws_request = AWSRequest(method=method, url=url, data=data, headers=headers)
        SigV4Auth(credentials.get_frozen_credentials(), "execute-api", region).add_auth(aws_request)
        return dict(aws_request.headers.items())

    # -- episodic log -------------------------------------------------------------------------

    def append_event(
        self,
        session_id: str,
        *,
        subject_id: str,
        round: int,
        agent: str,
        kind: str,
        content: EventContent,
        media_type: str | None = None,
        idempotency_key: str | None = None,
    ) -> AppendEventResponse:
        body: dict[str, Any] = {
            "subject_id": subject_id,
            "round": round,
            "agent": agent,
            "kind": kind,
            "content": content,
        }
        if media_type is not None:
            body["media_type"] = media_type
        # Always send a key: the client's own retries (on 503 or a dropped connection) then can
        # never append the same output twice.
        body["idempotency_key"] = idempotency_key or f"auto-{uuid.uuid4().hex}"
        return AppendEventResponse.model_validate(
            self.request("POST", f"/v1/sessions/{session_id}/events", body)
        )

    def list_events(
        self,
        session_id: str,
        *,
        after: int = 0,
        limit: int = 100,
        agent: str | None = None,
        round: int | None = None,
        resolve_blobs: bool = False,
    ) -> EventPage:
        query = {
            "after": after,
            "limit": limit,
            "agent": agent,
            "round": round,
            "resolve_blobs": resolve_blobs,
        }
        return EventPage.model_validate(self.request("GET", f"/v1/sessions/{session_id}/events", query=query))

    # -- read path ----------------------------------------------------------------------------

    def context(
        self,
        *,
        subject_id: str,
        session_id: str,
        agent: str,
        query: str,
        budget_tokens: int | None = None,
        split: float | None = None,
        encoding: str | None = None,
        include: list[str] | None = None,
    ) -> ContextResponse:
        """The budgeted slice of memory for `agent`'s next prompt."""
        body: dict[str, Any] = {
            "subject_id": subject_id,
            "session_id": session_id,
            "agent": agent,
            "query": query,
        }
        optional = {"budget_tokens": budget_tokens, "split": split, "encoding": encoding, "include": include}
        body.update({k: v for k, v in optional.items() if v is not None})
        return ContextResponse.model_validate(self.request("POST", "/v1/context", body))

    def beliefs(self, subject_id: str) -> list[Belief]:
        return BeliefList.model_validate(self.request("GET", f"/v1/subjects/{subject_id}/beliefs")).items

    def belief_history(self, subject_id: str, key: str) -> BeliefChainView:
        path = f"/v1/subjects/{subject_id}/beliefs/{key}"
        return BeliefChainView.model_validate(self.request("GET", path, query={"history": True}))

    # -- procedural tier ------------------------------------------------------------------------

    def put_function(self, spec: FunctionSpec) -> Function:
        body = spec.model_dump(mode="json")
        return Function.model_validate(self.request("PUT", f"/v1/functions/{spec.function_id}", body))

    def put_guidance(self, spec: GuidanceSpec) -> Guidance:
        body = spec.model_dump(mode="json")
        return Guidance.model_validate(self.request("PUT", f"/v1/guidance/{spec.guidance_id}", body))

    def approve_function(self, function_id: str) -> Function:
        return Function.model_validate(self.request("POST", f"/v1/functions/{function_id}/approve"))

    def approve_guidance(self, guidance_id: str) -> Guidance:
        return Guidance.model_validate(self.request("POST", f"/v1/guidance/{guidance_id}/approve"))

    def search_skills(
        self, task: str, *, k: int = 5, budget_tokens: int | None = None
    ) -> SkillSearchResponse:
        body: dict[str, Any] = {"task": task, "k": k}
        if budget_tokens is not None:
            body["budget_tokens"] = budget_tokens
        return SkillSearchResponse.model_validate(self.request("POST", "/v1/skills/search", body))

    def review_session(self, session_id: str) -> ReviewResponse:
        """Draft skills proposed from the session's write-ups; nothing is searchable until approved."""
        return ReviewResponse.model_validate(
            self.request("POST", "/v1/skills/review", {"session_id": session_id})
        )

    # -- composer -----------------------------------------------------------------------------

    def put_assets(
        self, assets: Sequence[Asset], *, on_bulk: Callable[[int], None] | None = None
    ) -> PutAssetsResponse:
        """Write assets in bulks of the API's size (each bulk one transaction); returns the last
        bulk's answer, whose `revision` is the catalogue's after all of them. `on_bulk` hears how
        many each bulk wrote (agentmem.progress draws a bar from it)."""
        answer = PutAssetsResponse(written=0, revision=0)
        written = 0
        for start in range(0, len(assets), MAX_ASSETS_PER_PUT):
            bulk = [a.model_dump(mode="json") for a in assets[start : start + MAX_ASSETS_PER_PUT]]
            answer = PutAssetsResponse.model_validate(self.request("PUT", "/v1/assets", {"assets": bulk}))
            written += answer.written
            if on_bulk is not None:
                on_bulk(answer.written)
        return answer.model_copy(update={"written": written})

    def put_skill(self, skill_id: str, spec: ComposerSkillSpec) -> ComposerSkill:
        """An authored composer skill: intent, procedure, contract, guardrails and a scope."""
        body = spec.model_dump(mode="json")
        return ComposerSkill.model_validate(self.request("PUT", f"/v1/skills/{skill_id}", body))

    def compose(
        self,
        skill_id: str,
        question: str,
        *,
        budget_tokens: int | None = None,
        conversation_id: str | None = None,
    ) -> ComposeResponse:
        """The skill's document for this question, within the budget, and the report of how."""
        body: dict[str, Any] = {"question": question}
        optional = {"budget_tokens": budget_tokens, "conversation_id": conversation_id}
        body.update({k: v for k, v in optional.items() if v is not None})
        return ComposeResponse.model_validate(self.request("POST", f"/v1/skills/{skill_id}/compose", body))

    def health(self) -> dict[str, Any]:
        result: dict[str, Any] = self.request("GET", "/v1/health")
        return result


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
