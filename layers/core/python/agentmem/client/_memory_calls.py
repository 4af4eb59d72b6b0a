"""The API calls of memory itself (the log, beliefs, context reads, subjects), each a program
that both clients run: one body built and one answer parsed for the sync and the async client."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from agentmem.client._program import ApiRequest, Program, path_segment
from agentmem.model.api_beliefs import BeliefChainView, BeliefList, BeliefSearchResponse
from agentmem.model.beliefs import Belief, BeliefHit, FactInput
from agentmem.model.context import ContextResponse
from agentmem.model.events import AppendEventResponse, EventContent, EventPage
from agentmem.subjects.model import ErasureRecord


def request(method: str, path: str, body: Any = None, query: Mapping[str, Any] | None = None) -> Program[Any]:
    """Any route: the answer's JSON as it stands."""
    return (yield ApiRequest(method, path, body, query))


# -- episodic log -----------------------------------------------------------------------------


def append_event(
    session_id: str,
    *,
    subject_id: str,
    round: int,
    agent: str,
    kind: str,
    content: EventContent,
    media_type: str | None = None,
    idempotency_key: str | None = None,
    facts: Sequence[FactInput] | None = None,
) -> Program[AppendEventResponse]:
    """Append `agent`'s output to the session's log. `facts` are stated explicitly: they skip
    extraction and are projected as given."""
    body: dict[str, Any] = {
        "subject_id": subject_id,
        "round": round,
        "agent": agent,
        "kind": kind,
        "content": content,
    }
    if media_type is not None:
        body["media_type"] = media_type
    if facts is not None:
        body["facts"] = [f.model_dump(mode="json", exclude_none=True) for f in facts]
    # Always send a key: the client's own retries (on 503 or a dropped connection) then can
    # never append the same output twice.
    body["idempotency_key"] = idempotency_key or f"auto-{uuid.uuid4().hex}"
    path = f"/v1/sessions/{path_segment(session_id)}/events"
    return AppendEventResponse.model_validate((yield ApiRequest("POST", path, body)))


def list_events(
    session_id: str,
    *,
    after: int = 0,
    limit: int = 100,
    agent: str | None = None,
    round: int | None = None,
    resolve_blobs: bool = False,
) -> Program[EventPage]:
    query = {"after": after, "limit": limit, "agent": agent, "round": round, "resolve_blobs": resolve_blobs}
    path = f"/v1/sessions/{path_segment(session_id)}/events"
    return EventPage.model_validate((yield ApiRequest("GET", path, query=query)))


# -- read path and semantic tier ----------------------------------------------------------------


def context(
    *,
    subject_id: str,
    session_id: str,
    agent: str,
    query: str,
    budget_tokens: int | None = None,
    split: float | None = None,
    encoding: str | None = None,
    include: list[str] | None = None,
    since: str | None = None,
) -> Program[ContextResponse]:
    """The budgeted slice of memory for `agent`'s next prompt. `since`: an earlier read's
    `trace.watermark`; the slice then leads with what changed after that read."""
    body: dict[str, Any] = {
        "subject_id": subject_id,
        "session_id": session_id,
        "agent": agent,
        "query": query,
    }
    optional = {
        "budget_tokens": budget_tokens,
        "split": split,
        "encoding": encoding,
        "include": include,
        "since": since,
    }
    body.update({k: v for k, v in optional.items() if v is not None})
    return ContextResponse.model_validate((yield ApiRequest("POST", "/v1/context", body)))


def beliefs(subject_id: str) -> Program[list[Belief]]:
    """Every current belief about the subject."""
    path = f"/v1/subjects/{path_segment(subject_id)}/beliefs"
    return BeliefList.model_validate((yield ApiRequest("GET", path))).items


def belief(subject_id: str, key: str) -> Program[BeliefChainView]:
    """The current belief(s) under `key` (several for a set-valued key); `NotFound` for none."""
    path = f"/v1/subjects/{path_segment(subject_id)}/beliefs/{path_segment(key)}"
    return BeliefChainView.model_validate((yield ApiRequest("GET", path)))


def belief_history(subject_id: str, key: str) -> Program[BeliefChainView]:
    """The current belief(s) under `key` and every archived version; `NotFound` for none."""
    path = f"/v1/subjects/{path_segment(subject_id)}/beliefs/{path_segment(key)}"
    return BeliefChainView.model_validate((yield ApiRequest("GET", path, query={"history": True})))


def search_beliefs(subject_id: str, query: str, *, k: int = 5) -> Program[list[BeliefHit]]:
    """The subject's current beliefs nearest `query` in meaning (k at most 50)."""
    path = f"/v1/subjects/{path_segment(subject_id)}/beliefs/search"
    answer = yield ApiRequest("POST", path, {"query": query, "k": k})
    return BeliefSearchResponse.model_validate(answer).items


# -- subjects (operator actions: they need the writer role) --------------------------------------


def erase_subject(subject_id: str) -> Program[ErasureRecord]:
    """Erase the subject from every tier (docs/erasure.md); follow it with `erasure`."""
    path = f"/v1/subjects/{path_segment(subject_id)}"
    return ErasureRecord.model_validate((yield ApiRequest("DELETE", path)))


def erasure(erasure_id: str) -> Program[ErasureRecord]:
    """An erasure's progress, tier by tier."""
    return ErasureRecord.model_validate((yield ApiRequest("GET", f"/v1/erasures/{path_segment(erasure_id)}")))


def health() -> Program[dict[str, Any]]:
    answer: dict[str, Any] = yield ApiRequest("GET", "/v1/health")
    return answer
