"""The local twin of the stream projector: tail the log from a stored checkpoint and project, and
keep the other search indexes (skills, assets) current, so no request ever waits for indexing.

Checkpoints are kept per belief generation, so after a replay switches generations the worker
continues the new generation from where the replay stopped; projection is idempotent, so any
overlap is harmless.

When projection fails (the model server is down), the worker backs off (`semantic.backoff`),
writes what fails and since when to the shared projection status, which reads and the deep
health check report, and keeps indexing the history passages of every new event apart from
extraction, so a read still finds what was said while the beliefs stand still."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime

from agentmem.model.projection import ProjectionStatus
from agentmem.ports.log import CheckpointStore, LogTail
from agentmem.ports.semantic import BeliefIndex, RetentionSweeper
from agentmem.semantic.backoff import Backoff, FailingLane, iso, utc_now
from agentmem.semantic.foreground import Foreground
from agentmem.semantic.health import prepare_for_writes, seed_probe
from agentmem.semantic.passage_vectors import LANE_BATCH, embed_all_pending, embed_pending
from agentmem.semantic.service import SemanticService

logger = logging.getLogger(__name__)

BATCH = 500


def checkpoint_name(generation: int) -> str:
    return f"projector-g{generation}"


def passages_checkpoint_name(generation: int) -> str:
    """How far the passages were indexed apart from projection, while it failed."""
    return f"passages-g{generation}"


def drain(
    tail: LogTail,
    semantic: SemanticService,
    checkpoints: CheckpointStore,
    index: BeliefIndex,
    *,
    only_subject: str | None = None,
    foreground: Foreground | None = None,
) -> int:
    """Project every event past `index`'s checkpoint into `index` (only `only_subject`'s when
    given, and then without moving the checkpoint); returns how many were read. Seeds the deep
    health probe into `index` first (once per index object), so a replay's new generation has
    it before readers switch to it. With `foreground`, the requests in flight go first: before
    each batch is read and each event extracted (foreground.py)."""
    seed_probe(semantic, index)
    name = checkpoint_name(index.generation)
    position = 0 if only_subject is not None else checkpoints.load(name)
    projector = semantic.projector(index, foreground=foreground)
    seen = 0
    while True:
        if foreground is not None:
            foreground.pause()
        batch = tail.read_since(position, BATCH)
        if not batch:
            break
        projector.project_many([e for _, e in batch if only_subject is None or e.subject_id == only_subject])
        position = batch[-1][0]
        if only_subject is None:
            checkpoints.save(name, position)
        seen += len(batch)
    return seen


def index_passages_ahead(
    tail: LogTail, semantic: SemanticService, checkpoints: CheckpointStore, index: BeliefIndex
) -> int:
    """Index the passages of every event past projection's checkpoint, which a failing
    projection does not move, with no extraction; returns how many were new. Keeps a checkpoint
    of its own, so each round reads only what was appended since the last."""
    if semantic.passages is None:
        return 0
    name = passages_checkpoint_name(index.generation)
    position = max(checkpoints.load(checkpoint_name(index.generation)), checkpoints.load(name))
    projector = semantic.projector(index)
    added = 0
    while batch := tail.read_since(position, BATCH):
        added += projector.index_passages([e for _, e in batch])
        position = batch[-1][0]
        checkpoints.save(name, position)
    return added


IndexSync = Callable[[], tuple[int, int]]
"""Brings one search index up to its primary store (the skill library, the catalogue) by comparing
their stamps; returns (items embedded, items removed). Cheap when nothing changed."""


class ProjectorWorker:
    """Runs `drain` on the active generation, then a bounded batch of the passage vector lane,
    then each of `indexes`, every `interval` seconds in a daemon thread. Its first round prepares
    the store for writes (`prepare_for_writes`), as the projector Lambda does on a cold start.
    The skill library and the catalogue are not in the log, so their indexes are caught up by
    comparing stamps, the same comparison a replay makes. With `retention`, a round also sweeps
    expired events, at most every `sweep_every` seconds (the first round always does); with
    `expiry`, it drops expired records (the dependents index's kept reports) on the same beat.

    Projection and the other lanes back off apart (`backoff`, on `clock`): a model server that is
    down stops neither the skill indexes nor the passages. Projection's state goes to the
    semantic service's status store, when it has one, stamped by `wall`.

    `background` runs first in the daemon thread: the composition root marks the thread's model
    calls as background work there (run at a lowered CPU priority), and with `foreground` the
    thread's drain lets the requests in flight go first, so that a read waits neither for a core
    nor for the interpreter behind the projection. `run_once` and `settle` run in the caller's
    thread as asked, without either: they are the work asked for."""

    def __init__(
        self,
        tail: LogTail,
        semantic: SemanticService,
        checkpoints: CheckpointStore,
        *,
        indexes: Sequence[IndexSync] = (),
        interval: float = 0.2,
        retention: RetentionSweeper | None = None,
        expiry: Callable[[], int] | None = None,
        sweep_every: float = 600.0,
        vector_batch: int = LANE_BATCH,
        backoff: Backoff | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], datetime] = utc_now,
        background: Callable[[], object] | None = None,
        foreground: Foreground | None = None,
    ) -> None:
        self._background = background
        self._foreground = foreground
        self._vector_batch = vector_batch
        self._tail = tail
        self._indexes = list(indexes)
        self._semantic = semantic
        self._checkpoints = checkpoints
        self._interval = interval
        self._retention = retention
        self._expiry = expiry
        self._sweep_every = sweep_every
        self._next_sweep = 0.0  # the first round sweeps
        self._stop = threading.Event()
        self._prepared = False
        self._wall = wall
        self.projection = FailingLane("projection", backoff or Backoff(), clock, wall)
        self.upkeep = FailingLane("index upkeep", backoff or Backoff(), clock, wall)
        self._status_checked = False  # a status left failing by an earlier process is cleared once
        self._thread = threading.Thread(target=self._run, name="agentmem-projector", daemon=True)

    def run_once(self) -> int:
        """One round, backoff or not: project the log, embed at most `vector_batch` passages
        waiting for their vectors, then catch every other index up; returns events read. A
        projection that fails is recorded, the other lanes still run, then its error is raised."""
        read, failure = self._project()
        try:
            self._keep_up()
        except Exception:
            if failure is None:
                raise
            logger.warning("index upkeep failed too", exc_info=True)
        if failure is not None:
            raise failure
        return read

    def step(self) -> float:
        """One turn of the background loop: each lane runs when its backoff allows. Returns
        the seconds to wait before the next turn."""
        if self.projection.due():
            self._project()
        if self.upkeep.due():
            try:
                self._keep_up()
            except Exception as exc:
                self.upkeep.failed(exc)
            else:
                self.upkeep.succeeded()
        return self._interval

    def _project(self) -> tuple[int, Exception | None]:
        try:
            if not self._prepared:
                prepare_for_writes(self._semantic)
                self._prepared = True
            in_background = threading.current_thread() is self._thread  # not run_once's caller
            foreground = self._foreground if in_background else None
            read = drain(
                self._tail,
                self._semantic,
                self._checkpoints,
                self._semantic.store.active(),
                foreground=foreground,
            )
        except Exception as exc:  # the log keeps every event: what failed is retried
            self.projection.failed(exc)
            self._save_status(failing=True)
            return 0, exc
        if self.projection.succeeded() or not self._status_checked:
            self._save_status(failing=False)
        return read, None

    def _save_status(self, *, failing: bool) -> None:
        status = self._semantic.status
        if status is None:
            return
        try:
            if not failing:
                if status.load().state != "ok":
                    status.save(ProjectionStatus())
                self._status_checked = True
                return
            position = self._checkpoints.load(checkpoint_name(self._semantic.store.active().generation))
            first = self._tail.read_since(position, 1)
            lane = self.projection
            status.save(
                ProjectionStatus(
                    state="failing",
                    failing_since=lane.since,
                    last_error=lane.error,
                    failed_attempts=lane.failures,
                    last_attempt_at=iso(self._wall()),
                    next_attempt_at=lane.next_attempt_at,
                    # Positions are the log's append order: one per event, for a data dir's tenant.
                    unprojected_events=max(0, self._tail.head_position() - position),
                    oldest_unprojected_at=first[0][1].created_at if first else None,
                )
            )
        except Exception as exc:  # the store may be what fails; the round's outcome stands
            logger.warning("projection status not saved", extra={"error": type(exc).__name__})

    def _keep_up(self) -> None:
        index = self._semantic.store.active()
        if self.projection.failing:
            index_passages_ahead(self._tail, self._semantic, self._checkpoints, index)
        self.embed_passages(index.generation, self._vector_batch)
        if (self._retention is not None or self._expiry is not None) and time.monotonic() >= self._next_sweep:
            if self._retention is not None:
                # After the drain, so what expires has been projected (and is kept as observations).
                projected = self._checkpoints.load(checkpoint_name(index.generation))
                self._retention.sweep(projected, index.generation)
            if self._expiry is not None:  # reads skip what expired already: this only bounds the store
                self._expiry()
            self._next_sweep = time.monotonic() + self._sweep_every
        for sync in self._indexes:
            sync()

    def embed_passages(self, generation: int, limit: int) -> int:
        """The vector lane's share of a round, after the drain so beliefs never wait on it."""
        passages = self._semantic.passages
        if passages is None:
            return 0
        return embed_pending(
            passages.generation(generation), self._semantic.embedder, limit, self._semantic.vector_cache
        )

    def settle(self) -> int:
        """A round, then the vector lane until no passage waits: what a one-shot `agentmem
        project`, a demo or a benchmark wants before it reads. Returns events read."""
        read = self.run_once()
        if self._semantic.passages is not None:
            generation = self._semantic.store.active().generation
            embed_all_pending(
                self._semantic.passages.generation(generation),
                self._semantic.embedder,
                cache=self._semantic.vector_cache,
            )
        return read

    def _run(self) -> None:
        if self._background is not None:
            self._background()
        while not self._stop.is_set():
            self._stop.wait(self.step())

    def start(self) -> ProjectorWorker:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
