"""The search gate's bookkeeping: per session, opened exactly once, bounded in memory."""

from __future__ import annotations

from types import SimpleNamespace

from agentmem.entrypoints.mcp_server.gate import STDIO_SESSION, SearchGate, session_key

SEARCHES = ("search_functions", "search_guidance")


def test_the_gate_opens_once_both_searches_ran_in_that_session() -> None:
    gate = SearchGate(SEARCHES, enabled=True)
    assert gate.missing("a") == list(SEARCHES)
    assert gate.record("a", "search_guidance") is False
    assert gate.missing("a") == ["search_functions"] and gate.missing("b") == list(SEARCHES)
    assert gate.record("a", "memory_context") is False  # not a search: changes nothing
    assert gate.record("a", "search_functions") is True
    assert gate.is_open("a") and gate.record("a", "search_functions") is False  # announced once


def test_a_disabled_gate_or_one_with_nothing_to_search_is_open() -> None:
    assert SearchGate(SEARCHES, enabled=False).is_open("a")
    assert SearchGate((), enabled=True).is_open("a")


def test_the_least_recently_used_sessions_are_forgotten_past_the_bound() -> None:
    gate = SearchGate(SEARCHES, enabled=True, max_sessions=2)
    for session in ("a", "b"):
        gate.record(session, "search_functions")
    gate.missing("a")  # a read keeps "a" recent
    gate.record("c", "search_functions")
    assert gate.missing("a") == ["search_guidance"] and gate.missing("c") == ["search_guidance"]
    assert gate.missing("b") == list(SEARCHES)  # forgotten: it must search again


def test_a_session_is_the_connection_the_http_session_or_else_the_caller() -> None:
    def request(**headers: str) -> SimpleNamespace:
        return SimpleNamespace(headers=headers)

    assert session_key(None, "writer:x") == STDIO_SESSION
    assert session_key(request(**{"mcp-session-id": "abc"}), "writer:x") == "session:abc"
    assert session_key(request(), "writer:x") == "caller:writer:x"
