"""The search gate's bookkeeping: per session, asked for the searches of the libraries with entries
when first met, opened exactly once, bounded in memory."""

from __future__ import annotations

from types import SimpleNamespace

from agentmem.entrypoints.mcp_server.gate import STDIO_SESSION, SearchGate, session_key
from agentmem.entrypoints.mcp_server.tools import searches_of

SEARCHES = ("search_functions", "search_guidance")


def started(*sessions: str, asked: tuple[str, ...] = SEARCHES, **options: int) -> SearchGate:
    gate = SearchGate(enabled=True, **options)
    for session in sessions:
        assert gate.meets(session)
        gate.start(session, asked)
    return gate


def test_the_gate_opens_once_both_searches_ran_in_that_session() -> None:
    gate = started("a", "b")
    assert gate.missing("a") == list(SEARCHES)
    assert gate.record("a", "search_guidance") is False
    assert gate.missing("a") == ["search_functions"] and gate.missing("b") == list(SEARCHES)
    assert gate.record("a", "memory_context") is False  # not a search: changes nothing
    assert gate.record("a", "search_functions") is True
    assert gate.is_open("a") and gate.record("a", "search_functions") is False  # announced once


def test_a_session_asked_for_one_library_opens_on_that_search_alone() -> None:
    gate = started("a", asked=("search_functions",))
    assert gate.record("a", "search_guidance") is False and gate.missing("a") == ["search_functions"]
    assert gate.record("a", "search_functions") is True


def test_a_session_asked_for_nothing_is_open_from_the_start_and_never_announces() -> None:
    gate = started("a", asked=())
    assert gate.is_open("a") and not gate.meets("a")
    assert gate.record("a", "search_functions") is False


def test_a_second_start_of_a_session_keeps_its_ask_and_progress() -> None:
    # Two first requests of one session race: the later start must not undo the earlier search.
    gate = started("a")
    gate.record("a", "search_functions")
    gate.start("a", ())
    assert gate.missing("a") == ["search_guidance"]


def test_a_disabled_gate_meets_no_session_and_is_open() -> None:
    gate = SearchGate(enabled=False)
    assert not gate.meets("a")
    gate.start("a", SEARCHES)
    assert gate.is_open("a") and gate.record("a", "search_functions") is False


def test_the_least_recently_used_sessions_are_forgotten_past_the_bound() -> None:
    gate = started("a", "b", max_sessions=2)
    for session in ("a", "b"):
        gate.record(session, "search_functions")
    gate.missing("a")  # a read keeps "a" recent
    gate.start("c", SEARCHES)
    gate.record("c", "search_functions")
    assert gate.missing("a") == ["search_guidance"] and gate.missing("c") == ["search_guidance"]
    assert gate.meets("b")  # forgotten: met again, it must search again


def test_the_ask_is_the_search_of_each_library_with_entries() -> None:
    assert searches_of(frozenset({"function", "guidance"})) == SEARCHES
    assert searches_of(frozenset({"guidance"})) == ("search_guidance",)
    assert searches_of(frozenset()) == ()


def test_a_session_is_the_connection_the_http_session_or_else_the_caller() -> None:
    def request(**headers: str) -> SimpleNamespace:
        return SimpleNamespace(headers=headers)

    assert session_key(None, "writer:x") == STDIO_SESSION
    assert session_key(request(**{"mcp-session-id": "abc"}), "writer:x") == "session:abc"
    assert session_key(request(), "writer:x") == "caller:writer:x"
