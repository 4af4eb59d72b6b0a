"""Progress for long commands (replay, reindex, eval, bulk loads): counts, rate and time left on a
terminal, with `rich`; nothing at all when the stream is not a terminal (CI logs, pipes, tests).

The wrappers here put a bar on work without touching the code doing it: a log tail that counts
the events read, an embedder that counts the texts embedded, a callable that counts its calls."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, TypeVar

from agentmem.model.events import Event
from agentmem.ports.embedding import Embedder
from agentmem.ports.log import LogTail

if TYPE_CHECKING:
    from agentmem.semantic.service import SemanticService

Step = Callable[[int], None]
"""Advance the bar by this many units."""
EMBED_CHUNK = 64  # the local embedder's own batch: a text's vector does not depend on its batch mates
R = TypeVar("R")


def _quiet(_: int) -> None:
    return None


@contextmanager
def progress(
    description: str, total: int | None, *, unit: str = "items", stream: IO[str] | None = None
) -> Iterator[Step]:
    """A bar of `total` (None: unknown) `unit`s on `stream` (stderr), live only on a terminal."""
    out = stream if stream is not None else sys.stderr
    if not out.isatty():
        yield _quiet
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(f"{unit}"),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("elapsed,"),
        TimeRemainingColumn(),
        TextColumn("left"),
    )
    with Progress(*columns, console=Console(file=out), transient=False) as bar:
        task = bar.add_task(description, total=total, rate="")

        def step(n: int) -> None:
            bar.advance(task, n)
            speed = bar.tasks[task].speed
            bar.update(task, rate=f"{speed:,.0f} {unit}/s" if speed else "")

        yield step


class CountingTail:
    """A LogTail whose reads advance `step` by the events read."""

    def __init__(self, tail: LogTail, step: Step) -> None:
        self._tail = tail
        self._step = step

    def read_since(self, position: int, limit: int = 500) -> list[tuple[int, Event]]:
        batch = self._tail.read_since(position, limit)
        self._step(len(batch))
        return batch

    def head_position(self) -> int:
        return self._tail.head_position()


class CountingEmbedder:
    """An Embedder that embeds in chunks of the model's batch size and advances `step` after
    each: the vectors are the inner embedder's, whatever the chunking."""

    def __init__(self, inner: Embedder, step: Step, chunk: int = EMBED_CHUNK) -> None:
        self._inner = inner
        self._step = step
        self._chunk = chunk

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._chunk):
            chunk = list(texts[start : start + self._chunk])
            vectors += self._inner.embed(chunk)
            self._step(len(chunk))
        return vectors


def counted(call: Callable[..., R], step: Step) -> Callable[..., R]:
    """`call`, advancing `step` by one after each call."""

    def run(*args: object, **kwargs: object) -> R:
        result = call(*args, **kwargs)
        step(1)
        return result

    return run


@contextmanager
def counting_embeddings(holder: SemanticService, step: Step) -> Iterator[None]:
    """While inside, every embedding `holder` (a SemanticService) computes advances `step`;
    whoever reads `holder.embedder` on each call (the skill and asset indexers do) counts."""
    inner = holder.embedder
    holder.embedder = CountingEmbedder(inner, step)
    try:
        yield
    finally:
        holder.embedder = inner
