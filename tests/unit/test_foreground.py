"""Requests first: the background projector lets the requests in flight go (semantic/foreground.py),
and its model calls run on threads of lowered CPU priority (adapters/local/thread_priority.py).
Neither may change what is projected; both apply only in the worker's own thread."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.adapters.local.thread_priority import (
    BACKGROUND_NICE,
    background_nice,
    lower_thread_priority,
    thread_nice,
    work_in_background,
)
from agentmem.model.events import AppendEventRequest
from agentmem.semantic.foreground import Foreground
from agentmem.semantic.worker import ProjectorWorker, drain
from agentmem.semantic.yielding_llm import YieldingLLM
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="per-thread nice values are Linux's")

FACTS = [
    "I live in Lisbon now.",
    "My manager is Priya Raman.",
    "I moved to Porto last month.",
    "My favourite tea is sencha.",
]


class CountingForeground(Foreground):
    """A Foreground that counts its pauses and the threads that paused."""

    def __init__(self, max_wait: float = 0.05) -> None:
        super().__init__(max_wait)
        self.pauses = 0
        self.threads: set[str] = set()

    def pause(self) -> bool:
        self.pauses += 1
        self.threads.add(threading.current_thread().name)
        return super().pause()


def in_thread(work: Callable[[], Any]) -> Any:
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(work()))
    thread.start()
    thread.join(timeout=10)
    return result[0]


def test_pause_returns_at_once_when_no_request_is_in_flight() -> None:
    foreground = Foreground(max_wait=5.0)
    started = time.monotonic()
    assert foreground.pause() is True
    assert time.monotonic() - started < 1.0  # far below max_wait: nothing to wait for


def test_pause_gives_up_after_max_wait_while_a_request_is_in_flight() -> None:
    foreground = Foreground(max_wait=0.02)
    with foreground.serving():
        assert foreground.in_flight == 1
        started = time.monotonic()
        assert foreground.pause() is False
        assert time.monotonic() - started >= 0.015  # it waited (timer granularity aside)
    assert foreground.in_flight == 0


def test_pause_ends_when_the_last_request_ends() -> None:
    foreground = Foreground(max_wait=10.0)
    entered = threading.Event()
    leave = threading.Event()

    def request() -> None:
        with foreground.serving():
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=request)
    thread.start()
    entered.wait(10)
    threading.Timer(0.05, leave.set).start()
    started = time.monotonic()
    assert foreground.pause() is True
    assert time.monotonic() - started < 5.0  # woken by the request's end, not by max_wait
    thread.join(10)


def test_serving_counts_down_when_the_request_raises() -> None:
    foreground = Foreground()
    with pytest.raises(RuntimeError), foreground.serving():
        raise RuntimeError("route failed")
    assert foreground.in_flight == 0


class RecordingLLM:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def extract_facts(
        self, event: Any, fact_types: Sequence[Any], *, allow_undeclared: bool = False
    ) -> list[Any]:
        self.calls.append(f"extract:{allow_undeclared}")
        return ["fact"]

    def resolve_key(self, proposal: Any, candidates: Sequence[Any]) -> Any:
        self.calls.append("resolve")
        return "choice"

    def decide(self, current: Any, candidate: Any, fact_type: Any) -> Any:
        self.calls.append("decide")
        return "verdict"


def test_yielding_llm_pauses_before_extraction_only_and_delegates_everything() -> None:
    inner = RecordingLLM()
    foreground = CountingForeground()
    llm = YieldingLLM(inner, foreground)  # type: ignore[arg-type]
    assert llm.extract_facts(object(), [], allow_undeclared=True) == ["fact"]  # type: ignore[arg-type]
    assert foreground.pauses == 1
    assert llm.resolve_key(object(), []) == "choice"  # type: ignore[arg-type]
    assert llm.decide(object(), object(), object()) == "verdict"  # type: ignore[arg-type]
    assert foreground.pauses == 1
    assert inner.calls == ["extract:True", "resolve", "decide"]


def filled(tmp_path: Any, name: str) -> Services:
    services = bootstrap(Settings(data_dir=tmp_path / name))
    for n, text in enumerate(FACTS, start=1):
        services.episodic.append(
            f"S{n}",
            AppendEventRequest(subject_id="maya", round=n, agent="user", kind="message", content=text),
        )
    return services


def beliefs(services: Services) -> list[tuple[str, str, str, int]]:
    index = services.semantic.store.active()
    return sorted((b.key, b.member, b.value, b.version) for b in index.current("maya"))


def drain_into(services: Services, foreground: Foreground | None) -> int:
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    checkpoints = SqliteCheckpoints(log.database, "local")
    return drain(log, services.semantic, checkpoints, services.semantic.store.active(), foreground=foreground)


def test_drain_that_yields_to_a_busy_foreground_projects_the_same_beliefs(tmp_path: Any) -> None:
    plain, yielding = filled(tmp_path, "plain"), filled(tmp_path, "yielding")
    foreground = CountingForeground(max_wait=0.001)
    assert drain_into(plain, None) == len(FACTS)
    with foreground.serving():  # a request that never ends: every pause times out
        read = drain_into(yielding, foreground)
    assert read == len(FACTS)
    assert foreground.pauses >= 1 + len(FACTS)  # before the batch and before each extraction
    assert beliefs(yielding) == beliefs(plain)
    assert beliefs(plain)  # the facts were projected at all


def test_only_the_workers_own_thread_yields_and_marks_its_model_calls(tmp_path: Any) -> None:
    services = filled(tmp_path, "worker")
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    foreground = CountingForeground()
    marked: list[int] = []
    worker = ProjectorWorker(
        log,
        services.semantic,
        SqliteCheckpoints(log.database, "local"),
        vector_batch=0,
        background=lambda: (work_in_background(), marked.append(background_nice())),
        foreground=foreground,
    )
    assert worker.run_once() == len(FACTS)
    assert foreground.pauses == 0 and marked == []  # asked-for work runs as asked
    assert background_nice() == 0  # and the caller's thread is not marked
    services.episodic.append(
        "S9", AppendEventRequest(subject_id="maya", round=9, agent="user", kind="message", content=FACTS[0])
    )
    worker.start()
    try:
        deadline = time.monotonic() + 10
        while foreground.pauses == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        worker.stop()
    assert marked == [BACKGROUND_NICE]
    assert foreground.pauses >= 1
    assert threading.current_thread().name not in foreground.threads


def test_the_wired_worker_and_resolver_share_one_foreground(services: Services) -> None:
    from agentmem.api.app import build_resolver

    app = build_resolver(services)
    seen: list[int] = []

    @app.get("/v1/_probe")
    def probe() -> dict[str, int]:
        seen.append(services.foreground.in_flight)
        return {"in_flight": services.foreground.in_flight}

    from tests.conftest import FakeLambdaContext, load_event

    event = load_event("api_list_events.json", path="/v1/_probe", resource="/v1/_probe")
    event["queryStringParameters"] = None
    event["multiValueQueryStringParameters"] = None
    result = app.resolve(event, FakeLambdaContext())  # type: ignore[arg-type]
    assert result["statusCode"] == 200, result
    assert seen == [1]  # counted while the route ran
    assert services.foreground.in_flight == 0  # and let go after
    assert services.projector_worker()._foreground is services.foreground


@linux_only
def test_lower_thread_priority_changes_only_the_calling_thread() -> None:
    before = thread_nice()
    assert in_thread(lambda: (lower_thread_priority(BACKGROUND_NICE), thread_nice())) == (
        True,
        BACKGROUND_NICE,
    )
    assert thread_nice() == before  # the test's own thread is untouched
    assert lower_thread_priority(0) is False  # never raised above normal


@linux_only
def test_background_model_calls_run_on_lowered_threads_and_requests_on_normal_ones() -> None:
    from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder

    embedder = MiniLmEmbedder(workers=1)
    request_pool = embedder._get_pool()
    background_pool = in_thread(lambda: (work_in_background(), embedder._get_pool())[1])
    assert background_pool is not request_pool
    assert request_pool.submit(thread_nice).result(10) == thread_nice()
    assert background_pool.submit(thread_nice).result(10) == BACKGROUND_NICE
