"""MemoryClient against API Gateway: SigV4 on every request, and the usage plan's API key signed with it."""

from __future__ import annotations

from typing import Any

import pytest

from agentmem.client import MemoryClient


class Recorder:
    """Stands in for urllib3's pool: records what would be sent, answers 200 with a JSON body."""

    def __init__(self) -> None:
        self.headers: dict[str, str] = {}

    def request(self, method: str, url: str, body: Any = None, headers: Any = None) -> Any:
        self.headers = dict(headers or {})

        class Response:
            status = 200
            data = b'{"status": "ok"}'

        return Response()


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    return Recorder()


def _signed_headers(headers: dict[str, str]) -> list[str]:
    authorization = headers["Authorization"]
    assert authorization.startswith("AWS4-HMAC-SHA256 ")
    signed = authorization.split("SignedHeaders=")[1].split(",")[0]
    return signed.split(";")


def test_requests_to_api_gateway_are_signed_for_execute_api(recorder: Recorder) -> None:
    client = MemoryClient("https://abc.execute-api.eu-west-1.amazonaws.com/prod", sigv4_region="eu-west-1")
    client._http = recorder  # type: ignore[assignment]
    assert client.health() == {"status": "ok"}
    assert "/eu-west-1/execute-api/aws4_request" in recorder.headers["Authorization"]
    assert "x-api-key" not in recorder.headers


def test_the_usage_plan_key_is_sent_and_signed(recorder: Recorder) -> None:
    client = MemoryClient(
        "https://abc.execute-api.eu-west-1.amazonaws.com/prod",
        sigv4_region="eu-west-1",
        gateway_api_key="k-123",
    )
    client._http = recorder  # type: ignore[assignment]
    client.health()
    assert recorder.headers["x-api-key"] == "k-123"
    assert "x-api-key" in _signed_headers(recorder.headers)
