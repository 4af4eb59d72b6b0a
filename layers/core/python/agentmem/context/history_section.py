"""The history source's part of a read: the earlier sessions' passages the search found, checked
against the beliefs and the reader's own session, added after the candidates so far, with what
they left out and what their passages say is over (context/history_candidates.py ranks them)."""

from __future__ import annotations

from concurrent.futures import Future

from agentmem.context.episodic_candidates import SessionRanking
from agentmem.context.history_candidates import HistorySearch, history_candidates
from agentmem.context.retirements import Retired
from agentmem.context.semantic_candidates import with_later_labels
from agentmem.context.session_window import SessionWindow
from agentmem.model.beliefs import Belief
from agentmem.model.context import ContextRequest
from agentmem.packing.model import Candidate, Dropped
from agentmem.ports.semantic import BeliefIndex


def with_history(
    history: HistorySearch,
    request: ContextRequest,
    index: BeliefIndex | None,
    beliefs: list[Belief],
    standing: list[Belief],
    notes: list[str],
    candidates: list[Candidate],
    session: Future[tuple[SessionWindow, SessionRanking]] | None,
) -> tuple[list[Candidate], list[Dropped], Retired]:
    """The candidates so far with the history's after them, what the history left out
    (`standing`: the beliefs a passage may be dropped for), and what its passages say is over.
    `session` is still a future: the later-said check starts on a worker thread before the
    reader's session is waited for."""
    said_after = history.said_after(beliefs)
    hits, _ = history.result().of_session(request.session_id)
    in_session = [r for t in session.result()[0].events for r in t.retired] if session is not None else []
    found = history_candidates(
        hits,
        index,
        beliefs,
        request.subject_id,
        said_after.result(),
        in_session,
        standing={b.doc_id for b in standing},
    )
    notes.append(f"history: {len(found.candidates)} passage(s) of earlier sessions ranked; {found.note}")
    pending = hits.pending_vectors
    if pending:
        notes.append(f"history: {pending} passage(s) not embedded yet: found by keyword only, not by meaning")
    candidates = with_later_labels(candidates, beliefs, found.retired) + found.candidates
    return candidates, found.dropped, found.retired
