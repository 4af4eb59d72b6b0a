"""API keys on `agentmem serve`: required off loopback, required on every route but health once
configured, and the key's grant (never the development header) is the caller."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import urllib3
from aws_lambda_powertools.event_handler import APIGatewayRestResolver

from agentmem.api.app import build_resolver
from agentmem.client import MemoryApiError, MemoryClient
from agentmem.entrypoints.server import (
    ApiKeyConfigError,
    ApiKeys,
    LocalServer,
    UnsafeBindError,
    is_loopback_host,
)
from agentmem.wiring import Services
from tests.functional.raw_http import HANG_SECONDS
from tests.functional.serve_process import free_port

KEY = "k-analyst-0123456789abcdef"
OTHER_KEY = "k-someone-else-0123456789"
KEYS_JSON = json.dumps({KEY: {"principals": ["analyst", "ops"], "role": "reader"}})


def whoami_resolver() -> APIGatewayRestResolver:
    """Echoes what the resolver receives: the authorizer context and the header names."""
    app = APIGatewayRestResolver()

    @app.get("/v1/whoami")
    def whoami() -> dict[str, Any]:
        event = app.current_event.raw_event
        return {
            "authorizer": event["requestContext"].get("authorizer"),
            "headers": sorted(k.lower() for k in event["headers"]),
        }

    return app


@pytest.fixture
def keyed(services: Services) -> Iterator[str]:
    with LocalServer(lambda: build_resolver(services), port=0, api_keys=ApiKeys.from_setting(KEYS_JSON)) as s:
        yield s.url


def call(url: str, path: str, **headers: str) -> urllib3.BaseHTTPResponse:
    return urllib3.request("GET", url + path, headers=headers, retries=False, timeout=HANG_SECONDS)


def test_health_needs_no_key(keyed: str) -> None:
    assert call(keyed, "/v1/health").status == 200


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": f"Bearer {OTHER_KEY}"},
        {"Authorization": f"Basic {KEY}"},
        {"X-Agentmem-Api-Key": ""},
    ],
    ids=["none", "unknown key", "wrong scheme", "empty"],
)
def test_every_other_route_needs_a_valid_key(keyed: str, headers: dict[str, str]) -> None:
    for path in ("/v1/sessions/s1/events", "/v1/openapi.json", "/v1/health/deep", "/v2/nothing"):
        response = call(keyed, path, **headers)
        assert response.status == 401, path
        assert response.json()["error"]["code"] == "unauthorized"
        assert response.headers["WWW-Authenticate"] == "Bearer"
        assert KEY not in response.data.decode()


@pytest.mark.parametrize("header", ["Authorization", "X-Agentmem-Api-Key"])
def test_a_valid_key_is_accepted_in_either_header(keyed: str, header: str) -> None:
    value = f"Bearer {KEY}" if header == "Authorization" else KEY
    assert call(keyed, "/v1/sessions/s1/events", **{header: value}).status == 200


def test_the_client_sends_its_key(keyed: str) -> None:
    client = MemoryClient(keyed, api_key=KEY)
    client.append_event("s1", subject_id="p", round=0, agent="a", kind="k", content="hello")
    assert [e.content for e in client.list_events("s1").items] == ["hello"]
    with pytest.raises(MemoryApiError) as refused:
        MemoryClient(keyed, retries=0).list_events("s1")
    assert refused.value.status == 401


def test_with_keys_the_grant_is_the_caller_and_the_dev_header_is_ignored() -> None:
    with LocalServer(whoami_resolver, port=0, api_keys=ApiKeys.from_setting(KEYS_JSON)) as server:
        seen = call(
            server.url, "/v1/whoami", Authorization=f"Bearer {KEY}", **{"X-Agentmem-Principals": "admin"}
        )
    assert seen.json()["authorizer"] == {"principals": "analyst,ops", "role": "reader"}
    # Neither the key nor the claimed principals reach the resolver.
    assert not {"authorization", "x-agentmem-principals"} & set(seen.json()["headers"])


def test_without_keys_the_dev_header_names_the_principals() -> None:
    with LocalServer(whoami_resolver, port=0) as server:
        seen = call(server.url, "/v1/whoami", **{"X-Agentmem-Principals": "analyst"})
    assert seen.json()["authorizer"] == {"principals": "analyst"}


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_non_loopback_host_without_keys_is_refused(host: str) -> None:
    assert not is_loopback_host(host)
    with pytest.raises(UnsafeBindError, match="AGENTMEM_API_KEYS"):
        LocalServer(whoami_resolver, host=host, port=0)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_loopback_hosts_are_recognised(host: str) -> None:
    assert is_loopback_host(host)


def test_keys_load_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text(KEYS_JSON)
    keys = ApiKeys.from_setting(str(path))
    grant = keys.match(KEY)
    assert grant is not None and grant.authorizer_context() == {"principals": "analyst,ops", "role": "reader"}
    assert keys.match(OTHER_KEY) is None


@pytest.mark.parametrize(
    "setting",
    [
        '{"short-key": {"principals": ["a"], "role": "reader"}}',
        json.dumps({KEY: {"principals": ["a"]}}),
        json.dumps({KEY: {"principals": ["has space"], "role": "reader"}}),
        f'{{"{KEY}": ',
        "[]",
        "/no/such/keys.json",
    ],
    ids=["short", "no role", "bad principal", "not JSON", "not an object", "missing file"],
)
def test_bad_key_settings_are_refused_without_echoing_a_key(setting: str) -> None:
    with pytest.raises(ApiKeyConfigError) as refused:
        ApiKeys.from_setting(setting)
    assert KEY not in str(refused.value) and "short-key" not in str(refused.value)


def serve(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agentmem.entrypoints.cli", "serve", *args],
        env={**os.environ, "POWERTOOLS_LOG_LEVEL": "WARNING", **env},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def test_cli_refuses_a_non_loopback_host_without_keys(tmp_path: Path) -> None:
    proc = serve("--host", "0.0.0.0", "--port", "0", "--data-dir", str(tmp_path / "data"), env={})
    output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert "refusing --host 0.0.0.0" in output and "AGENTMEM_API_KEYS" in output
    assert not (tmp_path / "data").exists()  # refused before anything was opened


def test_cli_with_keys_requires_them_and_exits_0_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    proc = serve(
        "--port", str(port), "--data-dir", str(tmp_path / "data"), env={"AGENTMEM_API_KEYS": KEYS_JSON}
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                assert call(url, "/v1/health").status == 200
                break
            except urllib3.exceptions.HTTPError:
                assert time.monotonic() < deadline and proc.poll() is None, "server did not start"
                time.sleep(0.1)
        assert call(url, "/v1/sessions/s1/events").status == 401
        assert call(url, "/v1/sessions/s1/events", Authorization=f"Bearer {KEY}").status == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, output
    assert "1 API key(s) required" in output
    assert KEY not in output
