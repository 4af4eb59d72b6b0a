"""The composition root: bootstrap picks the backend's factory, takes any port as an override,
builds nothing until asked, and refuses a Lambda that would keep its memory on local disk."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any, cast

import pytest

from agentmem.adapters.aws.factory import AwsFactory
from agentmem.adapters.local.factory import LocalFactory
from agentmem.errors import UnsupportedOnBackendError
from agentmem.ports.catalogue import Catalogue
from agentmem.ports.embedding import Embedder
from agentmem.settings import Settings
from agentmem.wiring import BackendMisconfiguredError, bootstrap


class FixedEmbedder:
    model_id = "fixed"
    dimensions = 3

    def embed(self, texts: Any) -> list[list[float]]:
        return [[1.0, 0.0, 0.0] for _ in texts]


def test_bootstrap_builds_nothing_until_a_port_is_asked_for(tmp_path: Path) -> None:
    services = bootstrap(Settings(data_dir=tmp_path / "data"))
    assert isinstance(services.ports.factory, LocalFactory)
    assert not (tmp_path / "data").exists()


def test_any_port_may_be_passed_in_and_the_services_use_it(tmp_path: Path) -> None:
    embedder, catalogue = FixedEmbedder(), cast(Catalogue, object())
    services = bootstrap(
        Settings(data_dir=tmp_path / "data"), embedder=cast(Embedder, embedder), catalogue=catalogue
    )
    assert services.semantic.embedder is embedder
    assert services.composer.catalogue is catalogue


def test_an_unknown_port_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="no such port: event_store"):
        bootstrap(Settings(data_dir=tmp_path), **cast(Any, {"event_store": object()}))


def test_a_lambda_on_the_local_backend_fails_at_start(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "agentmem-acme-write")
    with pytest.raises(BackendMisconfiguredError, match=r"agentmem-acme-write.*AGENTMEM_BACKEND=aws"):
        bootstrap(Settings(data_dir=tmp_path))
    services = bootstrap(Settings(backend="aws"))
    assert isinstance(services.ports.factory, AwsFactory)


def test_the_aws_backend_has_no_log_tail_to_offer() -> None:
    ports = bootstrap(Settings(backend="aws")).ports
    with pytest.raises(UnsupportedOnBackendError, match="DynamoDB stream"):
        ports.log_tail  # noqa: B018 - building the port is the point


@pytest.mark.parametrize("factory", [LocalFactory, AwsFactory])
def test_each_factory_builds_every_port_the_root_names(factory: type) -> None:
    """A port added to BackendFactory without a builder on a backend would only fail when first
    asked for there (a Lambda at its first request); this fails the build instead."""
    import inspect

    from agentmem.wiring.ports import BackendFactory, PortOverrides, Ports

    ports = {
        name for name, _ in inspect.getmembers(BackendFactory, inspect.isfunction) if not name.startswith("_")
    }
    assert ports == set(PortOverrides.__annotations__)
    assert all(isinstance(inspect.getattr_static(Ports, name), cached_property) for name in ports)
    for name in ports:
        wanted = inspect.signature(getattr(BackendFactory, name)).parameters
        built = inspect.signature(getattr(factory, name)).parameters
        assert list(built) == list(wanted), name


def test_the_aws_backend_caches_vectors_only_where_the_stack_names_a_table() -> None:
    """The stack names the table to the projector, the replay worker and the erasure function;
    any other function embeds without a cache and has no cached vectors to forget."""
    from agentmem.adapters.aws.dynamodb_vector_cache import DynamoDbVectorCache

    assert AwsFactory(Settings(backend="aws", aws_region="us-east-1")).vector_cache() is None
    named = Settings(backend="aws", aws_region="us-east-1", vector_table_name="agentmem-acme-vectors")
    assert isinstance(AwsFactory(named).vector_cache(), DynamoDbVectorCache)
