"""The local stack with `AGENTMEM_LLM=openai` pointed at a model server that is not there, used as a
user would: over HTTP, through the real `openai` client on a local port that refuses connections.

The log is the truth, so a failing extractor must not blind a read: the append is acknowledged, a
read finds the raw event in its session and its history passage from another, the trace and
`/v1/health/deep` (503) say that projection fails, since when and why, and the worker backs off
(counted over a minute of an injected clock, so nothing here sleeps). When a server starts on that
port, projection catches up, the passage gets the fact it states, and the status clears."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agentmem import Memory
from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.adapters.openai_compat import factory
from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.entrypoints.server import LocalServer
from agentmem.errors import BackendUnavailableError
from agentmem.memory import ProjectionTimeoutError
from agentmem.model.beliefs import (
    Belief,
    FactInput,
    FactType,
    KeyCandidate,
    KeyChoice,
    KeyProposal,
    Observation,
    Verdict,
)
from agentmem.model.events import Event
from agentmem.ports.semantic import LLM
from agentmem.semantic.backoff import Backoff
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.openai_fixtures import chat_reply, user_prompt

pytestmark = pytest.mark.xdist_group("minilm")

SAID = "Priya told me on the call that she lives in Pune and works remotely."
LATER = "Priya keeps bees on her balcony."
PUNE = {
    "facts": [
        {"key": "city", "text": "Priya lives in Pune.", "value": "Pune", "replaces": None}
        | {"cardinality": "single", "description": ""}
    ]
}


class CountingLLM:
    """The wired OpenAI-compatible adapter, with each extraction the projector attempts counted."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.extractions = 0

    def extract_facts(
        self, event: Event, fact_types: Sequence[FactType], *, allow_undeclared: bool = False
    ) -> list[FactInput]:
        self.extractions += 1
        return self.llm.extract_facts(event, fact_types, allow_undeclared=allow_undeclared)

    def resolve_key(self, proposal: KeyProposal, candidates: Sequence[KeyCandidate]) -> KeyChoice:
        return self.llm.resolve_key(proposal, candidates)

    def decide(self, current: Belief, candidate: Observation, fact_type: FactType) -> Verdict:
        return self.llm.decide(current, candidate, fact_type)


