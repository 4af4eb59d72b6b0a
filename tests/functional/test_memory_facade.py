"""`agentmem.Memory`: the embedded default in process, over the same services and projector worker
as `agentmem serve` (docs/library.md)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from pydantic import ValidationError

import agentmem
from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.memory import Memory, MemoryClosedError, ProjectionTimeoutError
from agentmem.model.beliefs import FactInput, FactType
from agentmem.model.context import ContextResponse
from agentmem.model.events import Event
from agentmem.settings import Settings


class HeldLLM(RulesLLM):
    """The local rules, but extraction waits until the test lets it go: a projector that is
    behind the log, for as long as a test needs."""

    def __init__(self) -> None:
        self.released = threading.Event()

    def extract_facts(
        self, event: Event, fact_types: Sequence[FactType], *, allow_undeclared: bool = False
    ) -> list[FactInput]:
        self.released.wait(timeout=30)
        return super().extract_facts(event, fact_types, allow_undeclared=allow_undeclared)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    with Memory(tmp_path / "memory", subject="maya", settings=Settings()) as opened:
        yield opened


def test_agentmem_memory_is_the_facade() -> None:
    assert agentmem.Memory is Memory


def test_an_append_with_only_content_takes_the_defaults(memory: Memory) -> None:
    event = memory.append("Maya lives in Lisbon.")
    assert (event.subject_id, event.agent, event.kind, event.round) == ("maya", "agent", "message", 0)
    assert event.session_id == memory.session
    assert (event.seq, event.media_type) == (1, "text/plain")


def test_each_memory_opens_a_new_session_unless_given_one(tmp_path: Path) -> None:
    with Memory(tmp_path, settings=Settings()) as first, Memory(tmp_path, settings=Settings()) as second:
        assert first.session != second.session
        assert re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{8}", first.session)
        assert first.subject == "user"
    with Memory(tmp_path, session="chat-1", settings=Settings()) as named:
        assert named.append({"note": "x"}).session_id == "chat-1"


def test_round_defaults_to_the_round_of_the_sessions_last_event(memory: Memory) -> None:
    assert memory.append("first").round == 0
    assert memory.append("a later turn", round=3).round == 3
    assert memory.append("the same turn, another agent", agent="planner").round == 3


def test_ids_are_checked_when_the_memory_opens(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        Memory(tmp_path, subject="not an id", settings=Settings())
    with pytest.raises(ValidationError):
        Memory(tmp_path, tenant="a/b", settings=Settings())


def test_flush_waits_for_the_projector_and_times_out_while_it_is_behind(tmp_path: Path) -> None:
    llm = HeldLLM()
    with Memory(tmp_path, subject="maya", settings=Settings(), ports={"llm": llm}) as memory:
        try:
            memory.append("Maya lives in Lisbon.")
            with pytest.raises(ProjectionTimeoutError, match="log position 0 of 1"):
                memory.flush(timeout=0.3)
            assert memory.beliefs() == []  # still behind: nothing projected yet
            llm.released.set()
            memory.flush()
            assert [(b.key, b.value) for b in memory.beliefs()] == [("city", "Lisbon")]
        finally:
            llm.released.set()


def test_beliefs_history_search_and_context_read_what_was_appended(memory: Memory) -> None:
    memory.append("Maya lives in Lisbon.")
    memory.append("I live in Porto.", agent="user")
    memory.flush()
    assert [(b.key, b.value, b.version) for b in memory.beliefs()] == [("city", "Porto", 2)]
    assert [b.value for b in memory.history("city")] == ["Lisbon", "Porto"]
    assert [hit.belief.value for hit in memory.search("Where is her home?", k=1)] == ["Porto"]
    read = memory.context("Where does Maya live?", budget_tokens=300)
    assert isinstance(read, ContextResponse)
    assert "Porto" in read.markdown and read.trace.used_tokens <= 300


def test_explicit_facts_skip_extraction(memory: Memory) -> None:
    memory.append(
        {"form": "intake"}, kind="form", facts=[FactInput(key="income", text="Maya earns 4,000 a month.")]
    )
    memory.flush()
    assert [b.text for b in memory.beliefs()] == ["Maya earns 4,000 a month."]


def test_a_new_memory_on_the_folder_reads_earlier_sessions_as_history(tmp_path: Path) -> None:
    with Memory(tmp_path, subject="maya", settings=Settings()) as first:
        first.append("We talked through the renovation of the kitchen and the budget for tiles.")
        first.flush()  # the passage and its vector, not only the log
    with Memory(tmp_path, subject="maya", settings=Settings()) as later:
        read = later.context("What did we say about the kitchen tiles?", budget_tokens=500)
        assert [item.source for item in read.items] == ["history"]
        assert "kitchen" in read.markdown
        assert later.events() == []  # its own session is new and empty
        assert [e.content for e in later.events(session=first.session)] == [
            "We talked through the renovation of the kitchen and the budget for tiles."
        ]


def test_a_closed_memory_stops_its_worker_and_refuses_calls(tmp_path: Path) -> None:
    memory = Memory(tmp_path, settings=Settings())
    thread = memory._worker._thread  # type: ignore[union-attr]
    assert thread.is_alive()
    memory.close()
    assert not thread.is_alive()
    with pytest.raises(MemoryClosedError):
        memory.append("too late")
    memory.close()  # closing twice is harmless
