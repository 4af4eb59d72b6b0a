"""The synchronous resolver, run off the event loop in bounded thread pools.

The resolver (Powertools, SQLite, the embedder) blocks, so each request runs in a worker thread.
Threads are bounded per lane, and a request waits for one only so long: past that it is answered
503 with Retry-After instead of queueing without end. `/v1/health` has a lane of its own, so a
pile of slow context reads never makes the liveness probe time out."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any, Literal

import anyio
import anyio.to_thread
from aws_lambda_powertools.event_handler import APIGatewayRestResolver

from agentmem.entrypoints.server.proxy_event import LocalContext

Lane = Literal["api", "health"]


class ResolverPool:
    """Powertools resolvers keep per-request state on the instance, so one must never serve two
    requests at once. A small pool gives each in-flight request its own."""

    def __init__(self, factory: Callable[[], APIGatewayRestResolver], size: int) -> None:
        self._idle: queue.LifoQueue[APIGatewayRestResolver] = queue.LifoQueue()
        self._factory = factory
        self._slots = threading.BoundedSemaphore(size)

    def resolve(self, event: dict[str, Any]) -> dict[str, Any]:
        with self._slots:
            try:
                app = self._idle.get_nowait()
            except queue.Empty:
                app = self._factory()
            try:
                return app.resolve(event, LocalContext())  # type: ignore[arg-type]
            finally:
                self._idle.put(app)


class ServerBusyError(Exception):
    """No worker thread came free within the queue timeout."""

    def __init__(self, waited_seconds: float) -> None:
        super().__init__(f"no worker was free within {waited_seconds:g} s")
        self.waited_seconds = waited_seconds


class WorkerLanes:
    """`api_workers` threads for the API, `health_workers` more for `/v1/health`."""

    def __init__(
        self,
        factory: Callable[[], APIGatewayRestResolver],
        *,
        api_workers: int,
        health_workers: int,
        queue_timeout_seconds: float,
    ) -> None:
        self._pool = ResolverPool(factory, api_workers + health_workers)
        self._queue_timeout = queue_timeout_seconds
        sizes: dict[Lane, int] = {"api": api_workers, "health": health_workers}
        # Admission is a semaphore of the lane's size; the thread limiter behind it, of the same
        # size, then never blocks. Two objects because an anyio CapacityLimiter cannot be taken
        # with a timeout and then handed to to_thread by the same task.
        self._admission = {lane: anyio.Semaphore(n) for lane, n in sizes.items()}
        self._threads = {lane: anyio.CapacityLimiter(n) for lane, n in sizes.items()}

    async def resolve(self, event: dict[str, Any], lane: Lane) -> dict[str, Any]:
        admission = self._admission[lane]
        try:
            with anyio.fail_after(self._queue_timeout):
                await admission.acquire()
        except TimeoutError:
            raise ServerBusyError(self._queue_timeout) from None
        try:
            # Not abandoned on cancel: a request whose client hung up still finishes its write,
            # so nothing is half done; only its answer is dropped.
            return await anyio.to_thread.run_sync(self._pool.resolve, event, limiter=self._threads[lane])
        finally:
            admission.release()
