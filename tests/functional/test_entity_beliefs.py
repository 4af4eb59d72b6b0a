"""Facts about named entities kept in plain prose, through the local service (SQLite, MiniLM, the
rules, the projector worker): the latest value is the one current belief, the older values are
in its version chain, a value stated without a change marker is flagged as a contradiction, an
entity's key is never resolved onto one of the subject's own keys, and a replay reproduces it all."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.model.events import AppendEventRequest
from agentmem.semantic.replay import replay
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    yield bootstrap(Settings(data_dir=tmp_path_factory.mktemp("entities") / "data"))


def say(services: Services, subject: str, *texts: str, agent: str = "research") -> None:
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    worker = ProjectorWorker(
        log, services.semantic, SqliteCheckpoints(log.database, services.settings.tenant_id)
    )
    for n, text in enumerate(texts):
        request = AppendEventRequest(subject_id=subject, round=n, agent=agent, kind="note", content=text)
        services.episodic.append(f"{subject}-notes", request)
        worker.settle()


def test_the_latest_value_is_the_one_current_belief_and_the_old_one_is_in_its_chain(
    services: Services,
) -> None:
    say(
        services,
        "kb",
        "The CEO of Acme is Dana Lee.",
        "Some notes on the quarter.",
        "Acme's CEO is now Raj Patel.",
    )
    chain = services.semantic.belief("kb", "ceo_of_acme", history=True)
    (current,) = chain.current
    assert (current.value, current.version, current.flag) == ("Raj Patel", 2, False)
    assert current.text == "The CEO of Acme is now Raj Patel."
    assert chain.history is not None
    assert [b.value for b in chain.history] == ["Dana Lee", "Raj Patel"]
    (hit, *_) = services.semantic.search("kb", "Who is the CEO of Acme?", k=3)
    assert (hit.belief.key, hit.belief.value) == ("ceo_of_acme", "Raj Patel")


def test_a_new_value_without_a_change_marker_is_flagged(services: Services) -> None:
    say(services, "kb2", "The capital of Zembla is Onhava.", "Varna is the capital of Zembla.")
    (current,) = services.semantic.belief("kb2", "capital_of_zembla").current
    assert (current.value, current.verdict.value, current.flag) == ("Varna", "CONFLICT", True)


def test_restating_the_value_in_another_shape_is_the_same_belief(services: Services) -> None:
    say(services, "kb3", "The mayor of Springfield is Joe Quimby.", "Joe Quimby is the mayor of Springfield.")
    (current,) = services.semantic.belief("kb3", "mayor_of_springfield").current
    assert (current.value, current.version, len(current.provenance)) == ("Joe Quimby", 1, 2)


def test_an_entity_key_is_never_resolved_onto_a_subject_key(services: Services) -> None:
    say(services, "priya", "I live in Austin.", "I work at Initech.", agent="user")
    say(services, "priya", "Acme's location is Munich.", "The employer of Dana Lee is Globex.",
        "The home city of Raj Patel is Denver.")  # fmt: skip
    current = {b.key: b.value for b in services.semantic.current("priya")}
    assert (current["city"], current["employer"]) == ("Austin", "Initech")
    assert current["location_of_acme"] == "Munich"
    assert current["employer_of_dana_lee"] == "Globex"
    assert current["home_city_of_raj_patel"] == "Denver"


def test_a_replay_reproduces_every_entity_belief_and_its_chain(services: Services) -> None:
    say(services, "kb4", "Globex's CFO is Ana Ruiz.", "The CFO of Globex has changed to Ben Okafor.",
        "Ben Okafor is the CFO of Globex.", "The capital of Zembla is Onhava.")  # fmt: skip
    semantic, log = services.semantic, services.event_log
    assert isinstance(log, SqliteEventLog)
    before = semantic.store.active()
    keys = sorted(b.key for b in before.current("kb4"))
    assert keys == ["capital_of_zembla", "cfo_of_globex"]
    histories = {k: before.history("kb4", k) for k in keys}

    replay(log, semantic, SqliteCheckpoints(log.database, services.settings.tenant_id))

    after = semantic.store.active()
    assert after.generation != before.generation
    assert {k: after.history("kb4", k) for k in keys} == histories
    assert [b.value for b in histories["cfo_of_globex"]] == ["Ana Ruiz", "Ben Okafor"]
