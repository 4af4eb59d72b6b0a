"""One timed projection of the conversation bench's prose, for bench/project_passages.py: a fresh
data dir, every turn appended, the projector worker's drain, the passage vector lane until every
vector is in, then a replay into a new generation; or the same turns in worker rounds of a few
events, as a live server sees them. Counts every text the embedder was asked to embed, by kind."""

from __future__ import annotations

import inspect
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conversation_gen import Subject

from agentmem.model.events import AppendEventRequest
from agentmem.ports.embedding import Embedder
from agentmem.semantic.passage_vectors import embed_pending
from agentmem.semantic.replay import replay
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

# Which projection step asked, by the function on the call stack: the key resolver's readings,
# new belief sentences (and passages embedded in-line), or the passage vector lane.
KINDS = {
    "prepare": "key",
    "shortlist": "key",
    "_embed_new_texts": "belief",
    "_vector": "belief",
    "embed_pending": "passage",
}


class KindedEmbedder:
    """An Embedder that times `embed` and counts the texts it is asked for by the step asking
    (behind the vector cache, so it counts what the model computes)."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.seconds = 0.0
        self.kinds: Counter[str] = Counter()
        self.texts: list[str] = []

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        caller = next((KINDS[f.function] for f in inspect.stack()[1:12] if f.function in KINDS), "other")
        self.kinds[caller] += len(texts)
        self.texts.extend(texts)
        start = time.perf_counter()
        try:
            return self._inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - start

    def take(self) -> dict[str, Any]:
        """What was embedded since the last take, and how long it took; then starts afresh."""
        taken = {
            "texts": sum(self.kinds.values()),
            "by_kind": dict(self.kinds),
            "embed_seconds": self.seconds,
        }
        self.kinds, self.seconds, self.texts = Counter(), 0.0, []
        return taken


@dataclass(frozen=True)
class SetUp:
    """How projection is wired for a run: the embedder, whether the vector cache is used, the
    lane's passages per round, and whether passages are indexed at all."""

    embedder: Embedder
    cache: bool = True
    lane_batch: int = 64
    passages: bool = True


def _services(tmp: str, setup: SetUp) -> tuple[Services, KindedEmbedder]:
    services = bootstrap(Settings(data_dir=Path(tmp)))
    semantic = services.semantic
    recorder = KindedEmbedder(setup.embedder)
    semantic.embedder = recorder  # the projector and the lane take the service's embedder
    if not setup.cache:
        semantic.vector_cache = None
    if not setup.passages:
        semantic.passages = None
    return services, recorder


def _append(services: Services, turns: Sequence[tuple[Subject, int, int, Any]]) -> None:
    for subject, number, round_, turn in turns:
        services.episodic.append(
            subject.session_id(number),
            AppendEventRequest(
                subject_id=subject.subject_id,
                round=round_,
                agent=turn.agent,
                kind=turn.kind,
                content=turn.content,
            ),
        )


def turns_of(subjects: Sequence[Subject]) -> list[tuple[Subject, int, int, Any]]:
    return [
        (subject, number, round_, turn)
        for subject in subjects
        for number, session in enumerate(subject.sessions, start=1)
        for round_, turn in enumerate(session)
    ]


def _lane(services: Services, setup: SetUp) -> tuple[int, float]:
    """The vector lane as worker rounds run it, until no passage waits: (calls, seconds)."""
    semantic = services.semantic
    if semantic.passages is None:
        return 0, 0.0
    index = semantic.passages.active()
    start, calls = time.perf_counter(), 0
    while embed_pending(index, semantic.embedder, setup.lane_batch, semantic.vector_cache):
        calls += 1
    return calls, time.perf_counter() - start


def drain_once(subjects: Sequence[Subject], setup: SetUp) -> dict[str, Any]:
    """Every turn appended, one timed drain of the worker (its rounds embed no passage: the lane
    is timed apart), the lane until done, then a timed replay into a new generation."""
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-project-passages-") as tmp:
        services, recorder = _services(tmp, setup)
        semantic = services.semantic
        lane_free = ProjectorWorker(
            services.ports.log_tail, semantic, services.ports.checkpoints, vector_batch=0
        )
        lane_free.run_once()  # prepares the store for writes, as a cold start does
        _append(services, turns_of(subjects))
        recorder.take()
        start = time.perf_counter()
        projected = lane_free.run_once()
        seconds = time.perf_counter() - start
        drain = recorder.take()
        index = semantic.passages.active() if semantic.passages is not None else None
        pending = sum(index.pending_count(s.subject_id) for s in subjects) if index is not None else 0
        # One passage a turn here (the bench's turns are short): what MiniLM alone is timed on.
        passage_texts = [p.text for p in index.pending(pending)] if index is not None else []
        lane_calls, lane_seconds = _lane(services, setup)
        lane = recorder.take()
        passages = sum(index.count(s.subject_id) for s in subjects) if index is not None else 0
        start = time.perf_counter()
        replay(services.ports.log_tail, semantic, services.ports.checkpoints)
        replay_seconds = time.perf_counter() - start
        replayed = recorder.take()
    return {
        "events": projected,
        "seconds": seconds,
        "drain": drain,
        "passages": passages,
        "pending_after_drain": pending,
        "passage_texts": passage_texts,
        "lane": lane,
        "lane_calls": lane_calls,
        "lane_seconds": lane_seconds,
        "replay": replayed,
        "replay_seconds": replay_seconds,
    }


def trickle_once(subjects: Sequence[Subject], setup: SetUp, per_round: int) -> dict[str, Any]:
    """The same turns appended `per_round` at a time, a worker round (drain, one lane batch)
    after each, then rounds until every vector is in: a live server's projection."""
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-project-trickle-") as tmp:
        services, recorder = _services(tmp, setup)
        semantic = services.semantic
        worker = ProjectorWorker(
            services.ports.log_tail, semantic, services.ports.checkpoints, vector_batch=setup.lane_batch
        )
        worker.run_once()
        turns = turns_of(subjects)
        recorder.take()
        seconds = 0.0  # the worker's rounds only, not the appends between them
        for first in range(0, len(turns), per_round):
            _append(services, turns[first : first + per_round])
            start = time.perf_counter()
            worker.run_once()
            seconds += time.perf_counter() - start
        seconds += _lane(services, setup)[1]
        taken = recorder.take()
    return {"events": len(turns), "seconds": seconds, **taken}
