"""What the write function builds on its cold path (docs/deploy.md, "Cold start"): an inline append
builds the DynamoDB client alone, and with the stack's POWERTOOLS_TRACE_DISABLED the function never
imports the X-Ray SDK, while a traced function in Lambda still does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from agentmem.model.events import AppendEventRequest
from agentmem.settings import Settings
from agentmem.wiring import bootstrap
from tests.aws_fixtures import create_blob_bucket, create_log_table, use_fake_aws_environment
from tests.conftest import ROOT

TABLE, BUCKET = "agentmem-log", "agentmem-blobs"


@pytest.fixture
def clients_built(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The service name of every boto3 client built from here on."""
    use_fake_aws_environment(monkeypatch)
    built: list[str] = []
    real = boto3.session.Session.client

    def recording(self: boto3.session.Session, service_name: str, *args: Any, **kwargs: Any) -> Any:
        built.append(service_name)
        return real(self, service_name, *args, **kwargs)  # type: ignore[call-overload]

    with mock_aws():
        create_log_table(boto3.client("dynamodb"), TABLE)
        create_blob_bucket(boto3.client("s3"), BUCKET)
        monkeypatch.setattr(boto3.session.Session, "client", recording)
        yield built


def _append(content: str) -> Any:
    services = bootstrap(Settings(backend="aws", tenant_id="acme", table_name=TABLE, bucket_name=BUCKET))
    request = AppendEventRequest(subject_id="priya", round=1, agent="planner", kind="note", content=content)
    return services.episodic.append("priya-s1", request)


def test_an_inline_append_builds_no_s3_client(clients_built: list[str]) -> None:
    outcome = _append("a short note")
    assert outcome.event.stored == "inline"
    assert clients_built == ["dynamodb"]


def test_a_large_append_builds_the_s3_client_when_it_needs_it(clients_built: list[str]) -> None:
    outcome = _append("x" * (64 * 1024))
    assert outcome.event.stored == "blob"
    assert sorted(clients_built) == ["dynamodb", "s3"]
    assert boto3.client("s3").list_objects_v2(Bucket=BUCKET)["KeyCount"] == 1


# Not through tests.conftest, which switches tracing off for the suite.
INVOKE_AND_LIST_MODULES = """
import json, runpy, sys
class Context:
    function_name, function_version, memory_limit_in_mb = "agentmem-acme", "$LATEST", 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:agentmem-acme"
    aws_request_id = "0f6c1a3e-test"
    def get_remaining_time_in_millis(self):
        return 10_000
handler = runpy.run_path(sys.argv[1])["handler"]
with open(sys.argv[2]) as f:
    status = handler(json.load(f), Context())["statusCode"]
print(json.dumps({"status": status, "xray": "aws_xray_sdk" in {m.split(".")[0] for m in sys.modules}}))
"""


def _in_lambda(function: str, event: str, tmp_path: Path, **extra: str) -> dict[str, Any]:
    # LAMBDA_TASK_ROOT is how Powertools and the X-Ray SDK know they run in Lambda (local backend:
    # AWS_LAMBDA_FUNCTION_NAME stays unset, so bootstrap allows it).
    env = {
        **os.environ,
        "AGENTMEM_BACKEND": "local",
        "AGENTMEM_DATA_DIR": str(tmp_path / "data"),
        "LAMBDA_TASK_ROOT": str(ROOT / "functions" / function),
        "AWS_XRAY_CONTEXT_MISSING": "IGNORE_ERROR",
        "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:2000",
    }
    env.pop("POWERTOOLS_TRACE_DISABLED", None)
    env.update(extra)
    argv = [
        sys.executable,
        "-c",
        INVOKE_AND_LIST_MODULES,
        f"functions/{function}/handler.py",
        f"events/{event}",
    ]
    done = subprocess.run(
        argv,
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_the_write_function_with_tracing_disabled_never_imports_the_xray_sdk(tmp_path: Path) -> None:
    result = _in_lambda("write", "api_append_event.json", tmp_path, POWERTOOLS_TRACE_DISABLED="true")
    assert result == {"status": 201, "xray": False}


def test_a_traced_function_in_lambda_still_loads_the_xray_sdk(tmp_path: Path) -> None:
    result = _in_lambda("read", "api_openapi.json", tmp_path)
    assert result == {"status": 200, "xray": True}


@pytest.mark.parametrize(
    ("initialization", "built_at_init"),
    [("on-demand", []), ("provisioned-concurrency", ["dynamodb"]), ("snap-start", ["dynamodb"])],
)
def test_only_a_preinitialized_environment_builds_the_log_client_at_init(
    clients_built: list[str], monkeypatch: pytest.MonkeyPatch, initialization: str, built_at_init: list[str]
) -> None:
    # Ahead of any request the work is free for the caller; in front of one, it stays lazy.
    from agentmem.entrypoints.lambda_http import lambda_handler

    for name, value in {
        "AGENTMEM_BACKEND": "aws",
        "AGENTMEM_TENANT_ID": "acme",
        "AGENTMEM_TABLE_NAME": TABLE,
        "AGENTMEM_BUCKET_NAME": BUCKET,
        "AWS_LAMBDA_INITIALIZATION_TYPE": initialization,
    }.items():
        monkeypatch.setenv(name, value)
    lambda_handler("write")
    assert clients_built == built_at_init
