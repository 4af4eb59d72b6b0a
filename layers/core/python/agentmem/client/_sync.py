"""`MemoryClient`: the blocking client, on `httpx2.Client`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Concatenate

import httpx2
from typing_extensions import Unpack

from agentmem.client import _memory_calls as memory
from agentmem.client import _skill_calls as skills
from agentmem.client._options import ClientOptions, as_method, connection_from, http_settings
from agentmem.client._program import Blocking, Finished, Outcome, P, Pause, Program, Step, T, resume


def _sync(build: Callable[P, Program[T]]) -> Callable[Concatenate[MemoryClient, P], T]:
    """The client method that runs the program `build` makes and returns what it returns."""

    def method(self: MemoryClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.run(build(*args, **kwargs))

    as_method(build, method)
    return method


class MemoryClient:
    """A typed client for the agentmem HTTP API: `agentmem serve`, or API Gateway signed with
    SigV4. Safe to share between threads. See docs/sdk.md."""

    def __init__(
        self,
        base_url: str,
        *,
        transport: httpx2.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        **options: Unpack[ClientOptions],
    ) -> None:
        """`transport` replaces the network (tests pass `httpx2.MockTransport`); `sleep` is
        how retries wait."""
        self.connection = connection_from(base_url, options)
        self.base_url = self.connection.base_url
        self._sleep = sleep
        self._http = httpx2.Client(transport=transport, **http_settings(options))

    def run(self, program: Program[T]) -> T:
        """Carry out a program of API calls (the methods below are each one)."""
        bound = self.connection.bind(program)
        outcome = Outcome()
        while not isinstance(step := resume(bound, outcome), Finished):
            try:
                outcome = Outcome(value=self._perform(step))
            except Exception as exc:
                outcome = Outcome(error=exc)
        return step.value

    def _perform(self, step: Step) -> Any:
        if isinstance(step, httpx2.Request):
            return self._http.send(step)
        if isinstance(step, Pause):
            return self._sleep(step.seconds)
        if isinstance(step, Blocking):
            return step.call()
        raise TypeError(f"not a step the client performs: {step!r}")

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    request = _sync(memory.request)
    append_event = _sync(memory.append_event)
    list_events = _sync(memory.list_events)
    context = _sync(memory.context)
    beliefs = _sync(memory.beliefs)
    belief = _sync(memory.belief)
    belief_history = _sync(memory.belief_history)
    search_beliefs = _sync(memory.search_beliefs)
    erase_subject = _sync(memory.erase_subject)
    erasure = _sync(memory.erasure)
    health = _sync(memory.health)
    put_function = _sync(skills.put_function)
    put_guidance = _sync(skills.put_guidance)
    approve_function = _sync(skills.approve_function)
    approve_guidance = _sync(skills.approve_guidance)
    search_skills = _sync(skills.search_skills)
    review_session = _sync(skills.review_session)
    put_assets = _sync(skills.put_assets)
    put_skill = _sync(skills.put_skill)
    compose = _sync(skills.compose)
