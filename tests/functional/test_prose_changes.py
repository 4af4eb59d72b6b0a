"""A fact stated and then changed or corrected in prose is one belief holding the new value: an
UPDATE for a change of the world ("we moved from Ghent to Leuven"), a flagged CONFLICT for a
correction ("I don't work for Monzo, I work for Wise"). Scenarios in
tests/data/rules/prose_changes.jsonl and, for the chat idioms ("change of plans: instead of Y,
it's X", "correction on the numbers: it's $N for travel, not $M"), prose_changes2.jsonl, run on
the embedded default with the rules extractor."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentmem.settings import Settings
from agentmem.wiring import bootstrap
from tests.rules_eval import load
from tests.rules_updates import UpdateOutcome, run_updates

ROWS = load("prose_changes") + load("prose_changes2")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, UpdateOutcome]]:
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("prose_changes") / "data"))
    yield {o.id: o for o in run_updates(services, ROWS)}


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_the_change_is_one_belief_with_the_new_value_and_its_verdict(
    outcomes: dict[str, UpdateOutcome], row: dict[str, object]
) -> None:
    outcome = outcomes[str(row["id"])]
    assert outcome.held, outcome.beliefs
    assert outcome.verdict_right, outcome.beliefs
    under_key = [value for key, value in outcome.beliefs if key == row["key"]]
    assert len(under_key) == 1, outcome.beliefs  # the old value is no second current belief
