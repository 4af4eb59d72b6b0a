"""The local twin of the stream projector: tail the log from a stored checkpoint and project, and
keep the other search indexes (skills, assets) current, so no request ever waits for indexing.

Checkpoints are kept per belief generation, so after a replay switches generations the worker
continues the new generation from where the replay stopped; projection is idempotent, so any
overlap is harmless."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

from agentmem.ports.log import CheckpointStore, LogTail
from agentmem.ports.semantic import BeliefIndex, RetentionSweeper
from agentmem.semantic.health import prepare_for_writes, seed_probe
from agentmem.semantic.passage_vectors import LANE_BATCH, embed_all_pending, embed_pending
from agentmem.semantic.service import SemanticService

logger = logging.getLogger(__name__)

BATCH = 500


def checkpoint_name(generation: int) -> str:
    return f"projector-g{generation}"


def drain(
    tail: LogTail,
    semantic: SemanticService,
    checkpoints: CheckpointStore,
    index: BeliefIndex,
    *,
    only_subject: str | None = None,
) -> int:
    """Project every event past `index`'s checkpoint into `index` (only `only_subject`'s when
    given, and then without moving the checkpoint); returns how many were read. Seeds the deep
    health probe into `index` first (once per index object), so a replay's new generation has
    it before readers switch to it."""
    seed_probe(semantic, index)
    name = checkpoint_name(index.generation)
    position = 0 if only_subject is not None else checkpoints.load(name)
    projector = semantic.projector(index)
    seen = 0
    while batch := tail.read_since(position, BATCH):
        projector.project_many([e for _, e in batch if only_subject is None or e.subject_id == only_subject])
        position = batch[-1][0]
        if only_subject is None:
            checkpoints.save(name, position)
        seen += len(batch)
    return seen


IndexSync = Callable[[], tuple[int, int]]
"""Brings one search index up to its primary store (the skill library, the catalogue) by comparing
their stamps; returns (items embedded, items removed). Cheap when nothing changed."""


class ProjectorWorker:
    """Runs `drain` on the active generation, then a bounded batch of the passage vector lane,
    then each of `indexes`, every `interval` seconds in a daemon thread. Its first round prepares
    the store for writes (`prepare_for_writes`), as the projector Lambda does on a cold start.
    The skill library and the catalogue are not in the log, so their indexes are caught up by
    comparing stamps, the same comparison a replay makes. With `retention`, a round also sweeps
    expired events, at most every `sweep_every` seconds (the first round always does)."""

    def __init__(
        self,
        tail: LogTail,
        semantic: SemanticService,
        checkpoints: CheckpointStore,
        *,
        indexes: Sequence[IndexSync] = (),
        interval: float = 0.2,
        retention: RetentionSweeper | None = None,
        sweep_every: float = 600.0,
        vector_batch: int = LANE_BATCH,
    ) -> None:
        self._vector_batch = vector_batch
        self._tail = tail
        self._indexes = list(indexes)
        self._semantic = semantic
        self._checkpoints = checkpoints
        self._interval = interval
        self._retention = retention
        self._sweep_every = sweep_every
        self._next_sweep = 0.0  # the first round sweeps
        self._stop = threading.Event()
        self._prepared = False
        self._thread = threading.Thread(target=self._run, name="agentmem-projector", daemon=True)

    def run_once(self) -> int:
        """One round: project the log, embed at most `vector_batch` passages waiting for their
        vectors, then catch every other index up; returns events read."""
        if not self._prepared:
            prepare_for_writes(self._semantic)
            self._prepared = True
        index = self._semantic.store.active()
        read = drain(self._tail, self._semantic, self._checkpoints, index)
        self.embed_passages(index.generation, self._vector_batch)
        if self._retention is not None and time.monotonic() >= self._next_sweep:
            # After the drain, so what expires has been projected (and is kept as observations).
            projected = self._checkpoints.load(checkpoint_name(index.generation))
            self._retention.sweep(projected, index.generation)
            self._next_sweep = time.monotonic() + self._sweep_every
        for sync in self._indexes:
            sync()
        return read

    def embed_passages(self, generation: int, limit: int) -> int:
        """The vector lane's share of a round, after the drain so beliefs never wait on it."""
        passages = self._semantic.passages
        if passages is None:
            return 0
        return embed_pending(passages.generation(generation), self._semantic.embedder, limit)

    def settle(self) -> int:
        """A round, then the vector lane until no passage waits: what a one-shot `agentmem
        project`, a demo or a benchmark wants before it reads. Returns events read."""
        read = self.run_once()
        if self._semantic.passages is not None:
            generation = self._semantic.store.active().generation
            embed_all_pending(self._semantic.passages.generation(generation), self._semantic.embedder)
        return read

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.run_once()
            except Exception:
                # A failing event stays unprojected and is retried next round; the log keeps it.
                logger.exception("projector round failed")
            self._stop.wait(self._interval)

    def start(self) -> ProjectorWorker:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
