"""Both clients against API Gateway: SigV4 on every request, and the usage plan's API key signed
with it (a key outside the signature could be swapped in flight)."""

from __future__ import annotations

import httpx2
import pytest

from agentmem.client import AsyncMemoryClient, MemoryClient

GATEWAY = "https://abc.execute-api.eu-west-1.amazonaws.com/prod"


@pytest.fixture(autouse=True)
def credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")


def _signed_headers(headers: httpx2.Headers) -> list[str]:
    authorization = headers["authorization"]
    assert authorization.startswith("AWS4-HMAC-SHA256 ")
    return authorization.split("SignedHeaders=")[1].split(",")[0].split(";")


def _recording(sent: list[httpx2.Request]) -> httpx2.MockTransport:
    def handle(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        return httpx2.Response(200, json={"status": "ok"})

    return httpx2.MockTransport(handle)


def test_requests_to_api_gateway_are_signed_for_execute_api() -> None:
    sent: list[httpx2.Request] = []
    with MemoryClient(GATEWAY, transport=_recording(sent), sigv4_region="eu-west-1") as client:
        client.health()
    (request,) = sent
    assert "/eu-west-1/execute-api/aws4_request" in request.headers["authorization"]
    assert "x-api-key" not in request.headers


def test_the_usage_plan_key_is_sent_and_signed() -> None:
    sent: list[httpx2.Request] = []
    options = {"sigv4_region": "eu-west-1", "gateway_api_key": "k-123"}
    with MemoryClient(GATEWAY, transport=_recording(sent), **options) as client:  # type: ignore[arg-type]
        client.health()
    (request,) = sent
    assert request.headers["x-api-key"] == "k-123"
    assert "x-api-key" in _signed_headers(request.headers)


def test_the_async_client_signs_the_usage_plan_key_too() -> None:
    import anyio

    sent: list[httpx2.Request] = []

    async def call() -> None:
        options = {"sigv4_region": "eu-west-1", "gateway_api_key": "k-123"}
        async with AsyncMemoryClient(GATEWAY, transport=_recording(sent), **options) as client:  # type: ignore[arg-type]
            await client.health()

    anyio.run(call)
    (request,) = sent
    assert request.headers["x-api-key"] == "k-123" and "x-api-key" in _signed_headers(request.headers)
