"""Open keys with a model extractor, through the projector: a key the model proposes is resolved
by the same key resolver as the local rules' proposals (`home_city` onto the subject's `city`,
recorded in the observation), a new key becomes a belief of its own, and a tenant that refuses
undeclared keys gets exactly the declared ones. Bedrock Converse from recorded answers, and an
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
from agentmem.model.beliefs import FactType
from agentmem.model.events import Event
from agentmem.ports.semantic import LLM, BeliefIndex
from agentmem.semantic.fact_types import FactTypeCatalog
from agentmem.semantic.projector import Projector
from tests.bedrock_fixtures import RecordedBedrock, RecordedConverse
from tests.functional.test_key_resolver import WordsEmbedder, observations
from tests.openai_fixtures import FakeOpenAIServer, RecordedChat

DECLARED = [FactType(key="city", description="Where the subject lives.")]
LIVES = "Priya lives in Pune."
HOME = "Priya's home city is Pune these days, and she codes mostly in Rust."


def proposed(
    key: str, value: str, text: str, cardinality: str = "single", description: str = ""
) -> dict[str, str]:
    return {"key": key, "text": text, "value": value, "cardinality": cardinality, "description": description}


RECORDED: dict[str, Any] = {
    f"<event>\n{LIVES}\n</event>": {"facts": [proposed("city", "Pune", "Priya lives in Pune.")]},
    f"<event>\n{HOME}\n</event>": {
        "facts": [
            proposed(
                "home_city", "Pune", "Priya's home city is Pune.", "single", "The city the subject lives in."
            ),
            proposed(
                "programming_language",
                "Rust",
                "Priya codes mostly in Rust.",
                "set",
                "A programming language the subject uses.",
            ),
        ]
    },
    "Proposed key: home_city": {"reason": "A home city is the city she lives in.", "key": "city"},
    "Proposed key: programming_language": {"reason": "No existing key holds languages.", "key": ""},
}


def bedrock() -> LLM:
    return BedrockLLM(client=RecordedBedrock("bedrock-runtime", RecordedConverse(RECORDED)).client)


def openai_compatible() -> LLM:
    return OpenAICompatLLM(
        "qwen2.5:7b-instruct", client=FakeOpenAIServer(chat=RecordedChat(RECORDED)).client()
    )


ADAPTERS: dict[str, Callable[[], LLM]] = {"bedrock": bedrock, "openai": openai_compatible}


@pytest.fixture
def index(tmp_path: Path) -> Iterator[BeliefIndex]:
    yield SqliteBeliefStore(open_database(tmp_path / "beliefs.db"), "t").active()


def said(n: int, text: str) -> Event:
    return Event(
        event_id=f"ev{n}", session_id="s1", seq=n, subject_id="priya", round=0, agent="user",
        kind="message", media_type="text/plain", content=text, created_at=f"2026-01-01T00:00:{n:02d}.000Z",
    )  # fmt: skip


def project(index: BeliefIndex, adapter: str, *, allow: bool) -> None:
    catalog = FactTypeCatalog(DECLARED, allow_undeclared=allow)
    projector = Projector(index, ADAPTERS[adapter](), WordsEmbedder(), catalog)
    projector.project(said(1, LIVES))
    projector.project(said(2, HOME))


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_a_proposed_key_meaning_an_existing_one_is_resolved_onto_it_and_recorded(
    index: BeliefIndex, adapter: str
) -> None:
    project(index, adapter, allow=True)
    (city,) = index.current("priya", "city")
    assert (city.value, city.version) == ("Pune", 1)  # the restatement is the same belief
    first, second = observations(index, "city")
    assert (first.proposed_key, first.key) == (None, "city")  # declared: nothing to resolve
    assert (second.proposed_key, second.key) == ("home_city", "city")
    assert second.key_reason == "A home city is the city she lives in."
    assert index.current("priya", "home_city") == []


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_a_new_key_becomes_a_belief_with_the_proposed_cardinality(index: BeliefIndex, adapter: str) -> None:
    project(index, adapter, allow=True)
    (language,) = index.current("priya", "programming_language")
    assert language.value == "Rust"
    assert language.member  # proposed as set-valued: stored as a member
    (obs,) = observations(index, "programming_language")
    assert obs.proposed_key == "programming_language"


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_a_tenant_refusing_undeclared_keys_gets_only_the_declared_ones(
    index: BeliefIndex, adapter: str
) -> None:
    project(index, adapter, allow=False)
    assert sorted(b.key for b in index.current("priya")) == ["city"]
    assert [o.event_id for o in observations(index, "city")] == ["ev1"]
