"""The belief fold: verdict semantics, idempotency, and independence from delivery order."""

from __future__ import annotations

import itertools
import random

import pytest

from agentmem.model.beliefs import Belief, Observation, Verdict, archived_id, belief_id, normalise_value
from agentmem.semantic.fold import fold, is_newest, step


def obs(n: int, value: str, *, session: str | None = None, key: str = "risk_tolerance") -> Observation:
    return Observation(
        subject_id="priya", key=key, text=f"Priya's {key} is {value}.", value=value,
        order=f"2026-11-30T00:00:{n:02d}.000Z|{session or f's{n}'}|{n:012d}", event_id=f"ev{n}",
        session_id=session or f"s{n}", seq=n, stated_at=f"2026-11-30T00:00:{n:02d}.000Z",
    )  # fmt: skip


def decide(current: Belief, candidate: Observation) -> Verdict:
    if normalise_value(current.value) == normalise_value(candidate.value):
        return Verdict.SAME
    return Verdict.UPDATE if candidate.value.startswith(current.value) else Verdict.CONFLICT


def test_first_statement_is_version_1_current_unflagged() -> None:
    (belief,) = fold([obs(1, "cautious")], decide)
    assert (belief.version, belief.current, belief.flag, belief.doc_id) == (1, True, False, "risk_tolerance")


def test_restating_adds_provenance_but_no_version() -> None:
    chain = fold([obs(n, "Cautious" if n % 2 else "cautious") for n in range(1, 11)], decide)
    assert len(chain) == 1
    assert [p.session_id for p in chain[0].provenance] == [f"s{n}" for n in range(1, 11)]


def test_conflict_archives_supersedes_and_flags() -> None:
    v1, v2 = fold([obs(1, "cautious"), obs(2, "aggressive")], decide)
    assert (v1.doc_id, v1.current, v1.valid_to) == ("risk_tolerance@v1", False, v2.valid_from)
    assert (v2.doc_id, v2.version, v2.current, v2.flag) == ("risk_tolerance", 2, True, True)
    assert v2.previous is not None
    assert (v2.previous.value, v2.previous.session_ids) == ("cautious", ["s1"])
    assert [p.session_id for p in v2.provenance] == ["s1", "s2"]


def test_update_supersedes_without_a_flag() -> None:
    _, v2 = fold([obs(1, "house"), obs(2, "house in Austin")], decide)
    assert (v2.verdict, v2.flag) == (Verdict.UPDATE, False)


def test_any_delivery_order_gives_the_same_chain() -> None:
    observations = [
        obs(1, "cautious"),
        obs(2, "cautious"),
        obs(3, "aggressive"),
        obs(4, "aggressive"),
        obs(5, "cautious"),
    ]
    expected = fold(observations, decide)
    for permutation in itertools.permutations(observations):
        assert fold(permutation, decide) == expected


def test_incremental_steps_equal_the_fold_and_redelivery_changes_nothing() -> None:
    observations = [
        obs(n, random.Random(n).choice(["cautious", "balanced", "aggressive"])) for n in range(1, 30)
    ]
    chain: list[Belief] = []
    for o in observations:
        assert is_newest(chain, o)
        chain, _ = step(chain, o, decide)
        again, verdict = step(chain, o, decide)  # at-least-once delivery
        assert (again, verdict) == (chain, Verdict.SAME)
    assert chain == fold(observations, decide)


def test_archived_ids_are_disjoint_from_every_current_id_and_separators_are_refused() -> None:
    archived = {archived_id("risk_tolerance", "", 1), archived_id("goal", "house", 1)}
    lookalikes = {
        belief_id("risk_tolerance__v1", ""),
        belief_id("goal", "house__v1"),
        belief_id("goal", "v1"),
    }
    assert archived == {"risk_tolerance@v1", "goal#house@v1"}
    assert not archived & lookalikes
    for key, member in (("goal#house", ""), ("goal", "house@v1"), ("risk@v1", "")):
        with pytest.raises(ValueError, match="reserved character"):
            belief_id(key, member)
