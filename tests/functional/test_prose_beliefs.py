"""Plain prose, no explicit keys, the embedded default (SQLite, MiniLM, the rules): a stated fact
reaches the beliefs, a restated one stays one belief (SAME), a changed one gives the new value
with the contradiction flag only for real contradictions, and a replay reproduces it all,
resolved keys included. Scenarios: tests/data/rules/knowledge_updates.jsonl, both splits."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.semantic.replay import replay
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.rules_eval import SPLITS, load
from tests.rules_updates import UpdateOutcome, run_updates

FLOOR = 0.9


@pytest.fixture(scope="module")
def projected(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Services, list[UpdateOutcome]]]:
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("prose") / "data"))
    yield services, run_updates(services, load("knowledge_updates"))


def share(outcomes: list[UpdateOutcome], split: str, attribute: str) -> float:
    chosen = [o for o in outcomes if o.split == split]
    return sum(getattr(o, attribute) for o in chosen) / len(chosen)


@pytest.mark.parametrize("split", SPLITS)
def test_the_current_belief_holds_the_latest_stated_value(
    projected: tuple[Services, list[UpdateOutcome]], split: str
) -> None:
    _, outcomes = projected
    assert share(outcomes, split, "held") >= FLOOR, [(o.id, o.beliefs) for o in outcomes if not o.held]


@pytest.mark.parametrize("split", SPLITS)
def test_the_verdict_and_the_flag_are_those_the_change_calls_for(
    projected: tuple[Services, list[UpdateOutcome]], split: str
) -> None:
    _, outcomes = projected
    assert share(outcomes, split, "verdict_right") >= FLOOR


@pytest.mark.parametrize("split", SPLITS)
def test_a_question_in_other_words_finds_the_belief_first(
    projected: tuple[Services, list[UpdateOutcome]], split: str
) -> None:
    _, outcomes = projected
    assert share(outcomes, split, "found_first") >= FLOOR


def test_a_restated_fact_is_one_belief_with_both_statements_behind_it(
    projected: tuple[Services, list[UpdateOutcome]],
) -> None:
    services, outcomes = projected
    rows = {r["id"]: r for r in load("knowledge_updates") if r["verdict"] == "SAME"}
    restated = [o for o in outcomes if o.id in rows]
    assert restated
    for outcome in restated:
        (belief,) = services.semantic.store.active().current(outcome.subject, rows[outcome.id]["key"])
        assert belief.version == 1
        assert len({p.session_id for p in belief.provenance}) == len(rows[outcome.id]["statements"])


def test_replay_reproduces_every_belief_and_every_key_resolution(
    projected: tuple[Services, list[UpdateOutcome]],
) -> None:
    services, outcomes = projected
    semantic = services.semantic
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    before = semantic.store.active()
    chains = sorted({(o.subject, b.key, b.member) for o in outcomes for b in before.current(o.subject)})
    histories = {(s, k): before.history(s, k) for s, k, _ in chains}
    observed = {c: before.observations(*c) for c in chains}
    assert any(o.proposed_key and o.proposed_key != o.key for obs in observed.values() for o in obs)

    replay(log, semantic, SqliteCheckpoints(log.database, services.settings.tenant_id))

    after = semantic.store.active()
    assert after.generation != before.generation
    assert {(s, k): after.history(s, k) for s, k in histories} == histories
    assert {c: after.observations(*c) for c in chains} == observed
