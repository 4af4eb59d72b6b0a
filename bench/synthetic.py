"""Synthetic beliefs for the benchmarks: one-version chains written straight into an index."""

from __future__ import annotations

from agentmem.model.beliefs import Belief, Observation, Verdict
from agentmem.semantic.fold import step

STAMP = "2026-11-30T00:00:00.000Z"


def synthetic_belief(subject: str, i: int, text: str, *, session_id: str = "bench") -> Belief:
    """Belief number `i` of `subject` under key `fact_<i>`, as the fold would write it."""
    obs = Observation(
        subject_id=subject,
        key=f"fact_{i:07d}",
        text=text,
        value=text,
        order=f"{STAMP}|{session_id}|{i:012d}",
        event_id=f"ev-{i}",
        session_id=session_id,
        seq=i + 1,
        stated_at=STAMP,
    )
    chain, _ = step([], obs, lambda _current, _candidate: Verdict.SAME)
    return chain[0]
