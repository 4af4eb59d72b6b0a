"""The vector cache on the embedded default: projection asks the model only about text it has not
read (a replay into a new generation, the next worker round's key readings, the same words said
again), changes no belief and no vector, forgets an erased subject even when the erasure lands
while the model runs, and never fails a projection when it fails itself."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.errors import BackendUnavailableError
from agentmem.model.events import AppendEventRequest
from agentmem.ports.embedding import Embedder
from agentmem.ports.vectors import VectorKey
from agentmem.semantic.index_embeddings import digest
from agentmem.semantic.passage_vectors import embed_pending
from agentmem.semantic.replay import replay
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

pytestmark = pytest.mark.xdist_group("minilm")

SAID = [
    ("maya", "I live in Lisbon and I work at Northwind Labs as a data engineer."),
    ("maya", "Okay, and after that?"),
    ("sam", "My partner is Ezra. We have a whippet called Noodle."),
    ("sam", "Okay, and after that?"),  # the same words, another subject
    ("maya", "Actually I moved to Porto last month."),
]


class Counting:
    """The wired embedder, counting what it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.texts: list[str] = []

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += texts
        return self._inner.embed(texts)


def services_with(tmp_path: Path, name: str, *, cache: bool = True) -> tuple[Services, Counting]:
    services = bootstrap(Settings(data_dir=tmp_path / name))
    moments = (f"2026-01-01T00:00:{n:02d}.000Z" for n in itertools.count())
    services.clock = lambda: next(moments)  # two data dirs, the same story
    counting = Counting(services.semantic.embedder)
    services.semantic.embedder = counting
    if not cache:
        services.semantic.vector_cache = None
    return services, counting


def worker(services: Services, vector_batch: int = 64) -> ProjectorWorker:
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    return ProjectorWorker(
        log, services.semantic, SqliteCheckpoints(log.database, "local"), vector_batch=vector_batch
    )


def append(services: Services, said: Sequence[tuple[str, str]]) -> None:
    for subject, text in said:
        services.episodic.append(
            f"{subject}-s1",
            AppendEventRequest(subject_id=subject, round=0, agent="user", kind="message", content=text),
        )


def state(services: Services) -> str:
    """Beliefs as stored, and what vector search on both indexes answers, scores and all (event
    ids numbered in order of appearance: they are random)."""
    semantic = services.semantic
    assert semantic.passages is not None
    query = semantic.embedder.embed(["where does she live and work?"])[0]
    found = {
        subject: (
            [b.model_dump(mode="json") for b in semantic.current(subject)],
            [(h.belief.doc_id, h.score) for h in semantic.store.active().vector_search(subject, query, 5)],
            [
                (h.passage.passage_id, h.score)
                for h in semantic.passages.active().vector_search(subject, query, 5)
            ],
        )
        for subject in ("maya", "sam")
    }
    ids: dict[str, str] = {}
    text = json.dumps(found, sort_keys=True)
    return re.sub(r"ev_[0-9a-f]{32}", lambda m: ids.setdefault(m.group(0), f"ev{len(ids)}"), text)


def test_a_replay_embeds_nothing_and_rebuilds_the_same_generation(tmp_path: Path) -> None:
    services, counting = services_with(tmp_path, "data")
    append(services, SAID)
    worker(services).settle()
    assert len(counting.texts) == len(set(counting.texts))  # nothing asked twice, not even across subjects
    before = state(services)
    counting.texts.clear()
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    result = replay(log, services.semantic, SqliteCheckpoints(log.database, "local"))
    assert result.generation == 2
    assert counting.texts == []
    assert state(services) == before


def test_with_or_without_the_cache_every_belief_and_vector_is_the_same(tmp_path: Path) -> None:
    cached, _ = services_with(tmp_path, "cached")
    plain, _ = services_with(tmp_path, "plain", cache=False)
    for services in (cached, plain):
        append(services, SAID)
        worker(services).settle()
    assert state(cached) == state(plain)


def test_a_new_worker_round_does_not_embed_the_keys_it_held_again(tmp_path: Path) -> None:
    """Each round builds a new key resolver, which compares each proposal with every key the
    subject holds: those readings come from the cache, not the model."""
    services, counting = services_with(tmp_path, "data")
    rounds = worker(services)
    append(services, SAID[:1])
    rounds.settle()
    first = list(counting.texts)
    counting.texts.clear()
    append(services, [("maya", "My employer is Northwind Labs now, and my diet is vegan.")])
    rounds.settle()
    assert counting.texts
    assert not set(counting.texts) & set(first)


class ErasingEmbedder(Counting):
    """The model, with maya erased while it runs: the lane writes to the cache after that."""

    def __init__(self, services: Services) -> None:
        super().__init__(services.semantic.embedder)
        self._services = services

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = super().embed(texts)
        self._services.erasure.erase("maya")
        return vectors


def test_an_erasure_while_the_lane_embeds_leaves_no_cached_vector(tmp_path: Path) -> None:
    services, _ = services_with(tmp_path, "data")
    append(services, SAID)
    worker(services, vector_batch=0).run_once()
    semantic = services.semantic
    assert semantic.passages is not None and semantic.vector_cache is not None
    erasing = ErasingEmbedder(services)
    embed_pending(semantic.passages.active(), erasing, 64, semantic.vector_cache)
    model = f"{erasing.model_id}@{erasing.dimensions}"
    maya_only = [
        digest(text) for subject, text in SAID if subject == "maya" and text != "Okay, and after that?"
    ]
    assert semantic.vector_cache.get(model, maya_only) == {}
    shared = semantic.vector_cache.get(model, [digest("Okay, and after that?")])
    assert list(shared) == [digest("Okay, and after that?")]  # sam said it too: still his


class FailingCache:
    def get(self, model: str, digests: Sequence[str]) -> dict[str, list[float]]:
        raise BackendUnavailableError("sqlite is busy")

    def put(self, model: str, vectors: Mapping[VectorKey, Sequence[float]]) -> int:
        raise BackendUnavailableError("sqlite is busy")

    def forget_subject(self, subject_id: str) -> int:
        return 0


def test_a_failing_cache_is_a_miss_never_a_failed_projection(tmp_path: Path) -> None:
    failing, counting = services_with(tmp_path, "failing")
    failing.semantic.vector_cache = FailingCache()
    plain, _ = services_with(tmp_path, "plain", cache=False)
    for services in (failing, plain):
        append(services, SAID)
        worker(services).settle()
    assert counting.texts
    assert state(failing) == state(plain)
