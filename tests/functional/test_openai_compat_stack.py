"""The embedded stack with `AGENTMEM_LLM=openai` and `AGENTMEM_EMBEDDER=openai`, wired by bootstrap
from Settings as `agentmem serve` wires it, on a scripted OpenAI-compatible server: the real SDK
client, only its transport replaced (tests/openai_fixtures.py). The scripted model answers like a
small local one, and its embeddings are MiniLM's, so a question in other words finds the belief
by meaning through the adapter. Plain prose in, a belief out; a move, an UPDATE; a context read in
a later session shows the current value, and labels a passage that says the old value a change
named. And switching embedders over an existing index fails
with an error naming the settings until `agentmem replay` rebuilds it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder
from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.adapters.local.vector_size import VectorSizeError
from agentmem.adapters.openai_compat import factory
from agentmem.adapters.openai_compat.chat import OpenAICompatLLM
from agentmem.adapters.openai_compat.embedder import OpenAICompatEmbedder
from agentmem.entrypoints import cli
from agentmem.model.beliefs import FactInput, Verdict
from agentmem.model.context import ContextRequest
from agentmem.model.events import AppendEventRequest
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.openai_fixtures import BASE_URL, FakeOpenAIServer, RecordedChat

pytestmark = pytest.mark.xdist_group("minilm")

FIRST = "Priya told me on the call that she lives in Pune and works remotely."
MOVED = "Quick update from Priya: she has relocated to Lisbon for good."


WINTERS = "Priya says the winters in Porto are mild, so she never packs a heavy coat."
FROM_PORTO = "Priya has moved from Porto to Lisbon for good."


def fact(value: str, replaces: str | None = None) -> dict[str, object]:
    # The tenant allows undeclared keys (the default), so the answer has the open-keys fields.
    city = {"key": "city", "text": f"Priya lives in {value}.", "value": value, "replaces": replaces}
    return {"facts": [{**city, "cardinality": "single", "description": ""}]}


# What a small instruct model answers for these prompts (the prompts are the shared ones).
RECORDED = {
    f"<event>\n{FIRST}\n</event>": fact("Pune"),
    f"<event>\n{MOVED}\n</event>": fact("Lisbon"),
    f"<event>\n{WINTERS}\n</event>": {"facts": []},  # nothing under a key: the winters are no fact
    f"<event>\n{FROM_PORTO}\n</event>": fact("Lisbon", replaces="Porto"),
    'New statement: value="Lisbon"': {"reason": "She moved; the city is replaced.", "verdict": "UPDATE"},
}


@pytest.fixture(scope="module")
def minilm() -> MiniLmEmbedder:
    embedder = MiniLmEmbedder()
    embedder.load()
    return embedder


@pytest.fixture
def server(minilm: MiniLmEmbedder) -> FakeOpenAIServer:
    return FakeOpenAIServer(chat=RecordedChat(RECORDED), embed=minilm.embed)


@pytest.fixture
def services(tmp_path: Path, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[Services]:
    # The factory builds its clients with the scripted transport; everything else is as wired.
    monkeypatch.setattr(factory, "client", lambda base_url, api_key, timeout: server.client())
    factory.openai_llm.cache_clear()
    environ = {
        "AGENTMEM_DATA_DIR": str(tmp_path / "data"),
        "AGENTMEM_LLM": "openai",
        "AGENTMEM_LLM_BASE_URL": BASE_URL,
        "AGENTMEM_LLM_MODEL": "qwen2.5:7b-instruct",
        "AGENTMEM_EMBEDDER": "openai",
        "AGENTMEM_EMBEDDER_MODEL": "all-minilm",
        "AGENTMEM_EMBEDDER_DIMENSIONS": "384",
    }
    yield bootstrap(Settings.from_env(environ))
    factory.openai_llm.cache_clear()


def say(services: Services, session: str, text: str) -> None:
    request = AppendEventRequest(subject_id="priya", round=0, agent="advisor", kind="note", content=text)
    services.episodic.append(session, request)
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    ProjectorWorker(
        log, services.semantic, SqliteCheckpoints(log.database, services.settings.tenant_id)
    ).run_once()


def test_prose_becomes_a_belief_and_a_move_updates_it_through_the_openai_compatible_adapters(
    services: Services, server: FakeOpenAIServer
) -> None:
    assert isinstance(services.semantic.llm, OpenAICompatLLM)
    assert isinstance(services.semantic.embedder, OpenAICompatEmbedder)
    say(services, "priya-s1", FIRST)
    (belief,) = [b for b in services.semantic.current("priya") if b.key == "city"]
    assert (belief.value, belief.version) == ("Pune", 1)

    say(services, "priya-s2", MOVED)
    (belief,) = [b for b in services.semantic.current("priya") if b.key == "city"]
    assert (belief.value, belief.version, belief.verdict, belief.flag) == ("Lisbon", 2, Verdict.UPDATE, False)
    (hit, *_) = services.semantic.search("priya", "which town is her home these days?", k=3)
    assert hit.belief.key == "city"

    chat = [r for r in server.requests if "messages" in r]
    assert chat and all(r["temperature"] == 0 and "response_format" in r for r in chat)
    assert any("input" in r for r in server.requests)  # the embeddings went to the server too


def test_a_later_sessions_context_read_shows_the_current_belief(services: Services) -> None:
    say(services, "priya-s1", FIRST)
    say(services, "priya-s2", MOVED)
    request = ContextRequest(
        subject_id="priya",
        session_id="priya-s3",
        agent="advisor",
        query="Where does Priya live now?",
        include=["semantic"],  # beliefs only: what extraction through the adapter produced
    )
    document = services.context.build(request).markdown
    assert "Priya lives in Lisbon." in document
    assert "Pune" not in document


def test_history_labels_an_old_value_only_the_models_answer_named(services: Services) -> None:
    # Issue 12: no fact ever said Porto; the model's `replaces` for the move is what history reads.
    say(services, "priya-s1", WINTERS)
    say(services, "priya-s2", FROM_PORTO)
    (belief,) = [b for b in services.semantic.current("priya") if b.key == "city"]
    assert (belief.value, belief.version, [p.replaces for p in belief.provenance]) == ("Lisbon", 1, ["Porto"])
    request = ContextRequest(
        subject_id="priya",
        session_id="priya-s3",
        agent="advisor",
        query="Which city does Priya live in, and what are the winters like in Porto?",
        budget_tokens=1000,
    )
    (line,) = [line for line in services.context.build(request).markdown.splitlines() if WINTERS in line]
    assert "⚠ superseded: city is Lisbon since priya-s2." in line


def test_switching_the_embedder_over_an_existing_index_fails_clearly_until_a_replay(
    tmp_path: Path,
    minilm: MiniLmEmbedder,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Given a data folder whose beliefs MiniLM embedded (384 dimensions), with the rules LLM.
    data = tmp_path / "data"
    before = bootstrap(Settings(data_dir=data))
    stated = FactInput(key="city", text="Priya lives in Pune.", value="Pune")
    request = AppendEventRequest(
        subject_id="priya", round=0, agent="advisor", kind="note", content="noted", facts=[stated]
    )
    before.episodic.append("priya-s1", request)
    log = before.event_log
    assert isinstance(log, SqliteEventLog)
    ProjectorWorker(log, before.semantic, SqliteCheckpoints(log.database, "local")).run_once()
    assert before.semantic.search("priya", "where does she live?", k=1)

    # When the embedder becomes an OpenAI-compatible one of 768 dimensions (MiniLM's, zero-padded)
    server = FakeOpenAIServer(embed=lambda texts: [v + [0.0] * 384 for v in minilm.embed(texts)])
    monkeypatch.setattr(factory, "client", lambda base_url, api_key, timeout: server.client())
    for name, value in {
        "AGENTMEM_DATA_DIR": str(data),
        "AGENTMEM_EMBEDDER": "openai",
        "AGENTMEM_EMBEDDER_BASE_URL": BASE_URL,
        "AGENTMEM_EMBEDDER_MODEL": "nomic-embed-text",
        "AGENTMEM_EMBEDDER_DIMENSIONS": "768",
    }.items():
        monkeypatch.setenv(name, value)
    after = bootstrap(Settings.from_env())

    # Then reading the old index says what happened, naming the settings, rather than failing in numpy
    with pytest.raises(VectorSizeError, match="384-dimension vectors and the embedder gives 768") as raised:
        after.semantic.search("priya", "where does she live?", k=1)
    assert "AGENTMEM_EMBEDDER_DIMENSIONS" in raised.value.message
    assert "agentmem replay" in raised.value.message

    # And the replay it names rebuilds the index with the new embedder.
    assert cli.main(["replay"]) == 0
    assert "readers switched" in capsys.readouterr().out
    rebuilt = bootstrap(Settings.from_env())
    (hit,) = rebuilt.semantic.search("priya", "where does she live?", k=1)
    assert hit.belief.value == "Pune"
