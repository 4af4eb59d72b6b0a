"""For tests of the history source: an episodic writer whose events are one day apart (what was
said "earlier" must not rest on the wall clock, which gives two quick appends the same
millisecond), a drained projector, and a reader's context."""

from __future__ import annotations

import itertools
from typing import Any

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.episodic.service import EpisodicLimits, EpisodicService
from agentmem.model.context import ContextRequest
from agentmem.semantic.worker import ProjectorWorker
from agentmem.wiring import Services


def daily_writer(services: Services, *, start_day: int = 1) -> EpisodicService:
    """Appends through the services' log and blobs, the n-th event dated 2026-01-(start_day + n)."""
    days = itertools.count(start_day)
    return EpisodicService(
        services.event_log,
        services.blobs,
        EpisodicLimits(inline_max_bytes=4096, max_request_bytes=1 << 20),
        clock=lambda: f"2026-01-{next(days):02d}T09:00:00.000Z",
    )


def project_all(services: Services) -> None:
    """Project every logged event, passages included, on the local backend."""
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    ProjectorWorker(log, services.semantic, SqliteCheckpoints(log.database, "local")).run_once()


def read_context(
    services: Services, subject_id: str, query: str, *, session_id: str = "S9", budget: int = 1000
) -> dict[str, Any]:
    """A reader's context for `query` at `budget` tokens, as the JSON the API returns."""
    request = ContextRequest(
        subject_id=subject_id, session_id=session_id, agent="reader", query=query, budget_tokens=budget
    )
    return services.context.build(request).model_dump(mode="json")
