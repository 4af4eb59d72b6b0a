"""Compulsory search: a session sees and may call only the skill searches until it has run each one
it was asked for successfully; then its tool list grows and the client is told
(`notifications/tools/list_changed`).

Which searches a session is asked for is fixed when the gate first meets it, from the libraries
as they stand then: the search of each library holding an approved entry. Searching a library
with nothing to find teaches an agent nothing, so with both libraries empty a session is asked
for nothing and every tool is listed from its first `tools/list`: a memory-only host, which may
cache that list, still sees the memory tools. Fixing the ask per session keeps its list stable:
skills approved later gate the sessions that start after them, and never take tools away from
one already running. A tenant turns the gate off with AGENTMEM_MCP_SEARCH_GATE=off (`agentmem
mcp --no-gate` for one server).

The gate's state is per MCP session, and what a session is depends on the transport:
- stdio and in-process: the connection. The server's lifespan is entered once per connection
  there, so each connection has its own `SearchGate`, under one key.
- streamable HTTP, handshake era (up to 2025-11-25): the `Mcp-Session-Id` the server minted.
- streamable HTTP, 2026-07-28: the protocol has no session (every request stands alone), so the
  gate is kept per caller identity instead, for as long as this process runs (docs/mcp.md).
State lives in this process's memory, bounded: the least recently used sessions are forgotten
past `max_sessions` (a forgotten session is met again, and must search again)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class _Progress:
    asked: tuple[str, ...]
    done: frozenset[str] = frozenset()

    def missing(self) -> list[str]:
        return [name for name in self.asked if name not in self.done]


class SearchGate:
    """Per session: the searches it was asked for (`start`) and those it has run (`record`)."""

    def __init__(self, *, enabled: bool, max_sessions: int = MAX_SESSIONS) -> None:
        self.enabled = enabled
        self._max = max_sessions
        self._sessions: OrderedDict[str, _Progress] = OrderedDict()

    def meets(self, session: str) -> bool:
        """True when the gate does not know `session` yet: `start` must fix its searches first."""
        return self.enabled and session not in self._sessions

    def start(self, session: str, asked: Iterable[str]) -> None:
        """Fix the searches `session` must run. A session already started keeps its own: two
        first requests of one session may race, and the second must not undo the first's search."""
        if not self.enabled or session in self._sessions:
            return
        self._store(session, _Progress(tuple(asked)))

    def missing(self, session: str) -> list[str]:
        """The searches `session` has still to run, in the order it was asked for them; none for
        a session never started (the server starts each before asking)."""
        progress = self._sessions.get(session) if self.enabled else None
        if progress is None:
            return []
        self._sessions.move_to_end(session)
        return progress.missing()

    def is_open(self, session: str) -> bool:
        return not self.missing(session)

    def record(self, session: str, tool: str) -> bool:
        """Note a successful call of `tool`; True exactly when this call opened the gate."""
        progress = self._sessions.get(session) if self.enabled else None
        if progress is None or tool not in progress.asked or not progress.missing():
            return False
        progress = _Progress(progress.asked, progress.done | {tool})
        self._store(session, progress)
        return not progress.missing()

    def _store(self, session: str, progress: _Progress) -> None:
        self._sessions[session] = progress
        self._sessions.move_to_end(session)
        while len(self._sessions) > self._max:
            self._sessions.popitem(last=False)
