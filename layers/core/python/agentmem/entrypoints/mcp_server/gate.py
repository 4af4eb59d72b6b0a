"""Compulsory search: a session sees and may call only the two skill searches until it has run
both successfully; then its tool list grows and the client is told (`notifications/tools/
list_changed`). A tenant turns this off with AGENTMEM_MCP_SEARCH_GATE=false.

The gate's state is per MCP session, and what a session is depends on the transport:
- stdio and in-process: the connection. The server's lifespan is entered once per connection
  there, so each connection has its own `SearchGate`, under one key.
- streamable HTTP, handshake era (up to 2025-11-25): the `Mcp-Session-Id` the server minted.
- streamable HTTP, 2026-07-28: the protocol has no session (every request stands alone), so the
  gate is kept per caller identity instead, for as long as this process runs (docs/mcp.md).
State lives in this process's memory, bounded: the least recently used sessions are forgotten
past `max_sessions` (a forgotten session must search again)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

STDIO_SESSION = "connection"
SESSION_HEADER = "mcp-session-id"
MAX_SESSIONS = 10_000


def session_key(request: Any, caller_key: str) -> str:
    """The gate's key for a request: `request` is the transport's HTTP request, or None on
    stdio and in-process connections (whose lifespan, and so gate, is theirs alone)."""
    if request is None:
        return STDIO_SESSION
    session_id = request.headers.get(SESSION_HEADER)
    if session_id:
        return f"session:{session_id}"
    return f"caller:{caller_key}"


class SearchGate:
    def __init__(self, searches: Iterable[str], *, enabled: bool, max_sessions: int = MAX_SESSIONS) -> None:
        self.searches = tuple(searches)
        self.enabled = enabled and bool(self.searches)
        self._max = max_sessions
        self._done: OrderedDict[str, frozenset[str]] = OrderedDict()

    def missing(self, session: str) -> list[str]:
        """The searches `session` has still to run, in the order the gate names them."""
        if not self.enabled:
            return []
        done = self._done.get(session, frozenset())
        if session in self._done:
            self._done.move_to_end(session)
        return [name for name in self.searches if name not in done]

    def is_open(self, session: str) -> bool:
        return not self.missing(session)

    def record(self, session: str, tool: str) -> bool:
        """Note a successful call of `tool`; True exactly when this call opened the gate."""
        if not self.enabled or tool not in self.searches:
            return False
        before = self.missing(session)
        if not before:
            return False
        self._done[session] = self._done.get(session, frozenset()) | {tool}
        self._done.move_to_end(session)
        while len(self._done) > self._max:
            self._done.popitem(last=False)
        return not self.missing(session)
