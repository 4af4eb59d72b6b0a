"""Progress on long commands: live on a terminal with counts, rate and time left; silent otherwise;
and the counting wrappers change nothing about the work they count."""

from __future__ import annotations

import io
from collections.abc import Sequence

from agentmem.model.events import Event
from agentmem.progress import CountingEmbedder, CountingTail, counted, counting_embeddings, progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_quiet_when_not_a_terminal() -> None:
    out = io.StringIO()
    with progress("replay", 10, unit="events", stream=out) as step:
        step(10)
    assert out.getvalue() == ""


def test_a_terminal_sees_counts_and_time_left() -> None:
    out = Terminal()
    with progress("replay", 10, unit="events", stream=out) as step:
        for _ in range(10):
            step(1)
    shown = out.getvalue()
    assert "replay" in shown and "10/10" in shown and "events" in shown and "left" in shown


class Squares:
    model_id = "squares"
    dimensions = 1

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        return [[float(len(t)) ** 2] for t in texts]


def test_the_counting_embedder_returns_the_inner_vectors_in_chunks() -> None:
    inner, seen = Squares(), []
    texts = [str(i) for i in range(150)]
    wrapped = CountingEmbedder(inner, seen.append, chunk=64)
    assert wrapped.embed(texts) == Squares().embed(texts)
    assert inner.calls == [64, 64, 22] and seen == [64, 64, 22]
    assert (wrapped.model_id, wrapped.dimensions) == ("squares", 1)


def test_counting_embeddings_puts_the_embedder_back() -> None:
    class Holder:
        def __init__(self) -> None:
            self.embedder = Squares()

    holder, seen = Holder(), []
    original = holder.embedder
    with counting_embeddings(holder, seen.append):
        holder.embedder.embed(["a", "b"])
    assert holder.embedder is original and seen == [2]


def _event(seq: int) -> Event:
    return Event(
        event_id=f"e{seq}",
        session_id="s",
        seq=seq,
        subject_id="p",
        round=0,
        agent="a",
        kind="k",
        media_type="text/plain",
        content="x",
        created_at="2026-01-01T00:00:00Z",
    )


def test_the_counting_tail_counts_what_it_reads() -> None:
    class Tail:
        def read_since(self, position: int, limit: int = 500) -> list[tuple[int, Event]]:
            return [(p, _event(p)) for p in range(position + 1, min(position + limit, 7) + 1)]

        def head_position(self) -> int:
            return 7

    seen: list[int] = []
    tail = CountingTail(Tail(), seen.append)
    assert [p for p, _ in tail.read_since(0, 5)] == [1, 2, 3, 4, 5]
    assert len(tail.read_since(5, 5)) == 2 and tail.read_since(7) == []
    assert seen == [5, 2, 0] and tail.head_position() == 7


def test_counted_advances_once_per_call() -> None:
    seen: list[int] = []
    double = counted(lambda x: 2 * x, seen.append)
    assert [double(1), double(2)] == [2, 4] and seen == [1, 1]
