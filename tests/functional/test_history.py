"""The `history` source of `POST /v1/context`, over real HTTP on the embedded default: what session 1
said in plain prose reaches a reader in session 10, labelled when a belief has since replaced it,
left out when a belief already says it, rebuilt by replay and unchanged by re-projection."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.adapters.tokens import count_tokens
from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.entrypoints.server import LocalServer
from agentmem.model.context import ContextRequest
from agentmem.model.events import AppendEventRequest
from agentmem.semantic.replay import replay
from agentmem.semantic.worker import ProjectorWorker, drain
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

GARDEN = "On weekends I restore an old allotment garden by the river with my neighbour."
FILLER = [
    "The forecast says light rain on Tuesday and sun for the rest of the week.",
    "I compared twelve flight options and kept the three best-reviewed ones.",
    "Reminder set for Wednesday at 15:30; the invite went out to everyone.",
    "A balanced week could be batch-cooked lunches and simple dinners.",
    "The store page lists thirteen sizes in stock and free returns within a month.",
    "Great, let's keep that in mind for the next step of the plan.",
]


def worker(services: Services) -> ProjectorWorker:
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    return ProjectorWorker(log, services.semantic, SqliteCheckpoints(log.database, "local"))


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MemoryClient, Services]]:
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("history") / "data"))
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        client = MemoryClient(server.url)

        def say(session: str, agent: str, content: Any) -> None:
            client.append_event(
                session, subject_id="maya", round=0, agent=agent, kind="message", content=content
            )

        say("S1", "user", GARDEN)
        say("S1", "intake", {"risk_tolerance": "cautious"})
        say("S1", "intake", {"employer": "Northwind Labs"})
        for n in range(2, 10):
            for line in FILLER:
                say(f"S{n}", "assistant", f"{line} (session {n})")
        say("S3", "intake", "Her risk tolerance is aggressive.")
        say("S10", "user", "Can we plan something for next month?")
        worker(services).run_once()
        yield client, services


def read(client: MemoryClient, query: str, **overrides: Any) -> dict[str, Any]:
    body = {"subject_id": "maya", "session_id": "S10", "agent": "reader", "query": query, **overrides}
    result: dict[str, Any] = client.request("POST", "/v1/context", body)
    return result


def history_items(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in result["items"] if i["source"] == "history"]


def test_a_plain_prose_fact_of_session_1_reaches_a_reader_in_session_10(
    api: tuple[MemoryClient, Services],
) -> None:
    client, services = api
    # The rules extractor made no belief of it: only the log knows.
    assert not any("garden" in b.text.lower() for b in services.semantic.current("maya"))
    result = read(client, "What does Maya like to do in her free time?", budget_tokens=1000)
    assert GARDEN in result["markdown"]
    assert count_tokens(result["markdown"]) == result["trace"]["used_tokens"] <= 1000
    (garden,) = [i for i in history_items(result) if i["ref"]["seq"] == 1 and i["ref"]["session_id"] == "S1"]
    # When it was said: the event's own time, so "when did she say it" stays answerable.
    (event,) = [e for _, e in services.event_log.read_since(0, 10) if e.seq == 1 and e.session_id == "S1"]
    assert garden["ref"]["stated_at"] == event.created_at
    assert garden["ref"]["span"] == [0, len(GARDEN)]
    # Compact: under its session's heading with the date, where it is in the log and the
    # speaker, then the text.
    lines = result["markdown"].splitlines()
    at = next(n for n, line in enumerate(lines) if GARDEN in line)
    assert lines[at] == f"- #1 user: {GARDEN}"
    heading = next(line for line in reversed(lines[:at]) if line.startswith("#"))
    assert heading == f"### S1 ({garden['ref']['stated_at'][:10]})"


def test_history_never_shows_a_superseded_value_unlabelled(api: tuple[MemoryClient, Services]) -> None:
    result = read(api[0], "What is her risk tolerance?", budget_tokens=1000)
    lines = [line for line in result["markdown"].splitlines() if "cautious" in line]
    assert lines, "the old statement is history worth showing, labelled"
    for line in lines:
        assert "⚠" in line and (
            "superseded: risk_tolerance is aggressive since S3" in line or "changed" in line
        )
    labelled = [i for i in history_items(result) if i["ref"]["superseded"]]
    assert [(i["ref"]["session_id"], i["ref"]["seq"]) for i in labelled] == [("S1", 2)]


def test_a_passage_a_current_belief_already_says_is_not_repeated(api: tuple[MemoryClient, Services]) -> None:
    result = read(api[0], "Where does she work?", budget_tokens=1000)
    assert "Northwind Labs" in result["markdown"]
    assert [i["item_id"] for i in result["items"] if i["source"] == "semantic" and "employer" in i["item_id"]]
    assert not [i for i in history_items(result) if i["ref"]["seq"] == 3 and i["ref"]["session_id"] == "S1"]
    reasons = {d["item_id"]: d["reason"] for d in result["trace"]["dropped"] if d["source"] == "history"}
    assert reasons["passage:S1:3:0-30"] == "stands as belief employer"
    assert result["markdown"].count("Northwind Labs") == 1


def test_passages_never_take_the_room_a_belief_needs_for_its_value(
    api: tuple[MemoryClient, Services],
) -> None:
    # Dozens of passages match; the beliefs still show their values, not bare keys.
    result = read(api[0], "What is her risk tolerance and where does she work?", budget_tokens=600)
    levels = {i["item_id"]: i["level"] for i in result["items"] if i["source"] == "semantic"}
    assert levels and "identity" not in levels.values()
    assert "aggressive" in result["markdown"] and "Northwind Labs" in result["markdown"]
    assert len(history_items(result)) >= 3
    assert result["trace"]["used_tokens"] <= 600


def test_the_trace_reports_history_per_source(api: tuple[MemoryClient, Services]) -> None:
    trace = read(api[0], "What does Maya like to do in her free time?", budget_tokens=1000)["trace"]
    assert trace["tokens_by_source"]["history"] > 0
    assert trace["candidates_by_source"]["history"] > 0
    assert trace["passage_generation"] == 1
    assert any(note.startswith("history: ") for note in trace["notes"])


def test_include_without_history_reads_no_history(api: tuple[MemoryClient, Services]) -> None:
    result = read(api[0], "What does Maya like to do?", include=["episodic", "semantic"], budget_tokens=1000)
    assert history_items(result) == []
    assert "history" not in result["trace"]["candidates_by_source"]
    assert result["trace"]["passage_generation"] is None
    assert GARDEN not in result["markdown"]


def test_the_readers_own_session_is_left_to_the_episodic_source(api: tuple[MemoryClient, Services]) -> None:
    result = read(api[0], "plan something for next month", budget_tokens=1000)
    assert not [i for i in history_items(result) if i["ref"]["session_id"] == "S10"]
    assert [i for i in result["items"] if i["source"] == "episodic"]


def test_re_projection_changes_nothing(api: tuple[MemoryClient, Services]) -> None:
    client, services = api
    before = read(client, "What does Maya like to do in her free time?", budget_tokens=1000)
    passages = services.semantic.passages
    assert passages is not None
    count = passages.active().count("maya")
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    # A redelivery of the whole log: every event is projected again, from the first.
    index = services.semantic.store.active()
    services.semantic.projector(index).project_many([e for _, e in log.read_since(0, 10_000)])
    assert passages.active().count("maya") == count
    assert read(client, "What does Maya like to do in her free time?", budget_tokens=1000) == before


def test_replay_rebuilds_passages_into_a_new_generation(tmp_path_factory: pytest.TempPathFactory) -> None:
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("history-replay") / "data"))
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    checkpoints = SqliteCheckpoints(log.database, "local")
    for n, text in enumerate([GARDEN, *FILLER], start=1):
        services.episodic.append(
            f"S{n}",
            AppendEventRequest(subject_id="maya", round=0, agent="user", kind="message", content=text),
        )
    worker(services).run_once()
    request = ContextRequest(subject_id="maya", session_id="S99", agent="r", query="weekend hobby?")
    before = services.context.build(request)
    passages = services.semantic.passages
    assert passages is not None
    result = replay(log, services.semantic, checkpoints)
    assert passages.active().generation == result.generation == 2
    assert passages.active().count("maya") == passages.generation(1).count("maya") == 7
    after = services.context.build(request)
    assert after.markdown == before.markdown
    assert after.trace.passage_generation == 2
    # The worker continues the new generation from where replay stopped: nothing is indexed twice.
    assert drain(log, services.semantic, checkpoints, services.semantic.store.active()) == 0


def test_a_single_subject_replay_keeps_the_other_subjects_passages(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("history-subject") / "data"))
    for subject, text in (("maya", GARDEN), ("omar", "Omar keeps bees on the roof of his building.")):
        services.episodic.append(
            f"{subject}-1",
            AppendEventRequest(subject_id=subject, round=0, agent="user", kind="message", content=text),
        )
    worker(services).run_once()
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    store = services.semantic.store
    copier = getattr(store, "copy_other_subjects", None)
    replay(
        log,
        services.semantic,
        SqliteCheckpoints(log.database, "local"),
        subject_id="maya",
        copy_other_subjects=copier,
    )
    passages = services.semantic.passages
    assert passages is not None
    active = passages.active()
    assert active.generation == 2
    assert (active.count("maya"), active.count("omar")) == (1, 1)
    assert [h.passage.subject_id for h in active.keyword_search("omar", "bees", 5)] == ["omar"]
