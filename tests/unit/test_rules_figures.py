"""Floors on the labelled sets (tests/data/rules/), on both the dev split the rules were tuned
against and the held-out split written before them. The old verdict (any different value is a
CONFLICT) fails the CONFLICT floors; the old extraction fails the near-miss floor (pinned in
test_rules_llm.py and test_rules_shapes.py)."""

from __future__ import annotations

import pytest

from agentmem.adapters.local.rules_llm import RulesLLM
from tests.rules_eval import (
    SPLITS,
    any_difference_is_conflict,
    load,
    score_extraction,
    score_near_misses,
    score_verdicts,
)

CONFLICT_FLOOR = 0.8
EXTRACTION_FLOOR = 0.9


@pytest.mark.parametrize("split", SPLITS)
def test_conflict_is_flagged_for_contradictions_and_not_for_changes(split: str) -> None:
    score = score_verdicts(load("verdicts", split), RulesLLM().decide)
    assert score.conflict_precision >= CONFLICT_FLOOR, score
    assert score.conflict_recall >= CONFLICT_FLOOR, score
    assert score.accuracy > score.majority_accuracy + 0.2, score


@pytest.mark.parametrize("split", SPLITS)
def test_the_old_any_difference_verdict_fails_the_same_floor(split: str) -> None:
    """The set would not tell the two verdicts apart if the baseline passed it too."""
    score = score_verdicts(load("verdicts", split), any_difference_is_conflict)
    assert score.conflict_recall == 1.0  # it flags everything...
    assert score.conflict_precision < CONFLICT_FLOOR  # ...so the flag says little
    assert score.flagged_consistent > 0.9


def test_the_verdict_sets_are_large_and_varied() -> None:
    rows = load("verdicts")
    assert len(rows) >= 150
    assert {r["label"] for r in rows} == {"SAME", "UPDATE", "CONFLICT"}
    kinds = {r["kind"] for r in rows}
    assert {
        "restatement",
        "refinement",
        "detail",
        "number",
        "reversal",
        "negation",
        "opposite",
        "replacement",
    } <= kinds


@pytest.mark.parametrize("split", SPLITS)
def test_prose_extraction_reaches_its_floor(split: str) -> None:
    score = score_extraction(load("extraction", split), RulesLLM().extract_facts)
    assert score.precision >= EXTRACTION_FLOOR, score.misses
    assert score.recall >= EXTRACTION_FLOOR, score.misses


@pytest.mark.parametrize("split", SPLITS)
def test_near_misses_state_nothing_about_the_subject(split: str) -> None:
    score = score_near_misses(load("near_misses", split), RulesLLM().extract_facts)
    assert score.false_facts == 0, score.offenders


def test_the_extraction_sets_are_large_enough() -> None:
    assert len(load("extraction")) >= 100
    assert len(load("near_misses")) >= 60
