"""Both clients over a scripted `httpx2.MockTransport`: what they sent, and how long they slept."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx2

from agentmem.client import AsyncMemoryClient, MemoryClient
from agentmem.client._program import Program

Answer = httpx2.Response | Exception


@dataclass
class Script:
    """Answers given in turn, one per request; the last one repeats."""

    answers: list[Answer]
    requests: list[httpx2.Request] = field(default_factory=list)
    slept: list[float] = field(default_factory=list)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        answer = self.answers[min(len(self.requests) - 1, len(self.answers) - 1)]
        if isinstance(answer, Exception):
            raise answer
        # A fresh response each time: a response's stream is read once, by one client.
        return httpx2.Response(answer.status_code, headers=answer.headers, content=answer.content)

    def bodies(self) -> list[Any]:
        return [json.loads(r.content) if r.content else None for r in self.requests]


def answer(status: int, body: Any = None, headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.Response(status, json=body, headers=headers)


def error(status: int, code: str, field: str | None = None, headers: dict[str, str] | None = None) -> Any:
    return answer(status, {"error": {"code": code, "message": f"{code} here", "field": field}}, headers)


def run_sync(script: Script, program: Callable[[], Program[Any]], **options: Any) -> Any:
    with MemoryClient(
        "http://memory.test",
        transport=httpx2.MockTransport(script.handle),
        sleep=script.slept.append,
        **options,
    ) as client:
        return client.run(program())


def run_async(script: Script, program: Callable[[], Program[Any]], **options: Any) -> Any:
    async def sleep(seconds: float) -> None:
        script.slept.append(seconds)

    async def main() -> Any:
        transport = httpx2.MockTransport(script.handle)
        async with AsyncMemoryClient(
            "http://memory.test", transport=transport, sleep=sleep, **options
        ) as client:
            return await client.run(program())

    return asyncio.run(main())


RUNNERS = {"sync": run_sync, "async": run_async}


def both(answers: Iterable[Answer], program: Callable[[], Program[Any]], **options: Any) -> dict[str, Any]:
    """Run `program` on each client against the same script; per client its script and its
    result (or the exception it raised)."""
    outcomes: dict[str, Any] = {}
    for name, runner in RUNNERS.items():
        script = Script(list(answers))
        try:
            result: Any = runner(script, program, **options)
        except Exception as exc:
            result = exc
        outcomes[name] = (script, result)
    return outcomes
