"""Knowledge-update scenarios run through the whole local stack (tests/data/rules/prose_changes*):
append each scenario's statements, project, and read back what the subject's beliefs say. Shared
by tests/functional/test_prose_beliefs.py and test_prose_changes.py."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agentmem.model.beliefs import normalise_value


@dataclass(frozen=True)
class UpdateOutcome:
    """One knowledge-update scenario after projection: what the subject's beliefs say now."""

    id: str
    split: str
    subject: str
    held: bool  # a current belief under the expected key holds the expected value
    verdict_right: bool  # its verdict and flag are the expected ones
    found_first: bool  # a question in other words finds it first
    beliefs: list[tuple[str, str]]


def run_updates(services: Any, rows: Iterable[dict[str, Any]]) -> list[UpdateOutcome]:
    """Append each scenario's statements (one session each) through the episodic service, run the
    projector worker after each, then read the beliefs back. `services` is a bootstrapped stack."""
    from agentmem.adapters.local.sqlite_log import SqliteCheckpoints
    from agentmem.model.events import AppendEventRequest
    from agentmem.semantic.worker import ProjectorWorker

    log = services.event_log
    worker = ProjectorWorker(
        log, services.semantic, SqliteCheckpoints(log.database, services.settings.tenant_id)
    )
    placed = []
    for i, row in enumerate(rows):
        # Third-person statements name Priya, so that subject is hers; the others get their own.
        subject = f"priya-{row['id']}" if row["agent"] == "user" else "priya"
        placed.append((subject, row))
        for n, text in enumerate(row["statements"], 1):
            request = AppendEventRequest(
                subject_id=subject, round=0, agent=row["agent"], kind=row["kind"], content=text
            )
            services.episodic.append(f"{subject}-s{n}-{i}", request)
            worker.settle()
    return [_outcome(services.semantic, subject, row) for subject, row in placed]


def _outcome(semantic: Any, subject: str, row: dict[str, Any]) -> UpdateOutcome:
    wanted = normalise_value(row["value"])
    current = semantic.current(subject)
    belief = next((b for b in current if b.key == row["key"] and normalise_value(b.value) == wanted), None)
    verdict = None if belief is None else (belief.verdict.value if belief.version > 1 else "SAME")
    hits = semantic.search(subject, row["query"], k=1)
    return UpdateOutcome(
        id=row["id"],
        split=row["split"],
        subject=subject,
        held=belief is not None,
        verdict_right=belief is not None and (verdict, belief.flag) == (row["verdict"], row["flag"]),
        found_first=bool(hits) and normalise_value(hits[0].belief.value) == wanted,
        beliefs=[(b.key, b.value) for b in current],
    )
