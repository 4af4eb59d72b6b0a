"""The write Lambda entry point, invoked with the sample events in events/ on the local backend."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import ROOT, FakeLambdaContext, load_event


def load_function(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"{name}_handler_under_test", ROOT / f"functions/{name}/handler.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def local_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTMEM_BACKEND", "local")
    monkeypatch.setenv("AGENTMEM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENTMEM_TENANT_ID", "acme")


@pytest.fixture
def handler_module(local_env: None) -> ModuleType:
    return load_function("write")


def invoke(module: ModuleType, event: dict[str, Any]) -> tuple[int, Any]:
    result = module.handler(event, FakeLambdaContext())
    return result["statusCode"], json.loads(result["body"])


def test_append_event_from_sample_is_acknowledged_with_seq_1(handler_module: ModuleType) -> None:
    status, body = invoke(handler_module, load_event("api_append_event.json"))
    assert status == 201
    assert body["seq"] == 1
    assert body["session_id"] == "priya-s1"
    assert body["stored"] == "inline"
    assert body["event_id"].startswith("ev_")


def test_replayed_sample_returns_the_same_ack(handler_module: ModuleType) -> None:
    _, first = invoke(handler_module, load_event("api_append_event.json"))
    status, again = invoke(handler_module, load_event("api_append_event.json"))
    assert status == 201
    assert again == first


def test_list_sample_returns_what_was_appended(handler_module: ModuleType) -> None:
    invoke(handler_module, load_event("api_append_event.json"))
    status, page = invoke(handler_module, load_event("api_list_events.json"))
    assert status == 200
    assert [e["seq"] for e in page["items"]] == [1]
    assert page["items"][0]["content"]["risk_tolerance"] == "cautious"
    assert page["next"] is None


def test_malformed_json_sample_is_400_naming_the_body(handler_module: ModuleType) -> None:
    status, body = invoke(handler_module, load_event("api_append_malformed_json.json"))
    assert status == 400
    assert body["error"]["field"] == "body"
    assert body["error"]["code"] == "malformed_json"


def test_tenant_in_body_is_refused_as_unknown_field(handler_module: ModuleType) -> None:
    status, body = invoke(handler_module, load_event("api_append_unknown_field.json"))
    assert status == 422
    assert body["error"]["field"] == "tenant_id"
    _, page = invoke(handler_module, load_event("api_list_events.json"))
    assert page["items"] == []


def test_openapi_sample_lists_every_route(local_env: None) -> None:
    # API Gateway sends /v1/openapi.json to the read function, which documents the whole API.
    status, document = invoke(load_function("read"), load_event("api_openapi.json"))
    assert status == 200
    assert document["openapi"].startswith("3.")
    paths = document["paths"]
    assert set(paths["/v1/sessions/{session_id}/events"]) == {"get", "post"}
    assert {"/v1/health", "/v1/openapi.json"} <= set(paths)


HEAVY = ("numpy", "onnxruntime", "tiktoken", "opensearchpy", "tokenizers")
APPEND_AND_LIST_MODULES = """
import json, runpy, sys
from tests.conftest import FakeLambdaContext, load_event
handler = runpy.run_path("functions/write/handler.py")["handler"]
assert handler(load_event("api_append_event.json"), FakeLambdaContext())["statusCode"] == 201
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def test_the_write_function_loads_no_model_tokenizer_or_search_client(tmp_path: Path) -> None:
    # Its cold start is the latency of the first append: the heavy modules are for other paths.
    env = {**os.environ, "AGENTMEM_BACKEND": "local", "AGENTMEM_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-c", APPEND_AND_LIST_MODULES],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert "agentmem" in loaded
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))
