"""The passage vector lane on the embedded default: projection indexes a passage's keywords in the
batch that projects its event, and the lane gives it its vector afterwards. Between the two the
passage is found by keyword and the read says how many wait; after it, by meaning too. Erasure in
between leaves nothing, and replay rebuilds both halves. The lane is driven explicitly (a worker
whose rounds embed nothing, then `embed_pending`), so nothing here waits on a clock."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.model.context import ContextRequest
from agentmem.model.events import AppendEventRequest
from agentmem.ports.embedding import Embedder
from agentmem.ports.semantic import PassageIndex
from agentmem.semantic.passage_vectors import embed_all_pending, embed_pending
from agentmem.semantic.replay import replay
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

GARDEN = "On weekends I restore an old allotment garden by the river with my neighbour."
FILLER = [
    "The forecast says light rain on Tuesday and sun for the rest of the week.",
    "I compared twelve flight options and kept the three best-reviewed ones.",
    "Reminder set for Wednesday at 15:30; the invite went out to everyone.",
]
BY_MEANING = "growing vegetables outdoors"  # no word of GARDEN's: only the vector ranker can find it


def no_lane_worker(services: Services) -> ProjectorWorker:
    """A worker whose rounds project and index keywords but embed no passage."""
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    return ProjectorWorker(log, services.semantic, SqliteCheckpoints(log.database, "local"), vector_batch=0)


@pytest.fixture
def services(tmp_path: Path) -> Services:
    services = bootstrap(Settings(data_dir=tmp_path / "data"))
    for n, text in enumerate([GARDEN, *FILLER], start=1):
        services.episodic.append(
            f"S{n}",
            AppendEventRequest(subject_id="maya", round=0, agent="user", kind="message", content=text),
        )
    no_lane_worker(services).run_once()
    return services


def active(services: Services) -> PassageIndex:
    assert services.semantic.passages is not None
    return services.semantic.passages.active()


def by_meaning(services: Services, index: PassageIndex) -> list[str]:
    vector = services.semantic.embedder.embed([BY_MEANING])[0]
    return [h.passage.text for h in index.vector_search("maya", vector, 1)]


def test_a_passage_is_found_by_keyword_before_its_vector_and_by_meaning_after(services: Services) -> None:
    index = active(services)
    assert index.pending_count("maya") == 4
    assert [h.passage.text for h in index.keyword_search("maya", "allotment garden", 5)] == [GARDEN]
    assert by_meaning(services, index) == []  # nothing embedded yet: vector search sees nothing

    request = ContextRequest(subject_id="maya", session_id="S99", agent="r", query="allotment")
    trace = services.context.build(request).trace
    assert trace.history_pending_vectors == 4
    assert any("4 passage(s) not embedded yet" in note for note in trace.notes)

    assert embed_pending(index, services.semantic.embedder) == 4
    assert index.pending_count("maya") == 0
    assert by_meaning(services, index) == [GARDEN]
    after = services.context.build(request).trace
    assert after.history_pending_vectors == 0
    assert not any("not embedded yet" in note for note in after.notes)


def test_the_lane_goes_oldest_first_a_bounded_batch_at_a_time(services: Services) -> None:
    index = active(services)
    assert [p.text for p in index.pending(2)] == [GARDEN, FILLER[0]]
    assert embed_pending(index, services.semantic.embedder, limit=2) == 2
    assert [p.text for p in index.pending(5)] == FILLER[1:]
    assert by_meaning(services, index) == [GARDEN]  # the embedded half is searchable already


def test_a_worker_round_embeds_at_most_its_batch(tmp_path: Path) -> None:
    services = bootstrap(Settings(data_dir=tmp_path / "data"))
    for n, text in enumerate([GARDEN, *FILLER], start=1):
        services.episodic.append(
            f"S{n}",
            AppendEventRequest(subject_id="maya", round=0, agent="user", kind="message", content=text),
        )
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    worker = ProjectorWorker(log, services.semantic, SqliteCheckpoints(log.database, "local"), vector_batch=3)
    assert worker.run_once() == 4
    assert active(services).pending_count("maya") == 1
    assert worker.run_once() == 0
    assert active(services).pending_count("maya") == 0


def test_erasure_before_the_lane_leaves_nothing(services: Services, tmp_path: Path) -> None:
    services.erasure.erase("maya")
    index = active(services)
    assert (index.count("maya"), index.pending_count("maya"), index.pending(10)) == (0, 0, [])
    assert embed_pending(index, services.semantic.embedder) == 0
    assert index.keyword_search("maya", "allotment garden", 5) == []
    assert by_meaning(services, index) == []
    assert not any(b"allotment" in f.read_bytes() for f in (tmp_path / "data").rglob("*") if f.is_file())


class ErasingEmbedder:
    """The model, with the subject erased while it runs: the lane's read and write straddle it."""

    def __init__(self, services: Services) -> None:
        self._services = services
        self._inner = services.semantic.embedder

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = self._inner.embed(texts)
        self._services.erasure.erase("maya")
        return vectors


