"""An `AgentMemStore` over a real local server, driven sync or async.

The projector does not run in the background here: the clients' injected sleep runs one
projector round, so a read that waits for the projection (a search after a put) waits exactly
one round and no test races a timer. `test_store.py` runs the background worker as well."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from langgraph.store.base import Item, Op, Result, SearchItem

from agentmem.api.app import build_resolver
from agentmem.client import AsyncMemoryClient, MemoryClient
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import LocalServer
from agentmem.integrations.langgraph import AgentMemStore
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap


@dataclass
class Served:
    url: str
    services: Services
    worker: ProjectorWorker


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("langgraph") / "data"))
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        yield Served(server.url, services, local_worker(services))


def sync_store(served: Served, **options: Any) -> AgentMemStore:
    client = MemoryClient(served.url, sleep=lambda _: served.worker.run_once())
    return AgentMemStore(client, **options)


class AsyncDriven:
    """An async-only store (`AsyncMemoryClient`) called through its `a*` methods, each run to
    completion on one event loop, so the same test body checks `abatch`."""

    def __init__(self, served: Served, runner: asyncio.Runner, **options: Any) -> None:
        async def project(_: float) -> None:
            await asyncio.to_thread(served.worker.run_once)

        self.store = AgentMemStore(async_client=AsyncMemoryClient(served.url, sleep=project), **options)
        self._run = runner.run

    def put(self, *args: Any, **kwargs: Any) -> None:
        self._run(self.store.aput(*args, **kwargs))

    def get(self, *args: Any, **kwargs: Any) -> Item | None:
        return self._run(self.store.aget(*args, **kwargs))

    def search(self, *args: Any, **kwargs: Any) -> list[SearchItem]:
        return self._run(self.store.asearch(*args, **kwargs))

    def delete(self, *args: Any, **kwargs: Any) -> None:
        self._run(self.store.adelete(*args, **kwargs))

    def list_namespaces(self, **kwargs: Any) -> list[tuple[str, ...]]:
        return self._run(self.store.alist_namespaces(**kwargs))

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return self._run(self.store.abatch(ops))


@pytest.fixture
def store(request: pytest.FixtureRequest, served: Served) -> Iterator[Any]:
    """The sync store; `async` too where a test is parametrized with `BOTH`."""
    if getattr(request, "param", "sync") == "sync":
        yield sync_store(served)
        return
    with asyncio.Runner() as runner:
        yield AsyncDriven(served, runner)


BOTH = pytest.mark.parametrize("store", ["sync", "async"], indirect=True)


@pytest.fixture
def root() -> str:
    """A subject id of this test's own: the module shares one server."""
    return f"t{uuid.uuid4().hex[:12]}"