class ModelServer(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat server that states Pune for the event that says it, else nothing."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        payload = PUNE if "Pune" in user_prompt(body) else {"facts": []}
        reply = json.dumps(chat_reply(payload, body)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: Any) -> None:
        pass


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def port() -> Iterator[socket.socket]:
    """A local port bound but not listening: connections to it are refused until `listen`."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    yield sock
    sock.close()


@pytest.fixture
def services(tmp_path: Path, port: socket.socket, monkeypatch: pytest.MonkeyPatch) -> Iterator[Services]:
    # No retries inside the SDK: its own backoff sleeps, and each attempt here is the worker's.
    monkeypatch.setattr(factory, "MAX_RETRIES", 0)
    factory.openai_llm.cache_clear()
    environ = {
        "AGENTMEM_DATA_DIR": str(tmp_path / "data"),
        "AGENTMEM_LLM": "openai",
        "AGENTMEM_LLM_BASE_URL": f"http://127.0.0.1:{port.getsockname()[1]}/v1",
        "AGENTMEM_LLM_MODEL": "qwen2.5:7b-instruct",
    }
    services = bootstrap(Settings.from_env(environ))
    services.semantic.llm = CountingLLM(services.semantic.llm)
    yield services
    factory.openai_llm.cache_clear()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def worker(services: Services, clock: Clock) -> ProjectorWorker:
    """The worker `agentmem serve` runs (Services.projector_worker), on an injected clock."""
    ports = services.ports
    return ProjectorWorker(
        ports.log_tail,
        services.semantic,
        ports.checkpoints,
        backoff=Backoff(first=1.0, cap=60.0),
        clock=clock,
    )


@pytest.fixture
def client(services: Services) -> Iterator[MemoryClient]:
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        yield MemoryClient(server.url, retries=0)


def say(client: MemoryClient, session: str, text: str) -> dict[str, Any]:
    body = {"subject_id": "priya", "round": 0, "agent": "advisor", "kind": "note", "content": text}
    answer: dict[str, Any] = client.request("POST", f"/v1/sessions/{session}/events", body)
    return answer


def read(client: MemoryClient, session: str, query: str = "where does Priya live?") -> dict[str, Any]:
    body = {"subject_id": "priya", "session_id": session, "agent": "planner", "query": query}
    answer: dict[str, Any] = client.request("POST", "/v1/context", body)
    return answer


def deep_health(client: MemoryClient) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(f"{client.base_url}/v1/health/deep", timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def run_until(worker: ProjectorWorker, clock: Clock, end: float, step: float = 0.2) -> None:
    """The background loop's turns, each `step` seconds apart on the injected clock, up to `end`."""
    while clock.now < end:
        worker.step()
        clock.now = round(clock.now + step, 6)


def test_a_model_server_that_is_not_there_degrades_loudly_and_never_blinds_a_read(
    services: Services,
    client: MemoryClient,
    worker: ProjectorWorker,
    clock: Clock,
    port: socket.socket,
    caplog: pytest.LogCaptureFixture,
) -> None:
    llm = services.semantic.llm
    assert isinstance(llm, CountingLLM)
    caplog.set_level(logging.INFO)

    # Given a model server that is not there, when an agent appends, then the append is acknowledged
    event = say(client, "priya-s1", SAID)
    assert event["seq"] == 1
    worker.step()  # the worker's first turn: extraction fails
    assert llm.extractions == 1

    # A read of the session has the raw event, and one from another session its history passage
    mine = read(client, "priya-s1")
    assert [i["source"] for i in mine["items"]] == ["episodic"] and SAID in mine["markdown"]
    other = read(client, "priya-s2")
    assert [i["source"] for i in other["items"]] == ["history"] and SAID in other["markdown"]

    # The trace says projection fails, since when and why, and how far the beliefs lag
    lag = other["trace"]["projection_lag"]
    assert lag["failed_attempts"] == 1 and lag["unprojected_events"] == 1
    assert "unreachable" in lag["last_error"] and "AGENTMEM_LLM_BASE_URL" in lag["last_error"]
    assert lag["failing_since"] and lag["lag_seconds"] is not None
    assert any(n.startswith("projection failing since") for n in other["trace"]["notes"])
    status, health = deep_health(client)
    assert status == 503 and health["status"] == "failing"
    assert health["projection"]["failing_since"] == lag["failing_since"]
    assert health["projection"]["last_error"] == lag["last_error"]
    assert any(p.startswith("projection failing since") for p in health["problems"])

    # The worker backs off: over a minute of turns every 0.2 s it tries at 0, 1, 3, 7, 15 and 31 s
    clock.now = 0.2
    run_until(worker, clock, 40.0)
    # and an event appended meanwhile is in history at the next turn, not at the next attempt
    say(client, "priya-s1", LATER)
    run_until(worker, clock, 40.2)
    assert LATER in read(client, "priya-s3", "what does Priya keep on her balcony?")["markdown"]
    run_until(worker, clock, 60.0)
    assert llm.extractions == 6
    assert services.semantic.projection_lag() is not None
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("agentmem.semantic")]
    assert logged.count("projector lane failing; backing off") == 1  # one line per change of state
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]  # and no traceback per round

    # When a model server starts on that port, the next attempt (at 63 s) catches projection up
    port.listen()
    model = ThreadingHTTPServer(("127.0.0.1", 0), ModelServer, bind_and_activate=False)
    model.socket.close()
    model.socket = port
    threading.Thread(target=model.serve_forever, daemon=True).start()
    try:
        run_until(worker, clock, 63.2)
    finally:
        model.shutdown()
    assert [(b.key, b.value) for b in services.semantic.current("priya")] == [("city", "Pune")]
    later = read(client, "priya-s2")
    assert later["trace"]["projection_lag"] is None
    assert "projection failing" not in " ".join(later["trace"]["notes"])
    assert deep_health(client)[0] == 200
    passages = services.semantic.passages
    assert passages is not None
    (hit,) = passages.active().keyword_search("priya", "remotely", 5)
    assert [f.value for f in hit.passage.stated] == ["Pune"]  # the passage now says what it stated
    assert "projector lane recovered" in [r.getMessage() for r in caplog.records]


class DownLLM(CountingLLM):
    def extract_facts(
        self, event: Event, fact_types: Sequence[FactType], *, allow_undeclared: bool = False
    ) -> list[FactInput]:
        raise BackendUnavailableError(DOWN)


DOWN = "extract facts: the model server is unreachable (APIConnectionError); check AGENTMEM_LLM_BASE_URL"


def test_the_memory_facade_says_why_flush_timed_out_while_projection_fails(tmp_path: Path) -> None:
    with Memory(tmp_path, subject="priya", settings=Settings(), ports={"llm": DownLLM(RulesLLM())}) as memory:
        memory.append(SAID)
        deadline = time.monotonic() + 120  # the worker's first round loads the embedder first
        while memory.services.semantic.projection_lag() is None:
            assert time.monotonic() < deadline, "the worker never attempted projection"
            time.sleep(0.05)
        with pytest.raises(
            ProjectionTimeoutError, match=r"projection failing since .*: extract facts: the model"
        ):
            memory.flush(timeout=0.1)
        assert SAID in memory.context("where does Priya live?", session="another").markdown
