"""Context reads rank a bounded window of the session's newest events, say what lay outside it,
and on a growing session fetch only what was appended since the last read.

The log is an in-memory EventLog (gap-free seqs, as every adapter guarantees) that counts the
events it hands out, so a test can see what a read fetched."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from agentmem.adapters.local.blob_folder import FolderBlobStore
from agentmem.adapters.tokens import count_tokens
from agentmem.context.service import ContextService
from agentmem.context.session_window import SessionWindows
from agentmem.context.token_cache import CachedTokenCounts
from agentmem.episodic.service import EpisodicLimits, EpisodicService
from agentmem.model.context import ContextRequest, ContextResponse
from agentmem.model.events import AppendOutcome, Event, EventDraft
from agentmem.ports.tokens import EncodingName
from agentmem.semantic.service import SemanticService


class CountingLog:
    """An EventLog in memory that counts the events each read hands out."""

    def __init__(self) -> None:
        self.sessions: dict[str, list[Event]] = {}
        self.handed_out = 0
        self.newest_reads = 0

    def add(self, session_id: str, content: str, *, subject_id: str = "priya") -> Event:
        events = self.sessions.setdefault(session_id, [])
        event = Event(
            event_id=f"{session_id}-{len(events) + 1}", session_id=session_id, seq=len(events) + 1,
            subject_id=subject_id, round=0, agent="analyst", kind="note", media_type="text/plain",
            content=content, created_at="2026-12-01T00:00:00.000Z",
        )  # fmt: skip
        events.append(event)
        return event

    def append(self, draft: EventDraft) -> AppendOutcome:
        raise NotImplementedError("the tests add events with `add`")

    def _out(self, events: Sequence[Event]) -> list[Event]:
        self.handed_out += len(events)
        return list(events)

    def list_events(
        self, session_id: str, *, after: int = 0, limit: int = 100, agent: str | None = None,
        round: int | None = None,
    ) -> list[Event]:  # fmt: skip
        return self._out([e for e in self.sessions.get(session_id, []) if e.seq > after][:limit])

    def recent_events(self, session_id: str, *, before: int | None = None, limit: int = 100) -> list[Event]:
        self.newest_reads += 1
        older = [e for e in self.sessions.get(session_id, []) if before is None or e.seq < before]
        return self._out(older[::-1][:limit])

    def last_seq(self, session_id: str) -> int:
        return len(self.sessions.get(session_id, []))


def no_semantic() -> SemanticService:
    raise AssertionError("these reads ask for episodic only")


def context(log: CountingLog, tmp_path: Path, windows: SessionWindows | None = None) -> ContextService:
    episodic = EpisodicService(log, FolderBlobStore(tmp_path / "blobs"), EpisodicLimits(32 * 1024, 1 << 20))
    chosen = {"windows": windows} if windows is not None else {}
    return ContextService(log, episodic, no_semantic, count_tokens, **chosen)


def read(service: ContextService, query: str = "where did the audit land?") -> ContextResponse:
    return service.build(
        ContextRequest(subject_id="priya", session_id="S", agent="a", query=query, budget_tokens=4000,
                       include=["episodic"])
    )  # fmt: skip


def fill(log: CountingLog, count: int) -> None:
    for n in range(count):
        log.add("S", f"Routine note {n}: balances reconciled, nothing unusual in batch {n}.")


def test_the_newest_events_are_read_even_past_five_thousand(tmp_path: Path) -> None:
    log = CountingLog()
    fill(log, 5_006)
    newest = log.add("S", "The audit landed in Lisbon: the zeppelin invoice was approved.")

    result = read(context(log, tmp_path), "zeppelin invoice audit")

    assert "the zeppelin invoice was approved" in result.markdown
    assert result.items[0].ref["seq"] == newest.seq
    assert result.trace.log_watermark_seq == newest.seq


def test_the_trace_says_which_events_lay_outside_the_window(tmp_path: Path) -> None:
    log = CountingLog()
    fill(log, 130)
    result = read(context(log, tmp_path, SessionWindows(log, size=50)))

    window = result.trace.episodic_window
    assert window is not None
    assert (window.size, window.ranked, window.first_seq, window.last_seq) == (50, 50, 81, 130)
    assert (window.outside, window.outside_seqs) == (80, (1, 80))
    assert "80 older ones (#1-#80) lay outside the window" in " ".join(result.trace.notes)
    assert {int(i.ref["seq"]) for i in result.items} <= set(range(81, 131))


def test_a_session_inside_the_window_has_nothing_outside(tmp_path: Path) -> None:
    log = CountingLog()
    fill(log, 12)
    window = read(context(log, tmp_path, SessionWindows(log, size=50))).trace.episodic_window
    assert window is not None
    assert (window.ranked, window.first_seq, window.outside, window.outside_seqs) == (12, 1, 0, None)


def test_a_growing_session_fetches_only_what_was_appended_and_reads_as_a_cold_reader_would(
    tmp_path: Path,
) -> None:
    log = CountingLog()
    fill(log, 300)
    warm = context(log, tmp_path, SessionWindows(log, size=100))
    read(warm)
    assert log.handed_out == 100  # the newest 100, nothing older

    log.add("S", "The audit landed: two invoices were flagged for review.")
    log.add("S", "Follow-up: the flagged invoices were cleared by finance.")
    before = log.handed_out
    incremental = read(warm)

    assert log.handed_out - before == 2
    assert log.newest_reads == 1  # the second read slid the window instead of re-reading it
    cold = read(context(log, tmp_path, SessionWindows(log, size=100)))
    assert incremental.markdown == cold.markdown
    assert incremental.trace == cold.trace


def test_more_than_a_window_appended_between_reads_is_read_from_the_newest_end(tmp_path: Path) -> None:
    log = CountingLog()
    fill(log, 20)
    windows = SessionWindows(log, size=10)
    assert windows.read("S").last_seq == 20
    fill(log, 25)
    window = windows.read("S")
    assert (window.first_seq, window.last_seq) == (36, 45)
    assert log.newest_reads == 2


def test_the_cache_is_bounded_by_events_held_least_recently_read_first_out() -> None:
    log = CountingLog()
    for session in ("A", "B", "C"):
        for n in range(10):
            log.add(session, f"note {n}")
    windows = SessionWindows(log, size=10, max_cached_events=20)
    for session in ("A", "B", "A", "C"):  # C pushes out B, the least recently read
        windows.read(session)
    reads = log.newest_reads
    windows.read("A")
    windows.read("C")
    assert log.newest_reads == reads
    windows.read("B")
    assert log.newest_reads == reads + 1


def test_an_entry_older_than_its_age_limit_is_read_again_from_the_log() -> None:
    log = CountingLog()
    fill(log, 5)
    now = [0.0]
    windows = SessionWindows(log, size=10, max_age_seconds=60, clock=lambda: now[0])
    windows.read("S")
    now[0] = 59.0
    log.add("S", "appended")
    assert windows.read("S").last_seq == 6
    assert log.newest_reads == 1  # slid, not re-read
    now[0] = 61.0
    windows.read("S")
    assert log.newest_reads == 2


def test_forgetting_a_subject_drops_its_sessions_and_only_those() -> None:
    log = CountingLog()
    log.add("S", "about priya")
    log.add("T", "about sam", subject_id="sam")
    windows = SessionWindows(log, size=10)
    windows.read("S")
    windows.read("T")
    assert windows.forget_subject("priya") == 1
    reads = log.newest_reads
    windows.read("T")
    assert log.newest_reads == reads
    windows.read("S")
    assert log.newest_reads == reads + 1


def test_a_window_holds_at_least_one_event() -> None:
    with pytest.raises(ValueError, match="at least one"):
        SessionWindows(CountingLog(), size=0)


def test_token_counts_are_kept_between_reads_exactly_and_within_their_bound() -> None:
    calls: list[str] = []

    def counting(text: str, encoding: EncodingName) -> int:
        calls.append(text)
        return count_tokens(text, encoding)

    counts = CachedTokenCounts(counting, max_entries=2)
    line = "- [S #7 r0 analyst/note] Routine note 7: balances reconciled.\n"
    assert counts(line, "o200k_base") == count_tokens(line, "o200k_base")
    assert counts(line, "o200k_base") == count_tokens(line, "o200k_base")
    assert counts(line, "cl100k_base") == count_tokens(line, "cl100k_base")  # another encoding
    assert len(calls) == 2
    counts("third text", "o200k_base")  # over the bound: the cache starts afresh
    counts(line, "o200k_base")
    assert len(calls) == 4
