"""The subject vector cache catches up with writes incrementally and stays exact."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agentmem.adapters.local.sqlite_belief_store import SqliteBeliefStore
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.model.beliefs import Observation, Verdict
from agentmem.semantic.fold import step


def unit(seed: int) -> list[float]:
    v = np.random.default_rng(seed).normal(size=8).astype(np.float32)
    return [float(x) for x in v / np.linalg.norm(v)]


def write(index, key: str, value: str, vector: list[float]) -> None:  # type: ignore[no-untyped-def]
    revision, chain = index.chain("priya", key, "")
    obs = Observation(
        subject_id="priya", key=key, text=f"{key} is {value}", value=value, order=f"o{revision:04d}",
        event_id=f"{key}-{value}", session_id="S", seq=1, stated_at="t",
    )  # fmt: skip
    new_chain, _ = step(chain, obs, lambda *_: Verdict.CONFLICT)
    index.replace_chain("priya", key, "", expected_revision=revision, chain=new_chain, vector=vector)


def test_search_sees_updates_and_new_beliefs_after_the_cache_was_built(tmp_path: Path) -> None:
    index = SqliteBeliefStore(SqliteDatabase(tmp_path / "db"), "acme").active()
    for n in range(20):
        write(index, f"k{n}", "a", unit(n))
    assert index.vector_search("priya", unit(3), 1)[0].belief.key == "k3"  # builds the cache
    write(index, "k3", "b", unit(100))  # k3's vector moves away
    write(index, "k99", "a", unit(3))  # a new belief takes k3's old place
    hits = index.vector_search("priya", unit(3), 2)
    assert hits[0].belief.key == "k99"
    assert index.vector_search("priya", unit(100), 1)[0].belief.key == "k3"
    assert index.vector_search("priya", unit(100), 1)[0].belief.version == 2
    top = index.vector_search("priya", unit(7), 1)[0]
    assert (top.belief.key, round(top.score, 5)) == ("k7", 1.0)
