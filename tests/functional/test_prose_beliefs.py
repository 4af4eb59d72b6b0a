"""Plain prose, no explicit keys, the embedded default (SQLite, MiniLM, the rules): a stated fact
reaches the beliefs, a restated one stays one belief (SAME), a changed one gives the new value
with the contradiction flag only for real contradictions, and a replay reproduces it all,
resolved keys included. Scenarios: tests/data/rules/knowledge_updates.jsonl, both splits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.bootstrap import Services, bootstrap
from agentmem.model.beliefs import Belief, normalise_value
from agentmem.model.events import AppendEventRequest
from agentmem.semantic.replay import replay
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from tests.rules_eval import SPLITS, load

FLOOR = 0.9


class Scenarios:
    def __init__(self, services: Services) -> None:
        self.services = services
        log = services.event_log
        assert isinstance(log, SqliteEventLog)
        self.log = log
        self.checkpoints = SqliteCheckpoints(log.database, services.settings.tenant_id)
        self.worker = ProjectorWorker(log, services.semantic, self.checkpoints)
        self.rows: list[tuple[str, dict[str, Any]]] = []
        for split in SPLITS:
            for i, row in enumerate(load("knowledge_updates", split)):
                # Third-person statements name Priya, so that subject is hers; the others get their own.
                subject = "priya" if row["agent"] != "user" else f"user-{split}-{i}"
                self.rows.append((subject, row))
                for n, text in enumerate(row["statements"], 1):
                    self.say(subject, f"{subject}-s{n}", row, text)
                    self.worker.run_once()

    def say(self, subject: str, session: str, row: dict[str, Any], text: str) -> None:
        request = AppendEventRequest(
            subject_id=subject, round=0, agent=row["agent"], kind=row["kind"], content=text
        )
        self.services.episodic.append(session, request)

    def held(self, subject: str, row: dict[str, Any]) -> Belief | None:
        """The current belief under the expected key holding the expected value, if any."""
        wanted = normalise_value(row["value"])
        current = self.services.semantic.current(subject)
        return next((b for b in current if b.key == row["key"] and normalise_value(b.value) == wanted), None)

    def of(self, split: str) -> list[tuple[str, dict[str, Any]]]:
        return [(s, r) for s, r in self.rows if r["split"] == split]


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenarios]:
    data: Path = tmp_path_factory.mktemp("prose") / "data"
    yield Scenarios(bootstrap(Settings(data_dir=data)))


@pytest.mark.parametrize("split", SPLITS)
def test_the_current_belief_holds_the_latest_stated_value(scenarios: Scenarios, split: str) -> None:
    rows = scenarios.of(split)
    held = [scenarios.held(subject, row) for subject, row in rows]
    assert sum(b is not None for b in held) / len(rows) >= FLOOR, [
        (row["statements"], [(b.key, b.value) for b in scenarios.services.semantic.current(s)])
        for (s, row), b in zip(rows, held, strict=True)
        if b is None
    ]


@pytest.mark.parametrize("split", SPLITS)
def test_the_verdict_and_the_flag_are_those_the_change_calls_for(scenarios: Scenarios, split: str) -> None:
    rows = scenarios.of(split)
    right = 0
    for subject, row in rows:
        belief = scenarios.held(subject, row)
        if belief is None:
            continue
        verdict = belief.verdict.value if belief.version > 1 else "SAME"
        right += (verdict, belief.flag) == (row["verdict"], row["flag"])
    assert right / len(rows) >= FLOOR


def test_a_restated_fact_is_one_belief_with_both_statements_behind_it(scenarios: Scenarios) -> None:
    restated = [(s, r) for s, r in scenarios.rows if r["verdict"] == "SAME"]
    assert restated
    for subject, row in restated:
        belief = scenarios.held(subject, row)
        assert belief is not None, row
        assert belief.version == 1
        assert len({p.session_id for p in belief.provenance}) == len(row["statements"])


@pytest.mark.parametrize("split", SPLITS)
def test_a_question_in_other_words_finds_the_belief_first(scenarios: Scenarios, split: str) -> None:
    rows = scenarios.of(split)
    found = 0
    for subject, row in rows:
        hits = scenarios.services.semantic.search(subject, row["query"], k=1)
        found += bool(hits) and normalise_value(hits[0].belief.value) == normalise_value(row["value"])
    assert found / len(rows) >= FLOOR


def test_replay_reproduces_every_belief_and_every_key_resolution(scenarios: Scenarios) -> None:
    semantic = scenarios.services.semantic
    before = semantic.store.active()
    subjects = sorted({s for s, _ in scenarios.rows})
    keys = {s: sorted({b.key for b in before.current(s)}) for s in subjects}
    resolved = [
        (s, k, m) for s in subjects for k in keys[s] for m in sorted({b.member for b in before.current(s, k)})
    ]
    histories = {(s, k): before.history(s, k) for s in subjects for k in keys[s]}
    observed = {(s, k, m): before.observations(s, k, m) for s, k, m in resolved}
    assert any(o.proposed_key for obs in observed.values() for o in obs)  # resolution did happen

    replay(scenarios.log, semantic, scenarios.checkpoints)

    after = semantic.store.active()
    assert after.generation != before.generation
    assert {(s, k): after.history(s, k) for s in subjects for k in keys[s]} == histories
    assert {(s, k, m): after.observations(s, k, m) for s, k, m in resolved} == observed
