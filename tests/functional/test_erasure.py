"""Erasing a subject on the local backend: every tier, every generation, the file's raw bytes,
and no replay, late projection or append that brings it back."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.entrypoints.cli import main
from agentmem.errors import NotFoundError
from agentmem.model.events import AppendEventRequest, Event
from agentmem.semantic.projector import ErasureGuard
from agentmem.semantic.replay import replay
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services
from tests.functional.conftest import Call

ALICE_MARK = b"zqalicemarkerzq"
BOB_MARK = b"zqbobmarkerzq"
SHARED = "A shared market report, long enough to go to the blob store. " * 20
ALICE_CODE = '''
def alice_budget(rows: list[int]) -> int:
    """Sum zqalicemarkerzq monthly spending."""
    return sum(rows)
'''


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", inline_max_bytes=256)


def say(services: Services, session: str, subject: str, content: Any, *facts: tuple[str, str, str]) -> Event:
    request = AppendEventRequest(
        subject_id=subject,
        round=0,
        agent="advisor",
        kind="code" if isinstance(content, str) and "def " in content else "note",
        content=content,
        facts=[{"key": k, "text": t, "value": v} for k, t, v in facts] or None,  # type: ignore[misc]
    )
    return services.episodic.append(session, request).event


def worker(services: Services) -> ProjectorWorker:
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    return ProjectorWorker(log, services.semantic, SqliteCheckpoints(log.database, "local"))


def full_replay(services: Services) -> None:
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    replay(
        log,
        services.semantic,
        SqliteCheckpoints(log.database, "local"),
        snapshot=services.ports.observation_snapshot,
    )


def raw_bytes(data_dir: Path) -> bytes:
    """Every byte the data dir holds: the database, its WAL and every blob file."""
    return b"".join(path.read_bytes() for path in sorted(data_dir.rglob("*")) if path.is_file())


@pytest.fixture
def two_subjects(services: Services, api: Call) -> dict[str, Event]:
    """Alice and Bob, each with inline events, beliefs and a blob of their own, and one blob they
    share by content; Alice also has a reviewed draft skill. Projected, then replayed once, so
    an older belief generation holds them too."""
    events = {
        "alice_note": say(
            services, "alice-s1", "alice", "Alice zqalicemarkerzq earns well.",
            ("salary", "Alice earns zqalicemarkerzq 85000 a year.", "85000 zqalicemarkerzq"),
        ),
        "alice_blob": say(services, "alice-s1", "alice", "zqalicemarkerzq statement. " * 40),
        "alice_shared": say(services, "alice-s1", "alice", SHARED),
        "alice_code": say(services, "alice-s1", "alice", ALICE_CODE),
        "bob_note": say(
            services, "bob-s1", "bob", "Bob zqbobmarkerzq saves.",
            ("salary", "Bob earns zqbobmarkerzq 61000 a year.", "61000 zqbobmarkerzq"),
        ),
        "bob_blob": say(services, "bob-s1", "bob", "zqbobmarkerzq statement. " * 40),
        "bob_shared": say(services, "bob-s1", "bob", SHARED),
    }  # fmt: skip
    assert events["alice_shared"].blob == events["bob_shared"].blob  # one blob, by content hash
    worker(services).run_once()
    full_replay(services)
    status, review = api("POST", "/v1/library/review", {"session_id": "alice-s1"})
    assert status == 201 and [f["function_id"] for f in review["functions"]] == ["alice_budget.alice-s1"]
    return events


def test_erasure_removes_the_subject_everywhere_and_keeps_the_other_intact(
    services: Services, api: Call, two_subjects: dict[str, Event]
) -> None:
    data_dir = services.settings.data_dir
    assert ALICE_MARK in raw_bytes(data_dir)
    bob_before = services.semantic.current("bob")

    status, body = api("DELETE", "/v1/subjects/alice")

    assert status == 202
    assert body["state"] == "done", body
    assert {name: tier["status"] for name, tier in body["tiers"].items()} == dict.fromkeys(
        (
            "beliefs", "history_passages", "cached_vectors", "skill_drafts", "conversations", "blobs",
            "events", "caches", "storage",
        ),
        "done",
    )  # fmt: skip
    assert body["tiers"]["history_passages"]["removed"] > 0  # her events were indexed as history
    assert body["tiers"]["cached_vectors"]["removed"] > 0  # and their vectors kept for replay
    assert body["tiers"]["events"]["removed"] == 4
    assert body["tiers"]["blobs"]["removed"] == 1  # her own; the shared one stays for Bob
    assert "alice" not in body["subject_hash"] and "subject_id" not in body
    assert api("GET", f"/v1/erasures/{body['erasure_id']}") == (200, body)

    raw = raw_bytes(data_dir)
    assert ALICE_MARK not in raw
    assert BOB_MARK in raw
    assert api("GET", "/v1/sessions/alice-s1/events")[1]["items"] == []
    assert api("GET", "/v1/subjects/alice/beliefs")[1]["items"] == []
    bob = api("GET", "/v1/sessions/bob-s1/events", query={"resolve_blobs": "true"})[1]["items"]
    assert [e["content"] for e in bob][1:] == ["zqbobmarkerzq statement. " * 40, SHARED]
    assert services.semantic.current("bob") == bob_before
    with pytest.raises(NotFoundError):
        services.skills.get_function("alice_budget.alice-s1")


def test_every_belief_generation_loses_the_subject(
    services: Services, two_subjects: dict[str, Event]
) -> None:
    store = services.semantic.store
    generations = [1, store.active().generation]
    assert generations == [1, 2]
    assert all(store._index(g).current("alice") for g in generations)  # type: ignore[attr-defined]

    services.erasure.erase("alice")

    for g in generations:
        index = store._index(g)  # type: ignore[attr-defined]
        assert index.current("alice") == [] and index.history("alice", "salary") == []
        assert index.keyword_search("alice", "zqalicemarkerzq earns", 5) == []
        assert index.observations("alice", "salary", "") == []
        assert index.current("bob")


def test_a_full_replay_after_the_erasure_does_not_bring_it_back(
    services: Services, api: Call, two_subjects: dict[str, Event]
) -> None:
    bob_before = services.semantic.current("bob")
    services.erasure.erase("alice")

    assert main(["replay", "--data-dir", str(services.settings.data_dir)]) == 0

    assert services.semantic.store.active().generation == 3
    assert services.semantic.current("alice") == []
    assert [b.value for b in services.semantic.current("bob")] == [b.value for b in bob_before]
    assert ALICE_MARK not in raw_bytes(services.settings.data_dir)


def test_a_late_or_redelivered_event_of_an_erased_subject_is_not_projected(
    services: Services, two_subjects: dict[str, Event]
) -> None:
    services.erasure.erase("alice")

    # What a stream redelivery, or a worker that read the batch before the erasure, would apply.
    applied = services.semantic.project(two_subjects["alice_note"])

    assert applied == []
    assert services.semantic.current("alice") == []


def test_an_append_about_an_erased_subject_is_refused_and_writes_nothing(
    services: Services, api: Call, two_subjects: dict[str, Event]
) -> None:
    services.erasure.erase("alice")
    body = {"subject_id": "alice", "round": 1, "agent": "advisor", "kind": "note", "content": "back again"}

    status, error = api("POST", "/v1/sessions/alice-s2/events", body)

    assert status == 410
    assert error["error"]["code"] == "subject_erased" and error["error"]["field"] == "subject_id"
    assert api("GET", "/v1/sessions/alice-s2/events")[1]["items"] == []
    other = {**body, "subject_id": "alice-2"}  # a returning person is a new subject
    assert api("POST", "/v1/sessions/alice-s2/events", other)[0] == 201


def test_repeating_the_erasure_answers_the_same_erasure_and_runs_it_again(
    services: Services, api: Call, two_subjects: dict[str, Event]
) -> None:
    _, first = api("DELETE", "/v1/subjects/alice")
    status, again = api("DELETE", "/v1/subjects/alice")

    assert status == 202
    assert again["erasure_id"] == first["erasure_id"]
    assert (again["runs"], again["state"]) == (2, "done")
    assert again["tiers"]["events"]["removed"] == first["tiers"]["events"]["removed"]


def test_erasing_a_subject_never_seen_still_closes_its_id(services: Services, api: Call) -> None:
    status, body = api("DELETE", "/v1/subjects/nobody")

    assert status == 202 and body["state"] == "done"
    assert all(t["removed"] == 0 for name, t in body["tiers"].items() if name != "storage")
    refused = api(
        "POST", "/v1/sessions/s/events",
        {"subject_id": "nobody", "round": 0, "agent": "a", "kind": "note", "content": "hello"},
    )  # fmt: skip
    assert refused[0] == 410


def test_conversations_named_like_its_sessions_are_forgotten(
    services: Services, two_subjects: dict[str, Event]
) -> None:
    memory = services.ports.conversation_memory
    memory.record("alice-s1", {"asset-1": "hash-1"})
    memory.record("bob-s1", {"asset-1": "hash-1"})

    record = services.erasure.erase("alice")

    assert record.tiers["conversations"].removed == 1
    assert memory.sent("alice-s1") == {} and memory.sent("bob-s1") == {"asset-1": "hash-1"}


def test_unknown_erasure_is_a_404(api: Call) -> None:
    status, body = api("GET", "/v1/erasures/er_nothing")
    assert (status, body["error"]["field"]) == (404, "erasure_id")


def test_forget_on_the_command_line_prints_the_erasure_and_each_tier(
    services: Services, two_subjects: dict[str, Event], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["forget", "alice", "--data-dir", str(services.settings.data_dir)]) == 0

    out = capsys.readouterr().out
    assert out.startswith("erasure er_") and ": done (run 1)" in out.splitlines()[0]
    assert "  events         done     4 removed" in out
    assert ALICE_MARK not in raw_bytes(services.settings.data_dir)


def test_the_openapi_document_carries_erasure_and_export(api: Call) -> None:
    _, document = api("GET", "/v1/openapi.json")
    paths = document["paths"]

    assert set(paths["/v1/subjects/{subject_id}"]) == {"delete"}
    assert "202" in paths["/v1/subjects/{subject_id}"]["delete"]["responses"]
    assert set(paths["/v1/erasures/{erasure_id}"]) == {"get"}
    export = paths["/v1/subjects/{subject_id}/export"]["get"]
    assert "application/x-ndjson" in export["responses"]["200"]["content"]
    assert "410" in export["responses"]


def test_a_write_that_lands_after_the_erasure_leaves_no_bytes_behind(
    services: Services, two_subjects: dict[str, Event]
) -> None:
    """The race: a projector checked before the tombstone and writes after the erasure finished.
    Its own second check purges the belief, and (locally) compacts the file as the erasure did."""
    services.erasure.erase("alice")
    assert ALICE_MARK not in raw_bytes(services.settings.data_dir)
    semantic = services.semantic
    guard = semantic._guard
    assert guard is not None
    checks: list[set[str]] = []

    def erased(ids: Collection[str]) -> set[str]:
        checks.append(set() if not checks else guard.erased(ids))  # the first saw no tombstone yet
        return checks[-1]

    semantic._guard = ErasureGuard(erased, guard.purge)

    applied = semantic.project(two_subjects["alice_note"])

    assert applied and checks == [set(), {"alice"}]  # it wrote, then found the tombstone
    assert semantic.current("alice") == []
    assert ALICE_MARK not in raw_bytes(services.settings.data_dir)


def test_erasure_is_an_operator_action_a_reader_is_refused_and_nothing_is_erased(
    services: Services, api: Call, two_subjects: dict[str, Event]
) -> None:
    status, body = api("DELETE", "/v1/subjects/alice", principals="analyst")

    assert (status, body["error"]["code"]) == (403, "forbidden")
    assert services.event_log.list_events("alice-s1")  # untouched
    assert api("GET", "/v1/erasures/er_anything", principals="analyst")[0] == 403
