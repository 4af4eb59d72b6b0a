"""Bedrock offline: a real botocore client whose HTTP exchange is answered by the test.

The client runs its whole request path (parameter validation against the service model, the
REST-JSON serializer, signing) and parses the answer with botocore's own parser, so a misspelt
field fails here and a recorded answer reaches the adapter exactly as a live one would. Only the
socket is replaced: a `before-send` handler answers from the test's `Model`, or with a fault.
Retries are off, so a throttling answer reaches the adapter on the first attempt."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import boto3
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError

Model = Callable[[dict[str, Any]], dict[str, Any]]
"""The answer (a JSON body) to one request (its JSON body)."""


class _Raw(io.BytesIO):
    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self.read()


@dataclass(frozen=True)
class Fault:
    """A service error answer: what Bedrock sends when it throttles or refuses a request."""

    status: int
    code: str
    message: str = "the service says no (arn:aws:bedrock:us-east-1:123456789012:secret-detail)"


THROTTLED = Fault(429, "ThrottlingException", "Too many requests, please wait before trying again.")
MODEL_NOT_READY = Fault(429, "ModelNotReadyException")
UNAVAILABLE = Fault(503, "ServiceUnavailableException")
INVALID = Fault(400, "ValidationException", "The provided model identifier is invalid (123456789012).")
DENIED = Fault(403, "AccessDeniedException")
UNREACHABLE = "unreachable"


@dataclass
class RecordedBedrock:
    """`client` is handed to the adapter; `requests` holds every JSON body it sent."""

    service: str
    model: Model
    client: Any = field(init=False)
    requests: list[dict[str, Any]] = field(default_factory=list, init=False)
    fault: Fault | str | None = None

    def __post_init__(self) -> None:
        self.client = boto3.client(
            self.service,
            region_name="us-east-1",
            config=Config(retries={"total_max_attempts": 1}),
        )
        self.client.meta.events.register(f"before-send.{self.service}", self._send)

    def _send(self, request: AWSPreparedRequest, **_: Any) -> AWSResponse:
        body = request.body or b"{}"
        sent = json.loads(body if isinstance(body, bytes) else body.encode())
        self.requests.append(sent)
        if self.fault == UNREACHABLE:
            raise EndpointConnectionError(endpoint_url=request.url)
        if isinstance(self.fault, Fault):
            headers = {"x-amzn-ErrorType": f"{self.fault.code}:http://internal.amazon.com/coral/"}
            reply = json.dumps({"message": self.fault.message}).encode()
            return AWSResponse(request.url, self.fault.status, headers, _Raw(reply))
        answer = json.dumps(self.model(sent)).encode()
        return AWSResponse(request.url, 200, {"content-type": "application/json"}, _Raw(answer))


def converse_reply(payload: Any, request: Mapping[str, Any], *, stop: str = "end_turn") -> dict[str, Any]:
    """A Converse answer carrying `payload` the way the request asked for it: as JSON text under
    native structured output, or as the forced tool's input."""
    tool_config = request.get("toolConfig")
    if tool_config is None:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        content: list[dict[str, Any]] = [{"text": text}]
    else:
        name = tool_config["toolChoice"]["tool"]["name"]
        content = [{"toolUse": {"toolUseId": "tooluse_1", "name": name, "input": payload}}]
        stop = "tool_use" if stop == "end_turn" else stop
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {"inputTokens": 200, "outputTokens": 50, "totalTokens": 250},
        "metrics": {"latencyMs": 300},
    }


def tool_name(request: Mapping[str, Any]) -> str:
    """The schema the request binds the answer to, in either output mode."""
    if "toolConfig" in request:
        return str(request["toolConfig"]["toolChoice"]["tool"]["name"])
    return str(request["outputConfig"]["textFormat"]["structure"]["jsonSchema"]["name"])


def user_prompt(request: Mapping[str, Any]) -> str:
    return "".join(block.get("text", "") for block in request["messages"][0]["content"])


@dataclass
class RecordedConverse:
    """A model that answers from recordings: the first whose needle is in the user prompt (a
    recording may be a function of the request, to answer by `tool_name`).

    A prompt no recording expects fails the test, so an adapter that should not have asked the
    model (an event with no text, an empty pool) is caught asking."""

    recordings: Mapping[str, Any]
    stop: str = "end_turn"
    raw_text: str | None = None  # answer this text verbatim instead (a malformed answer)

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.raw_text is not None:
            return converse_reply(self.raw_text, {}, stop=self.stop)
        prompt = user_prompt(request)
        for needle, payload in self.recordings.items():
            if needle in prompt:
                answer = payload(request) if callable(payload) else payload
                return converse_reply(answer, request, stop=self.stop)
        raise AssertionError(f"no recorded answer for this prompt:\n{prompt[:500]}")
