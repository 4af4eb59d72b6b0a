"""functions/erasure/handler.py as Lambda loads it, on the local backend (no queue configured, so
an accepted erasure runs in the request)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from agentmem.model.events import AppendEventRequest
from agentmem.settings import Settings
from agentmem.wiring import bootstrap
from tests.conftest import FakeLambdaContext
from tests.functional.test_projector_handler import load_handler


@pytest.fixture
def erasure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.setenv("AGENTMEM_BACKEND", "local")
    monkeypatch.setenv("AGENTMEM_DATA_DIR", str(tmp_path / "data"))
    return load_handler("erasure")


def event(method: str, path: str) -> dict[str, object]:
    return {
        "resource": path, "path": path, "httpMethod": method, "headers": {}, "multiValueHeaders": {},
        "queryStringParameters": None, "multiValueQueryStringParameters": None, "pathParameters": None,
        "stageVariables": None, "body": None, "isBase64Encoded": False,
        "requestContext": {"httpMethod": method, "path": path, "stage": "prod", "requestId": "r",
                           "authorizer": {"principals": "writer"}},  # erasure is for writers
    }  # fmt: skip


def test_delete_then_get_through_the_lambda_entry_point(erasure: ModuleType) -> None:
    request = AppendEventRequest(subject_id="priya", round=0, agent="a", kind="note", content="hello")
    bootstrap(Settings.from_env()).episodic.append("s1", request)  # same data dir, as the write function

    accepted = erasure.handler(event("DELETE", "/v1/subjects/priya"), FakeLambdaContext())
    body = json.loads(accepted["body"])
    followed = erasure.handler(event("GET", f"/v1/erasures/{body['erasure_id']}"), FakeLambdaContext())

    assert (accepted["statusCode"], body["state"], body["tiers"]["events"]["removed"]) == (202, "done", 1)
    assert json.loads(followed["body"]) == body
