"""The shadow diff per subject, key and member: each kind of change, from two sets of beliefs."""

from __future__ import annotations

from agentmem.model.beliefs import Belief, Verdict
from agentmem.semantic.shadow import KeyChange, compare_subject


def belief(key: str, value: str, *, member: str = "", flag: bool = False) -> Belief:
    return Belief(
        subject_id="priya", key=key, member=member, doc_id=f"{key}#{member}" if member else key,
        text=f"Priya's {key} is {value}.", value=value, version=2 if flag else 1, current=True, flag=flag,
        verdict=Verdict.CONFLICT if flag else Verdict.SAME, provenance=[], valid_from="2026-01-01T00:00:00Z",
        source_seq=1, source_order="0001",
    )  # fmt: skip


def slots(*beliefs: Belief) -> dict[tuple[str, str], Belief]:
    return {(b.key, b.member): b for b in beliefs}


def kinds(changes: list[KeyChange]) -> list[tuple[str, str, str, str | None, str | None]]:
    return [(c.key, c.member, c.kind, c.live, c.shadow) for c in changes]


def test_every_kind_of_change_is_named_with_both_values() -> None:
    live = slots(
        belief("city", "Austin"),
        belief("employer", "Lumen Health"),
        belief("risk_tolerance", "aggressive", flag=True),
        belief("goal", "house", member="house"),
        belief("income", "$128,000"),
    )
    shadow = slots(
        belief("city", "Austin"),  # unchanged: no row
        belief("risk_tolerance", "aggressive"),  # same value, the flag gone
        belief("goal", "house", member="house", flag=True),  # same value, flagged now
        belief("income", "$140,000"),
        belief("home_city", "Austin"),
    )
    assert kinds(compare_subject("priya", live, shadow)) == [
        ("employer", "", "lost", "Lumen Health", None),
        ("goal", "house", "flag_raised", "house", "house"),
        ("home_city", "", "added", None, "Austin"),
        ("income", "", "changed", "$128,000", "$140,000"),
        ("risk_tolerance", "", "flag_cleared", "aggressive", "aggressive"),
    ]


def test_a_changed_value_that_is_also_flagged_gives_both_rows() -> None:
    live = slots(belief("risk_tolerance", "cautious"))
    shadow = slots(belief("risk_tolerance", "aggressive", flag=True))
    assert [c.kind for c in compare_subject("priya", live, shadow)] == ["changed", "flag_raised"]


def test_a_new_key_that_arrives_flagged_says_so() -> None:
    shadow = slots(belief("risk_tolerance", "aggressive", flag=True))
    assert [c.kind for c in compare_subject("priya", {}, shadow)] == ["added", "flag_raised"]


def test_identical_generations_differ_in_nothing() -> None:
    same = slots(belief("city", "Austin"), belief("goal", "baby", member="baby", flag=True))
    assert compare_subject("priya", same, dict(same)) == []
