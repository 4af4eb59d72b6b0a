"""A bench's agentmem: a fresh store in a temporary folder, the model loaded outside the timings,
the projector worker, and the HTTP API on a loopback port with a client for it."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import LocalServer
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap


@dataclass(frozen=True)
class LocalStack:
    services: Services
    worker: ProjectorWorker
    client: MemoryClient


@contextmanager
def local_stack(prefix: str) -> Iterator[LocalStack]:
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        services = bootstrap(Settings(data_dir=Path(tmp)))
        services.semantic.embedder.embed(["warm up: load the model once, outside the timings"])
        worker = local_worker(services)
        worker.run_once()
        with LocalServer(lambda: build_resolver(services), port=0) as server:
            yield LocalStack(services, worker, MemoryClient(server.url, timeout_seconds=120))
