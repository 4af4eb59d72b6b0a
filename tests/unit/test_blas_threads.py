"""The local vector indexes run BLAS on one thread (why: adapters/local/blas.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from agentmem.adapters.local import blas
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_passages import SqlitePassageIndex
from agentmem.adapters.local.vector_matrix import SubjectVectors


def blas_threads() -> set[int]:
    return {int(i["num_threads"]) for i in threadpool_info() if i["user_api"] == "blas"}


@pytest.mark.parametrize(
    "build",
    [
        lambda db: SqlitePassageIndex(db, "acme", 1),
        lambda db: SubjectVectors(db, "acme", 1),
    ],
    ids=["passages", "beliefs"],
)
def test_building_a_local_vector_index_leaves_blas_on_one_thread(
    tmp_path: Path, build: Callable[[SqliteDatabase], object]
) -> None:
    np.ones((4, 4), dtype=np.float32) @ np.ones(4, dtype=np.float32)  # numpy's BLAS is loaded
    if not blas_threads():
        pytest.skip("no BLAS library that threadpoolctl can see")
    with threadpool_limits(limits=2, user_api="blas"):  # as numpy starts on a 2-core machine
        blas.single_threaded_blas.cache_clear()
        build(SqliteDatabase(tmp_path / "db"))
        assert blas_threads() == {1}


def test_one_thread_gives_the_same_scores_to_the_bit() -> None:
    rng = np.random.default_rng(7)
    rows = rng.standard_normal((20_000, 384), dtype=np.float32)
    query = rng.standard_normal(384, dtype=np.float32)
    with threadpool_limits(limits=2, user_api="blas"):
        threaded = rows @ query
    with threadpool_limits(limits=1, user_api="blas"):
        single = rows @ query
    np.testing.assert_array_equal(single, threaded)
