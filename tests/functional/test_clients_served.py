"""Both clients against a real local server, through the same scenario: the same methods give
the same types and the same answers, and each error arrives as its own class."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agentmem.api.app import build_resolver
from agentmem.client import AsyncMemoryClient, Forbidden, Gone, Invalid, MemoryClient, NotFound
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import LocalServer
from agentmem.model.beliefs import FactInput
from agentmem.model.events import AppendEventResponse, EventPage
from agentmem.semantic.worker import ProjectorWorker
from agentmem.wiring import Services


class Blocking:
    """A client as the scenario calls it: `MemoryClient` itself, or `AsyncMemoryClient` with
    each coroutine run to completion on one event loop kept for the whole test."""

    def __init__(self, kind: str, url: str, runner: asyncio.Runner, **options: Any) -> None:
        self.kind = kind
        self._runner = runner
        self._client: Any = (MemoryClient if kind == "sync" else AsyncMemoryClient)(url, **options)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self._client, name)
        if self.kind == "sync":
            return method  # type: ignore[no-any-return]
        return lambda *args, **kwargs: self._runner.run(method(*args, **kwargs))


@pytest.fixture
def served(services: Services) -> Iterator[tuple[str, ProjectorWorker]]:
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        yield server.url, local_worker(services)


@pytest.fixture
def runner() -> Iterator[asyncio.Runner]:
    with asyncio.Runner() as loop:
        yield loop


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_the_scenario_runs_alike_on_both_clients(
    kind: str, served: tuple[str, ProjectorWorker], runner: asyncio.Runner
) -> None:
    url, worker = served
    client = Blocking(kind, url, runner)
    subject, session = f"maya-{kind}", f"s-{kind}"
    lyon = FactInput(key="city", text="Maya lives in Lyon.", value="Lyon")
    ack = client.append_event(
        session, subject_id=subject, round=0, agent="intake", kind="profile", content="Maya lives in Lyon.",
        facts=[lyon],
    )  # fmt: skip
    assert isinstance(ack, AppendEventResponse) and (ack.seq, ack.session_id) == (1, session)
    page = client.list_events(session)
    assert isinstance(page, EventPage) and page.items[0].facts == [lyon]
    worker.run_once()
    assert [b.value for b in client.beliefs(subject)] == ["Lyon"]
    assert client.belief_history(subject, "city").current[0].text == "Maya lives in Lyon."
    hits = client.search_beliefs(subject, "which town is her home", k=3)
    assert [h.belief.key for h in hits] == ["city"]
    read = client.context(
        subject_id=subject,
        session_id="reader",
        agent="advisor",
        query="Where does Maya live?",
        budget_tokens=400,
    )
    assert "Lyon" in read.markdown and read.trace.used_tokens <= 400

    with pytest.raises(NotFound) as missing:
        client.belief_history(subject, "employer")
    assert missing.value.field == "key"
    with pytest.raises(Invalid) as invalid:
        client.append_event(session, subject_id=subject, round=-1, agent="a", kind="k", content="x")
    assert (invalid.value.status, invalid.value.field) == (422, "round")
    with pytest.raises(Forbidden):
        client.erase_subject(subject)

    operator = Blocking(kind, url, runner, local_principals="writer")
    record = operator.erase_subject(subject)
    assert operator.erasure(record.erasure_id).state == "done"
    with pytest.raises(Gone) as gone:
        client.append_event(session, subject_id=subject, round=1, agent="a", kind="k", content="again")
    assert (gone.value.code, gone.value.field) == ("subject_erased", "subject_id")
