"""`AgentMemStore`: LangGraph's `BaseStore` over the agentmem clients."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchOp,
    validate_op_namespace,
)

from agentmem.client import AsyncMemoryClient, MemoryClient
from agentmem.client._program import Program
from agentmem.integrations.langgraph import _ops as ops
from agentmem.integrations.langgraph._pending import PendingWrites
from agentmem.model.context import ContextResponse

DEFAULT_SESSION = "langgraph-store"
DEFAULT_AGENT = "langgraph"


class AgentMemStore(BaseStore):
    """A LangGraph store whose items are beliefs in agentmem (docs/langgraph.md).

    `("maya", "preferences")` is subject `maya`, and an item in it one explicit fact about her:
    `put` appends an event stating it, `get` and `search` read her current beliefs (`search`
    with a query by meaning), and `delete` states that the item is gone, which keeps its
    history (erasing the subject is what forgets). Reads show this store's own writes at once,
    before the projector has applied them.

    `batch` needs `client`; `abatch` uses `async_client`, or runs `batch` on a worker thread
    when only `client` is given. Every event is appended to `session_id` as `agent`."""

    def __init__(
        self,
        client: MemoryClient | None = None,
        *,
        async_client: AsyncMemoryClient | None = None,
        session_id: str = DEFAULT_SESSION,
        agent: str = DEFAULT_AGENT,
        round: int = 0,
        read_your_writes_seconds: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        pending: PendingWrites | None = None,
    ) -> None:
        """`read_your_writes_seconds` is the longest a search (or a namespace listing) waits
        for the projector to apply this store's writes before it shows them from its own
        record. `clock` and `now` are for tests."""
        if client is None and async_client is None:
            raise ValueError("AgentMemStore needs a MemoryClient, an AsyncMemoryClient, or both")
        self._client = client
        self._async_client = async_client
        self._context = ops.StoreContext(
            session_id=session_id,
            agent=agent,
            round=round,
            pending=pending or PendingWrites(),
            read_your_writes_seconds=read_your_writes_seconds,
            clock=clock,
            now=now,
        )

    @classmethod
    def connect(cls, base_url: str, **options: Any) -> AgentMemStore:
        """A store over a new pair of clients for `base_url`, with the clients' options
        (`sigv4_region=...`, `local_principals=...`) and the store's own (`session_id=...`)."""
        store_options = {k: options.pop(k) for k in list(options) if k in _STORE_OPTIONS}
        return cls(MemoryClient(base_url, **options), async_client=AsyncMemoryClient(base_url, **options),
                   **store_options)  # fmt: skip

    def as_agent(self, agent: str) -> AgentMemStore:
        """The same store writing as another agent (the log keeps who said what), sharing the
        clients and what is pending, so each agent reads every agent's writes at once."""
        context = self._context
        return AgentMemStore(
            self._client, async_client=self._async_client, session_id=context.session_id, agent=agent,
            round=context.round, read_your_writes_seconds=context.read_your_writes_seconds,
            clock=context.clock, now=context.now, pending=context.pending,
        )  # fmt: skip

    def flush(self, subject: str) -> bool:
        """Wait (up to `read_your_writes_seconds`) until the projector has applied this store's
        writes about `subject`, so that every reader, not only this store, sees them; True
        when it has. A context read or another process reading right after a write wants this."""
        return self._sync_client().run(ops.flush(subject, self._context))

    async def aflush(self, subject: str) -> bool:
        if self._async_client is None:
            return await asyncio.to_thread(self.flush, subject)
        return await self._async_client.run(ops.flush(subject, self._context))

    def context(
        self,
        subject: str,
        query: str,
        *,
        budget_tokens: int | None = None,
        since: str | None = None,
        include: list[str] | None = None,
    ) -> ContextResponse:
        """The budgeted context read of `subject` for this store's agent in its session (what a
        node puts in its prompt). `since`, an earlier read's `trace.watermark`, leads it with what
        changed after that read, so a node that re-reads each step can take a smaller budget."""
        return self._sync_client().context(
            subject_id=subject, session_id=self._context.session_id, agent=self._context.agent,
            query=query, budget_tokens=budget_tokens, since=since, include=include,
        )  # fmt: skip

    async def acontext(
        self,
        subject: str,
        query: str,
        *,
        budget_tokens: int | None = None,
        since: str | None = None,
        include: list[str] | None = None,
    ) -> ContextResponse:
        if self._async_client is None:
            return await asyncio.to_thread(
                self.context, subject, query, budget_tokens=budget_tokens, since=since, include=include
            )
        return await self._async_client.context(
            subject_id=subject, session_id=self._context.session_id, agent=self._context.agent,
            query=query, budget_tokens=budget_tokens, since=since, include=include,
        )  # fmt: skip

    def batch(self, ops_: Iterable[Op]) -> list[Result]:
        return self._sync_client().run(self._program(list(ops_)))

    async def abatch(self, ops_: Iterable[Op]) -> list[Result]:
        listed = list(ops_)
        if self._async_client is None:
            return await asyncio.to_thread(self.batch, listed)
        return await self._async_client.run(self._program(listed))

    def _sync_client(self) -> MemoryClient:
        if self._client is None:
            raise TypeError("this AgentMemStore has only an AsyncMemoryClient: use the async methods")
        return self._client

    def _program(self, listed: list[Op]) -> Program[list[Result]]:
        """Every op in order, so a read later in the batch sees a write earlier in it."""
        results: list[Result] = []
        for op in listed:
            validate_op_namespace(op)
            results.append((yield from self._one(op)))
        return results

    def _one(self, op: Op) -> Program[Result]:
        if isinstance(op, GetOp):
            return (yield from ops.get(op, self._context))
        if isinstance(op, SearchOp):
            return (yield from ops.search(op, self._context))
        if isinstance(op, PutOp):
            yield from ops.put(op, self._context)
            return None
        if isinstance(op, ListNamespacesOp):
            return (yield from ops.list_namespaces(op, self._context))
        raise TypeError(f"unknown store operation: {op!r}")


_STORE_OPTIONS = {"session_id", "agent", "round", "read_your_writes_seconds", "clock", "now", "pending"}
