"""Both inspector transports pass the Transport contract against one live local server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.entrypoints.server import LocalServer
from agentmem.inspector.reader import Transport
from agentmem.inspector.transports import ClientTransport, ResolverTransport
from agentmem.settings import Settings
from agentmem.wiring import bootstrap
from tests.contract.inspector_transport_contract import TransportContract, seed


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, LocalServer, object]]:
    services = bootstrap(Settings(data_dir=Path(tmp_path_factory.mktemp("transport")) / "data"))
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        seed(server.url)
        yield server.url, server, services


class TestResolverTransport(TransportContract):
    @pytest.fixture
    def url(self, served: tuple[str, LocalServer, object]) -> str:
        return served[0]

    @pytest.fixture
    def transport(self, served: tuple[str, LocalServer, object]) -> Transport:
        services = served[2]
        return ResolverTransport(lambda: build_resolver(services))  # type: ignore[arg-type]


class TestClientTransport(TransportContract):
    @pytest.fixture
    def url(self, served: tuple[str, LocalServer, object]) -> str:
        return served[0]

    @pytest.fixture
    def transport(self, served: tuple[str, LocalServer, object]) -> Transport:
        url = served[0]
        return ClientTransport(lambda claimed: MemoryClient(url, local_principals=claimed, retries=0))
