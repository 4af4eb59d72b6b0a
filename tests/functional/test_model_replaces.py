"""The old value a model says a change replaced, through the projector (issue 12): it lands in the
belief's provenance (`Provenance.replaces`) under a declared key, so history can label an earlier
passage that says it even when no fact ever recorded it; an answer without it (an older server,
or null) gives the chain it gave before. Bedrock Converse from recorded answers, and an
OpenAI-compatible server from a scripted transport, on the same answers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentmem.adapters.aws.bedrock_llm import BedrockLLM
from agentmem.adapters.local.sqlite_belief_store import SqliteBeliefStore
from agentmem.adapters.local.sqlite_db import open_database
from agentmem.adapters.openai_compat.chat import OpenAICompatLLM
from agentmem.context.superseded import replaced_values
from agentmem.model.beliefs import FactType, Verdict
from agentmem.model.events import Event
from agentmem.ports.semantic import LLM, BeliefIndex
from agentmem.semantic.fact_types import FactTypeCatalog
from agentmem.semantic.projector import Projector
from tests.bedrock_fixtures import RecordedBedrock, RecordedConverse
from tests.functional.test_key_resolver import WordsEmbedder
from tests.openai_fixtures import FakeOpenAIServer, RecordedChat

DECLARED = [FactType(key="city", description="Where the subject lives.")]
LIVES = "Priya lives in Pune."
WINTERS = "The winters in Porto are mild, so Priya never packs a heavy coat."
FROM_PUNE = "Priya moved from Pune to Lisbon in March."
FROM_PORTO = "Priya moved from Porto to Lisbon in March."


def city(
    text: str, value: str, replaces: str | None = None, *, names_old_values: bool = True
) -> dict[str, Any]:
    """One fact as the open-keys answer carries it (the tenant allows undeclared keys, the default);
    without `replaces` at all as a server answering the older schema does."""
    fact = {"key": "city", "text": text, "value": value, "cardinality": "single", "description": ""}
    return {**fact, "replaces": replaces} if names_old_values else fact


def answers(*, names_old_values: bool) -> dict[str, Any]:
    def lisbon(old: str) -> dict[str, Any]:
        return {"facts": [city("Priya lives in Lisbon.", "Lisbon", old, names_old_values=names_old_values)]}

    return {
        f"<event>\n{LIVES}\n</event>": {"facts": [city(LIVES, "Pune", names_old_values=names_old_values)]},
        f"<event>\n{WINTERS}\n</event>": {"facts": []},  # states nothing about the subject's keys
        f"<event>\n{FROM_PUNE}\n</event>": lisbon("Pune"),
        f"<event>\n{FROM_PORTO}\n</event>": lisbon("Porto"),
        'New statement: value="Lisbon"': {"reason": "She moved.", "verdict": "UPDATE"},
    }


def bedrock(recorded: dict[str, Any]) -> LLM:
    return BedrockLLM(client=RecordedBedrock("bedrock-runtime", RecordedConverse(recorded)).client)


def openai_compatible(recorded: dict[str, Any]) -> LLM:
    return OpenAICompatLLM(
        "qwen2.5:7b-instruct", client=FakeOpenAIServer(chat=RecordedChat(recorded)).client()
    )


ADAPTERS: dict[str, Callable[[dict[str, Any]], LLM]] = {"bedrock": bedrock, "openai": openai_compatible}


@pytest.fixture
def index(tmp_path: Path) -> Iterator[BeliefIndex]:
    yield SqliteBeliefStore(open_database(tmp_path / "beliefs.db"), "t").active()


def said(n: int, text: str) -> Event:
    return Event(
        event_id=f"ev{n}", session_id=f"s{n}", seq=n, subject_id="priya", round=0, agent="user",
        kind="message", media_type="text/plain", content=text, created_at=f"2026-01-01T00:00:{n:02d}.000Z",
    )  # fmt: skip


def project(index: BeliefIndex, adapter: str, *texts: str, names_old_values: bool = True) -> None:
    llm = ADAPTERS[adapter](answers(names_old_values=names_old_values))
    projector = Projector(index, llm, WordsEmbedder(), FactTypeCatalog(DECLARED))
    for n, text in enumerate(texts, start=1):
        projector.project(said(n, text))


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_the_old_value_a_change_names_lands_in_the_beliefs_provenance(
    index: BeliefIndex, adapter: str
) -> None:
    project(index, adapter, LIVES, FROM_PUNE)
    (belief,) = index.current("priya", "city")
    assert (belief.value, belief.version, belief.verdict) == ("Lisbon", 2, Verdict.UPDATE)
    assert [(p.event_id, p.value, p.replaces) for p in belief.provenance] == [
        ("ev1", "Pune", None),
        ("ev2", "Lisbon", "Pune"),
    ]


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_an_old_value_no_fact_recorded_is_one_history_now_looks_for(index: BeliefIndex, adapter: str) -> None:
    # The winters were never a fact: only the change's own words say the city was Porto.
    project(index, adapter, WINTERS, FROM_PORTO)
    (belief,) = index.current("priya", "city")
    assert (belief.value, belief.version) == ("Lisbon", 1)
    assert [p.replaces for p in belief.provenance] == ["Porto"]
    assert [r.old.pattern for r in replaced_values([belief])] == [r"(?<![a-z0-9])porto(?![a-z0-9])"]


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_an_answer_without_old_values_gives_the_chain_it_gave_before(
    index: BeliefIndex, adapter: str
) -> None:
    project(index, adapter, WINTERS, FROM_PORTO, names_old_values=False)
    (belief,) = index.current("priya", "city")
    assert [(p.value, p.replaces) for p in belief.provenance] == [("Lisbon", None)]
    assert replaced_values([belief]) == []
    assert "replaces" not in belief.model_dump_json()  # stored exactly as before the field existed
