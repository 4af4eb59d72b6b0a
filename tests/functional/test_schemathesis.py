"""Property-based API tests: schemathesis generates requests from the served OpenAPI document and
checks every answer against it.

The schema is loaded over HTTP from `/v1/openapi.json` of a short-lived server while the module is
collected: schemathesis' fixture-based loader (`schemathesis.pytest.from_fixture`) sets
`request.node._nodeid`, which pytest 9 no longer has. The generated cases then run against a
module-scoped server over its own data dir, and a separate test pins that the document this server
serves is the one the cases were generated from.

Checks: no 5xx (`not_a_server_error`), responses match the documented schema
(`response_schema_conformance`) and content type (`content_type_conformance`). Bounded and
reproducible: 25 fuzzed examples per operation on top of schemathesis' explicit-example and coverage
cases (about 100 requests per operation), derandomized, no deadline. Derandomized means the seed
follows the test's code, so a fuzzing find is pinned below as a plain regression test."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import settings
from schemathesis.checks import load_all_checks, not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from agentmem.api.app import OPENAPI_PATH, build_resolver
from agentmem.entrypoints.server import LocalServer
from agentmem.semantic.health import prepare_for_writes
from agentmem.settings import Settings
from agentmem.wiring import bootstrap

load_all_checks()
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


def _start(data_dir: Path) -> LocalServer:
    # Every caller a writer (docs/access.md), so generated writes reach validation and the store
    # instead of stopping at 403.
    services = bootstrap(Settings(data_dir=data_dir, writer_principals=("everyone",)))
    # As `agentmem serve` does through its projector worker: the writer prepares the belief
    # store and seeds the deep-health probe, so /v1/health/deep is healthy, not 503.
    prepare_for_writes(services.semantic)
    return LocalServer(lambda: build_resolver(services), port=0).start()


def _load_schema() -> schemathesis.BaseSchema:
    with tempfile.TemporaryDirectory(prefix="agentmem-st-schema-") as tmp:
        server = _start(Path(tmp))
        try:
            return schemathesis.openapi.from_url(f"{server.url}{OPENAPI_PATH}", timeout=10)
        finally:
            server.stop()


schema = _load_schema()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    local = _start(tmp_path_factory.mktemp("schemathesis"))
    try:
        yield local
    finally:
        local.stop()


@pytest.fixture(scope="module")
def http(server: LocalServer) -> Iterator[requests.Session]:
    with requests.Session() as session:
        yield session


def test_the_served_document_is_the_one_under_test(server: LocalServer, http: requests.Session) -> None:
    response = http.get(f"{server.url}{OPENAPI_PATH}", timeout=10)
    assert response.status_code == 200
    served: dict[str, Any] = response.json()
    assert served == schema.raw_schema
    assert set(served["paths"]) >= {"/v1/health", "/v1/sessions/{session_id}/events"}


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True)
def test_api_conforms_to_its_openapi_document(
    case: schemathesis.Case[Any], server: LocalServer, http: requests.Session
) -> None:
    case.call_and_validate(base_url=server.url, session=http, checks=CHECKS)


@pytest.mark.parametrize("param", ["after", "round"])
def test_integer_query_past_int64_is_not_a_server_error(
    param: str, server: LocalServer, http: requests.Session
) -> None:
    """Pinned after schemathesis' fuzzing found it (under another seed): `after` and `round` have
    no documented maximum, so any integer is schema-valid; an empty page or a 422 naming the
    parameter are both fine answers, a 500 is not."""
    response = http.get(f"{server.url}/v1/sessions/s1/events", params={param: str(2**63)}, timeout=10)
    assert response.status_code in (200, 422), f"{response.status_code} {response.text}"
    if response.status_code == 422:
        assert response.json()["error"]["field"] == param
