"""`AsyncMemoryClient`: the asyncio client, on `httpx2.AsyncClient`. Same methods, same types
and same retries as `MemoryClient`: both run the same programs (see `_program`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Concatenate

import httpx2
from typing_extensions import Unpack

from agentmem.client import _memory_calls as memory
from agentmem.client import _skill_calls as skills
from agentmem.client._options import ClientOptions, as_method, connection_from, http_settings
from agentmem.client._program import Blocking, Finished, Outcome, P, Pause, Program, Step, T, resume


def _async(build: Callable[P, Program[T]]) -> Callable[Concatenate[AsyncMemoryClient, P], Awaitable[T]]:
    """The coroutine method that runs the program `build` makes and returns what it returns."""

    async def method(self: AsyncMemoryClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self.run(build(*args, **kwargs))

    as_method(build, method)
    return method


class AsyncMemoryClient:
    """The asyncio twin of `MemoryClient`; every method is a coroutine. Use one per event
    loop, and `await client.aclose()` (or `async with`) when done. See docs/sdk.md."""

    def __init__(
        self,
        base_url: str,
        *,
        transport: httpx2.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        **options: Unpack[ClientOptions],
    ) -> None:
        """`transport` replaces the network (tests pass `httpx2.MockTransport`); `sleep` is
        how retries wait."""
        self.connection = connection_from(base_url, options)
        self.base_url = self.connection.base_url
        self._sleep = sleep
        self._http = httpx2.AsyncClient(transport=transport, **http_settings(options))

    async def run(self, program: Program[T]) -> T:
        """Carry out a program of API calls (the methods below are each one)."""
        bound = self.connection.bind(program)
        outcome = Outcome()
        while not isinstance(step := resume(bound, outcome), Finished):
            try:
                outcome = Outcome(value=await self._perform(step))
            except Exception as exc:
                outcome = Outcome(error=exc)
        return step.value

    async def _perform(self, step: Step) -> Any:
        if isinstance(step, httpx2.Request):
            return await self._http.send(step)
        if isinstance(step, Pause):
            return await self._sleep(step.seconds)
        if isinstance(step, Blocking):
            # A credential resolution or refresh may call STS or the metadata endpoint.
            return await asyncio.to_thread(step.call)
        raise TypeError(f"not a step the client performs: {step!r}")

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncMemoryClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    request = _async(memory.request)
    append_event = _async(memory.append_event)
    list_events = _async(memory.list_events)
    context = _async(memory.context)
    beliefs = _async(memory.beliefs)
    belief = _async(memory.belief)
    belief_history = _async(memory.belief_history)
    search_beliefs = _async(memory.search_beliefs)
    erase_subject = _async(memory.erase_subject)
    erasure = _async(memory.erasure)
    health = _async(memory.health)
    put_function = _async(skills.put_function)
    put_guidance = _async(skills.put_guidance)
    approve_function = _async(skills.approve_function)
    approve_guidance = _async(skills.approve_guidance)
    search_skills = _async(skills.search_skills)
    review_session = _async(skills.review_session)
    put_assets = _async(skills.put_assets)
    put_skill = _async(skills.put_skill)
    compose = _async(skills.compose)