def test_erasure_while_the_lane_embeds_brings_nothing_back(services: Services) -> None:
    index = active(services)
    embedder: Embedder = ErasingEmbedder(services)
    assert embed_pending(index, embedder) == 0  # the rows were gone when the vectors came back
    assert (index.count("maya"), index.pending_count("maya")) == (0, 0)
    assert by_meaning(services, index) == []


def test_replay_rebuilds_keywords_and_vectors_before_readers_switch(services: Services) -> None:
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    assert active(services).pending_count("maya") == 4
    result = replay(log, services.semantic, SqliteCheckpoints(log.database, "local"))
    index = active(services)
    assert index.generation == result.generation == 2
    assert (index.count("maya"), index.pending_count("maya")) == (4, 0)
    assert [h.passage.text for h in index.keyword_search("maya", "allotment", 5)] == [GARDEN]
    assert by_meaning(services, index) == [GARDEN]


def test_a_single_subject_replay_copies_the_others_pending_and_embeds_them(services: Services) -> None:
    services.episodic.append(
        "O1",
        AppendEventRequest(
            subject_id="omar", round=0, agent="user", kind="message", content="Omar keeps bees on the roof."
        ),
    )
    no_lane_worker(services).run_once()
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    replay(
        log,
        services.semantic,
        SqliteCheckpoints(log.database, "local"),
        subject_id="maya",
        copy_other_subjects=getattr(services.semantic.store, "copy_other_subjects", None),
    )
    index = active(services)
    assert (index.count("omar"), index.pending_count("omar"), index.pending_count("maya")) == (1, 0, 0)
    vector = services.semantic.embedder.embed(["beekeeping"])[0]
    assert [h.passage.subject_id for h in index.vector_search("omar", vector, 1)] == ["omar"]


def test_settle_leaves_no_passage_waiting(services: Services) -> None:
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    worker = ProjectorWorker(log, services.semantic, SqliteCheckpoints(log.database, "local"), vector_batch=1)
    worker.settle()
    assert active(services).pending_count("maya") == 0
    assert embed_all_pending(active(services), services.semantic.embedder) == 0


def test_an_index_that_does_not_defer_vectors_gets_them_in_the_projection(tmp_path: Path) -> None:
    # OpenSearch (the stream Lambda) writes a passage whole: the projector must embed it in-line.
    services = bootstrap(Settings(data_dir=tmp_path / "data"))
    assert services.semantic.passages is not None
    index = services.semantic.passages.generation(1)
    index.defers_vectors = False  # type: ignore[misc]  # stands for an adapter that cannot defer
    services.episodic.append(
        "S1", AppendEventRequest(subject_id="maya", round=0, agent="user", kind="message", content=GARDEN)
    )
    no_lane_worker(services).run_once()
    assert (index.count("maya"), index.pending_count("maya")) == (1, 0)
    assert by_meaning(services, index) == [GARDEN]
