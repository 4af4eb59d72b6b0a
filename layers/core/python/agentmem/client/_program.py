"""The client's logic, written once for both clients as generator programs (sans-I/O).

A program yields steps and is sent back their results: an `ApiRequest` (answered with the
response's JSON, or thrown the typed error), a `Pause`, or a `Blocking` call. `Connection.bind`
turns each `ApiRequest` into the HTTP exchange: the request built, signed, sent and retried by
one policy. What is left are `httpx2.Request`, `Pause` and `Blocking` steps, which the sync
client performs with `httpx2.Client` and `time.sleep`, the async one with `httpx2.AsyncClient`,
`asyncio.sleep` and a worker thread. So the two clients share every decision, and differ only in
how they wait."""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, ParamSpec, TypeVar
from urllib.parse import quote, urlencode

import httpx2

from agentmem.client._errors import TransportFailed, error_from_answer
from agentmem.client._retry import RetryPolicy, parse_retry_after
from agentmem.client._sigv4 import SigV4Signer

T = TypeVar("T")
P = ParamSpec("P")


@dataclass(frozen=True)
class ApiRequest:
    """One call of the agentmem API: `path` under the base URL, a JSON `body`, a `query`."""

    method: str
    path: str
    body: Any = None
    query: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Pause:
    seconds: float


@dataclass(frozen=True)
class Blocking(Generic[T]):
    """A call that may block on I/O the program cannot yield through (a credential refresh)."""

    call: Callable[[], T]


Step = ApiRequest | Pause | Blocking[Any] | httpx2.Request
Program = Generator[Step, Any, T]


@dataclass(frozen=True)
class Finished(Generic[T]):
    value: T


@dataclass(frozen=True)
class Outcome:
    """What a step gave: its value, or the exception it raised (thrown into the program)."""

    value: Any = None
    error: BaseException | None = None


def resume(program: Program[T], outcome: Outcome) -> Step | Finished[T]:
    """Run `program` to its next step, handing it `outcome`; `Finished` once it returns."""
    try:
        if outcome.error is not None:
            return program.throw(outcome.error)
        return program.send(outcome.value)
    except StopIteration as stop:
        return Finished(stop.value)


def path_segment(value: str) -> str:
    """An id as one path segment: a valid id is unchanged, a `/` or `?` cannot leave it."""
    return quote(value, safe=":@")


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Connection:
    """Where and as whom a client calls: the base URL, the local server's principals header and
    API key, the SigV4 signer for API Gateway, and the retry policy."""

    base_url: str
    principals: str | None = None
    api_key: str | None = None
    gateway_api_key: str | None = None
    signer: SigV4Signer | None = None
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))

    def prepare(self, call: ApiRequest) -> tuple[str, bytes | None, dict[str, str]]:
        """The URL, body bytes and (unsigned) headers of `call`."""
        url = self.base_url.rstrip("/") + call.path
        params = {k: _query_value(v) for k, v in (call.query or {}).items() if v is not None}
        if params:
            url += "?" + urlencode(params)
        content = json.dumps(call.body).encode("utf-8") if call.body is not None else None
        headers = {"content-type": "application/json", "accept": "application/json"}
        # Only `agentmem serve` reads this header (its stand-in for an authorizer); on AWS a
        # caller's principals come from its IAM identity (docs/access.md).
        if self.principals:
            headers["x-agentmem-principals"] = self.principals
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        if self.gateway_api_key:
            headers["x-api-key"] = self.gateway_api_key
        return url, content, headers

    def exchange(self, call: ApiRequest) -> Program[Any]:
        """Send `call` until it is answered, retrying as the policy says; its JSON, or the
        typed error of the last answer. Each attempt is signed afresh (a new X-Amz-Date)."""
        url, content, headers = self.prepare(call)
        attempt = 0
        while True:
            sent = headers
            if self.signer is not None:
                signer = self.signer
                frozen = (yield Blocking(signer.frozen)) if signer.may_block() else signer.frozen()
                sent = signer.sign(call.method, url, content, headers, frozen)
            request = httpx2.Request(call.method, url, content=content, headers=sent)
            try:
                response: httpx2.Response = yield request
            except httpx2.TransportError as exc:
                delay = self.policy.delay(attempt, status=None)
                if delay is None:
                    raise TransportFailed(
                        0, "transport_error", f"{call.method} {call.path}: {exc!r}", None
                    ) from exc
            else:
                if response.status_code < 400:
                    return json.loads(response.content) if response.content else None
                retry_after = parse_retry_after(response.headers.get("retry-after"), self.now())
                delay = self.policy.delay(attempt, status=response.status_code, retry_after=retry_after)
                if delay is None:
                    raise error_from_answer(response.status_code, response.content, retry_after)
            yield Pause(delay)
            attempt += 1

    def bind(self, program: Program[T]) -> Program[T]:
        """`program` with each of its `ApiRequest` steps carried out by `exchange`."""
        outcome = Outcome()
        while not isinstance(step := resume(program, outcome), Finished):
            try:
                if isinstance(step, ApiRequest):
                    outcome = Outcome(value=(yield from self.exchange(step)))
                else:
                    outcome = Outcome(value=(yield step))
            except Exception as exc:  # the program may handle it (a 404 is often an answer)
                outcome = Outcome(error=exc)
        return step.value
