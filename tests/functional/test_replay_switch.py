"""A replay switches readers to a new generation without losing anything acknowledged before or
during it. Writers and the projector worker are interleaved with the replay's phases through
hooks, deterministically: no threads, no sleeps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_belief_store import SqliteBeliefStore
from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.model.beliefs import Belief
from agentmem.model.events import AppendEventRequest
from agentmem.semantic.health import PROBE_SUBJECT
from agentmem.semantic.replay import replay
from agentmem.semantic.verify import verify
from agentmem.semantic.worker import ProjectorWorker, checkpoint_name
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

VALUES = ("cautious", "aggressive")  # alternating: every statement is a new version


class Team:
    """Agents stating risk tolerances about two subjects, and the projector worker behind them."""

    def __init__(self, services: Services) -> None:
        log = services.event_log
        assert isinstance(log, SqliteEventLog)
        store = services.semantic.store
        assert isinstance(store, SqliteBeliefStore)
        self.services, self.log, self.store = services, log, store
        self.checkpoints = SqliteCheckpoints(log.database, services.settings.tenant_id)
        self.worker = ProjectorWorker(log, services.semantic, self.checkpoints)
        self.acked = {"priya": 0, "sam": 0}

    def state(self, subject: str, times: int = 1) -> None:
        for _ in range(times):
            value = VALUES[self.acked[subject] % 2]
            self.services.episodic.append(
                f"{subject}-S1",
                AppendEventRequest.model_validate(
                    {"subject_id": subject, "round": 0, "agent": "intake", "kind": "profile",
                     "content": value, "facts": [{"key": "risk_tolerance", "value": value,
                                                  "text": f"{subject} is {value} about risk."}]}
                ),
            )  # fmt: skip
            self.acked[subject] += 1

    def history(self, subject: str) -> list[Belief]:
        return self.services.semantic.store.active().history(subject, "risk_tolerance")

    def replay_priya(self, **hooks: Callable[..., None]) -> None:
        copier: Callable[[int, int, str], None] = hooks.pop("copy", self.store.copy_other_subjects)
        replay(self.log, self.services.semantic, self.checkpoints, subject_id="priya",
               copy_other_subjects=copier, **hooks)  # fmt: skip


@pytest.fixture
def team(tmp_path: Path) -> Team:
    team = Team(bootstrap(Settings(data_dir=tmp_path / "data")))
    team.state("priya", 3)
    team.state("sam", 20)
    team.worker.run_once()
    return team


def assert_matches_a_full_replay(team: Team) -> None:
    semantic, index = team.services.semantic, team.services.semantic.store.active()
    report = verify(
        index, team.log, watermark=team.checkpoints.load(checkpoint_name(index.generation)),
        fact_types=semantic.fact_types, extract=None, skip_subjects={PROBE_SUBJECT},
    )  # fmt: skip
    assert report.ok, report.divergences[:3]
    assert report.unprojected_events == 0
    for subject, acked in team.acked.items():
        (current,) = [b for b in team.history(subject) if b.current]
        assert (current.version, len(current.provenance)) == (acked, acked), subject
    incremental = {s: team.history(s) for s in team.acked}
    replay(team.log, team.services.semantic, team.checkpoints)
    assert {s: team.history(s) for s in team.acked} == incremental


def test_updates_to_another_subject_right_after_the_copy_survive_the_switch(team: Team) -> None:
    def copy_then_keep_writing(source: int, target: int, subject: str) -> None:
        team.store.copy_other_subjects(source, target, subject)
        # Other agents keep writing about sam, and the worker projects it into the live generation.
        team.state("sam", 30)
        team.worker.run_once()

    team.replay_priya(copy=copy_then_keep_writing)
    team.worker.run_once()
    assert_matches_a_full_replay(team)


@pytest.mark.parametrize("phase", ["copied", "rebuilt", "caught_up"])
def test_statements_acknowledged_in_any_phase_of_a_replay_survive_the_switch(team: Team, phase: str) -> None:
    def between(reached: str) -> None:
        team.state("sam", 7)
        team.state("priya", 2)
        if reached == phase:
            team.worker.run_once()  # the worker also runs on the live generation in this phase

    team.replay_priya(on_phase=between)
    team.worker.run_once()  # after the switch, the worker carries on from the new generation's checkpoint
    assert_matches_a_full_replay(team)
