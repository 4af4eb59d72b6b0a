"""OpenAI-compatible servers offline: the real `openai` client, whose HTTP exchange is answered by
the test.

The SDK builds, serialises and sends every request through its own code; only the transport is
replaced (`httpx2.MockTransport`, the SDK's HTTP library), so a recorded answer reaches the adapter
exactly as a live one would, parsed by the SDK's own response models. Both directions are checked
against the SDK's types:
- every request body against the SDK's parameter TypedDicts
  (`completion_create_params.CompletionCreateParamsNonStreaming`, `EmbeddingCreateParams`).
  pydantic drops keys a TypedDict does not declare, so a body that changes under validation had a
  misspelt or unknown field, and fails here;
- every answer the fake gives against the SDK's response models (`ChatCompletion`,
  `CreateEmbeddingResponse`), so a fixture cannot drift from the real format either."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai
from openai.types import CreateEmbeddingResponse
from openai.types.chat import ChatCompletion
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from openai.types.embedding_create_params import EmbeddingCreateParams
from pydantic import TypeAdapter

BASE_URL = "http://127.0.0.1:11434/v1"
CHAT_PARAMS: TypeAdapter[Any] = TypeAdapter(CompletionCreateParamsNonStreaming)
EMBEDDING_PARAMS: TypeAdapter[Any] = TypeAdapter(EmbeddingCreateParams)

Chat = Callable[[dict[str, Any]], Any]
"""The payload the model "writes" (the JSON its schema asks for) for one request body."""
Embed = Callable[[list[str]], list[list[float]]]


def _materialised(value: Any) -> Any:
    """pydantic validates an Iterable lazily, as an iterator: walk it so every item is checked."""
    if isinstance(value, Mapping):
        return {k: _materialised(v) for k, v in value.items()}
    if isinstance(value, list | tuple | Iterator):
        return [_materialised(v) for v in value]
    return value


def sdk_checked(adapter: TypeAdapter[Any], body: dict[str, Any]) -> dict[str, Any]:
    """`body` validated against an SDK parameter type; AssertionError naming what it dropped."""
    validated = _materialised(adapter.validate_python(body))
    assert validated == body, f"fields the SDK's types do not declare:\n{body}\n!=\n{validated}"
    return body


def check_chat_request(body: dict[str, Any]) -> dict[str, Any]:
    return sdk_checked(CHAT_PARAMS, body)


def check_embedding_request(body: dict[str, Any]) -> dict[str, Any]:
    return sdk_checked(EMBEDDING_PARAMS, body)


@dataclass(frozen=True)
class Fault:
    """An error answer as these servers send it: the OpenAI error envelope."""

    status: int
    message: str
    type: str = "invalid_request_error"
    code: str | None = None
    param: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}


THROTTLED = Fault(
    429,
    "Rate limit reached for requests. Please try again in 3s.",
    "requests",
    "rate_limit_exceeded",
    headers={"retry-after": "3"},
)
OVERLOADED = Fault(503, "The server is overloaded or not ready yet.", "server_error")
SERVER_ERROR = Fault(500, "llama runner process has terminated: exit status 2", "api_error")
BAD_KEY = Fault(
    401,
    "Incorrect API key provided: sk-test-***2345. You can find your API key at the dashboard.",
    code="invalid_api_key",
)
NO_SUCH_MODEL = Fault(404, 'model "llama3.2" not found, try pulling it first', "api_error")
REFUSED = Fault(400, "This model's maximum context length is 8192 tokens.", code="context_length_exceeded")
# What a server without JSON-schema output answers (a LiteLLM proxy in front of such a provider).
SCHEMA_REFUSED = Fault(
    400,
    "litellm.UnsupportedParamsError: ollama does not support parameters: ['response_format']. "
    "To drop these, set `litellm.drop_params=True`.",
)
UNREACHABLE = "unreachable"
TIMED_OUT = "timed out"


def user_prompt(body: Mapping[str, Any]) -> str:
    return "".join(m["content"] for m in body["messages"] if m["role"] == "user")


def schema_name(body: Mapping[str, Any]) -> str:
    """The schema a chat request binds the answer to, in either output mode."""
    if "response_format" in body:
        return str(body["response_format"]["json_schema"]["name"])
    return str(body["tool_choice"]["function"]["name"])


def chat_reply(payload: Any, body: Mapping[str, Any], *, finish: str | None = None) -> dict[str, Any]:
    """A chat completion carrying `payload` the way the request asked for it: as JSON text under
    `response_format`, or as the forced tool call's arguments."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    stop = "stop"
    if "tools" in body:
        name = body["tool_choice"]["function"]["name"]
        call = {"id": "call_0", "type": "function", "function": {"name": name, "arguments": text}}
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        stop = "tool_calls"
    return {
        "id": "chatcmpl-0", "object": "chat.completion", "created": 1764460800, "model": body["model"],
        "system_fingerprint": "fp_ollama",
        "choices": [{"index": 0, "message": message, "finish_reason": finish or stop, "logprobs": None}],
        "usage": {"prompt_tokens": 210, "completion_tokens": 48, "total_tokens": 258},
    }  # fmt: skip


