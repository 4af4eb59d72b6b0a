"""Driving agentmem through its HTTP API for the conversation bench: append every turn as an
event, check every label against the log, detect the `history` source, read a reader's context."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from conversation_gen import Question, Subject
from conversation_score import EventRef, Reading
from conversation_text import says

from agentmem.client import MemoryApiError, MemoryClient

READER_AGENT = "reader"
NO_HISTORY = ["episodic", "semantic"]  # the default sources
WITH_HISTORY = ["episodic", "semantic", "history"]


def reader_session(subject: Subject) -> str:
    """A session of its own for the reader: it has no events, so nothing comes from this session."""
    return f"{subject.subject_id}-reader"


@dataclass
class Loaded:
    refs: dict[str, EventRef] = field(default_factory=dict)  # turn id -> where the log put it
    append_seconds: float = 0.0

    @property
    def by_seq(self) -> dict[tuple[str, int], str]:
        return {(r.session_id, r.seq): r.event_id for r in self.refs.values()}


def append_all(client: MemoryClient, subjects: Iterable[Subject]) -> Loaded:
    """Every turn as one event of its session, in order: agent = speaker, round = turn number."""
    loaded = Loaded()
    start = time.perf_counter()
    for subject in subjects:
        for number, session in enumerate(subject.sessions, start=1):
            session_id = subject.session_id(number)
            for round_, turn in enumerate(session):
                ack = client.request(
                    "POST",
                    f"/v1/sessions/{session_id}/events",
                    {
                        "subject_id": subject.subject_id,
                        "round": round_,
                        "agent": turn.agent,
                        "kind": turn.kind,
                        "content": turn.content,
                        "idempotency_key": turn.turn_id.replace("/", ":"),
                    },
                )
                loaded.refs[turn.turn_id] = EventRef(session_id, int(ack["seq"]), str(ack["event_id"]))
    loaded.append_seconds = time.perf_counter() - start
    return loaded


def verify_labels(client: MemoryClient, subjects: Sequence[Subject], loaded: Loaded) -> int:
    """Every evidence label points at a real event whose stored content is the turn, and the turn
    says the labelled value. Raises on the first label that does not; returns how many were checked."""
    checked = 0
    for subject in subjects:
        stored: dict[tuple[str, int], dict[str, Any]] = {}
        for number in range(1, len(subject.sessions) + 1):
            session_id, after = subject.session_id(number), 0
            while True:
                page = client.request("GET", f"/v1/sessions/{session_id}/events", query={"after": after})
                stored.update({(session_id, int(e["seq"])): e for e in page["items"]})
                if not page["next"]:
                    break
                after = int(page["next"])
        turns = {t.turn_id: t for t in subject.turns()}
        for q in subject.questions:
            labels = [(t, q.current) for t in q.evidence]
            labels += [(t, q.superseded) for t in q.superseded_evidence if q.superseded is not None]
            for turn_id, value in labels:
                ref, turn = loaded.refs[turn_id], turns[turn_id]
                event = stored.get((ref.session_id, ref.seq))
                if event is None or event["event_id"] != ref.event_id or event["content"] != turn.content:
                    raise AssertionError(f"{q.question_id}: label {turn_id} is not the event at {ref}")
                if not says(value.forms, turn.content):
                    raise AssertionError(f"{q.question_id}: {turn_id} does not say {value.text!r}")
                checked += 1
    return checked


def detect_history(client: MemoryClient, subject_id: str, session_id: str) -> tuple[bool, str]:
    """Whether `/v1/context` accepts the `history` source: a 422 naming `include` means no."""
    body = {
        "subject_id": subject_id,
        "session_id": session_id,
        "agent": READER_AGENT,
        "query": "what do we know?",
        "budget_tokens": 500,
        "include": WITH_HISTORY,
    }
    try:
        client.request("POST", "/v1/context", body)
    except MemoryApiError as exc:
        if exc.status in (400, 422) and "include" in f"{exc.field} {exc.message}":
            return False, f"{exc.status} {exc.code}: {exc.message}"
        if exc.status == 404 and exc.field == "subject_id":
            return True, "accepted (the subject had no memory to read)"  # validated, then found nothing
        raise
    return True, "accepted"


def context_body(subject: Subject, query: str, budget: int, include: list[str]) -> dict[str, Any]:
    return {
        "subject_id": subject.subject_id,
        "session_id": reader_session(subject),
        "agent": READER_AGENT,
        "query": query,
        "budget_tokens": budget,
        "include": include,
    }


def read_context(
    client: MemoryClient, subject: Subject, question: Question, budget: int, include: list[str]
) -> tuple[dict[str, Any], float]:
    """The raw answer (unknown fields kept) and its latency; a subject with no memory is empty."""
    start = time.perf_counter()
    try:
        response: dict[str, Any] = client.request(
            "POST", "/v1/context", context_body(subject, question.text, budget, include)
        )
    except MemoryApiError as exc:
        if exc.status != 404 or exc.field != "subject_id":
            raise
        response = {"markdown": "", "items": [], "trace": {"used_tokens": 0}}
    return response, time.perf_counter() - start


def beliefs_of(client: MemoryClient, subject: Subject) -> dict[str, dict[str, Any]]:
    """The subject's current beliefs by doc id, as the API lists them (provenance included)."""
    listed = client.request("GET", f"/v1/subjects/{subject.subject_id}/beliefs")
    return {str(b["doc_id"]): b for b in listed["items"]}


def evidence_clauses(subject: Subject, question: Question, loaded: Loaded) -> dict[str, str]:
    """Evidence event id -> the sentence of it that states the current value (the text fallback)."""
    clauses: dict[str, str] = {}
    turns = {t.turn_id: t for t in subject.turns()}
    for turn_id in question.evidence:
        mention = next(m for m in turns[turn_id].mentions if m.slot == question.slot)
        clauses[loaded.refs[turn_id].event_id] = mention.clause
    return clauses


def empty_reading() -> Reading:
    return Reading("", 0, {})