@dataclass
class RecordedChat:
    """A model that answers from recordings: the first whose needle is in the user prompt (a
    recording may be a function of the request body, to answer by `schema_name`).

    A prompt no recording expects fails the test, so an adapter that should not have asked the
    model (an event with no text, an empty pool) is caught asking."""

    recordings: Mapping[str, Any]

    def __call__(self, body: dict[str, Any]) -> Any:
        prompt = user_prompt(body)
        for needle, payload in self.recordings.items():
            if needle in prompt:
                return payload(body) if callable(payload) else payload
        raise AssertionError(f"no recorded answer for this prompt:\n{prompt[:500]}")


@dataclass
class FakeOpenAIServer:
    """`client()` is handed to the adapter; `requests` holds every JSON body it sent, each already
    checked against the SDK's types. `takes_json_schema=False` answers JSON-schema requests the way
    a server without that feature does; `fault` answers every request with an error instead."""

    chat: Chat | None = None
    embed: Embed | None = None
    takes_json_schema: bool = True
    fault: Fault | str | None = None
    finish: str | None = None  # the finish reason to claim (e.g. "length")
    raw_text: str | None = None  # answer this text verbatim (a malformed answer)
    refusal: str | None = None  # answer with this refusal instead of content
    reply: dict[str, Any] | None = None  # answer this chat completion verbatim
    tools_fault: Fault | None = None  # answer tool-call requests with this (a server without tools)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def client(self, *, api_key: str = "sk-test-12345") -> openai.OpenAI:
        transport = httpx2.MockTransport(self.handle)
        return openai.OpenAI(
            base_url=BASE_URL, api_key=api_key, http_client=httpx2.Client(transport=transport), max_retries=0
        )

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        if self.fault == UNREACHABLE:
            raise httpx2.ConnectError("[Errno 111] Connection refused", request=request)
        if self.fault == TIMED_OUT:
            raise httpx2.ReadTimeout("timed out", request=request)
        if isinstance(self.fault, Fault):
            return httpx2.Response(
                self.fault.status, json=self.fault.body(), headers=dict(self.fault.headers)
            )
        if request.url.path.endswith("/embeddings"):
            return self._embeddings(check_embedding_request(body))
        return self._chat(check_chat_request(body))

    def _chat(self, body: dict[str, Any]) -> httpx2.Response:
        if "response_format" in body and not self.takes_json_schema:
            return httpx2.Response(SCHEMA_REFUSED.status, json=SCHEMA_REFUSED.body())
        if "tools" in body and self.tools_fault is not None:
            return httpx2.Response(self.tools_fault.status, json=self.tools_fault.body())
        assert self.chat is not None, "this fake serves no chat model"
        if self.reply is not None:
            reply = self.reply
        elif self.refusal is not None:
            reply = chat_reply("", body)
            reply["choices"][0]["message"] = {"role": "assistant", "content": None, "refusal": self.refusal}
        else:
            payload = self.raw_text if self.raw_text is not None else self.chat(body)
            reply = chat_reply(payload, body, finish=self.finish)
        ChatCompletion.model_validate(reply)  # the fake's answer is one the SDK's model accepts
        return httpx2.Response(200, json=reply)

    def _embeddings(self, body: dict[str, Any]) -> httpx2.Response:
        assert self.embed is not None, "this fake serves no embedding model"
        texts = body["input"]
        vectors = self.embed(texts)
        # Answered last first: the `index` field, not the order, says which text each is for.
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)][::-1]
        reply = {
            "object": "list", "data": data, "model": body["model"],
            "usage": {"prompt_tokens": 9 * len(texts), "total_tokens": 9 * len(texts)},
        }  # fmt: skip
        CreateEmbeddingResponse.model_validate(reply)
        return httpx2.Response(200, json=reply)


def scaled(vectors: Sequence[Sequence[float]], factor: float = 3.0) -> list[list[float]]:
    """Vectors no longer of unit length, as servers that do not normalise answer them."""
    return [[x * factor for x in v] for v in vectors]
