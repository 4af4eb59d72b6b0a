"""The int8 prescan must give the exact top k, whatever the vectors: it only saves reading bytes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agentmem.adapters.local.passage_matrix import PassageMatrix
from agentmem.adapters.local.quantised_scan import CHUNK_ROWS, nearest_rows, quantise


def exact_top(rows: Any, query: Any, k: int, excluded: Any = None) -> list[int]:
    scores = rows.astype(np.float64) @ query.astype(np.float64)
    order = [i for i in np.lexsort((np.arange(len(rows)), -scores)) if excluded is None or not excluded[i]]
    return [int(i) for i in order[:k]]


def unit(rng: np.random.Generator, n: int, d: int) -> Any:
    rows = rng.standard_normal((n, d)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def search(rows: Any, query: Any, k: int, excluded: Any = None) -> list[tuple[float, int]]:
    codes, scales = quantise(rows)
    return nearest_rows(rows, codes, scales, query, k, excluded)


@pytest.mark.parametrize("seed", range(6))
def test_the_top_k_is_the_exact_one_across_blocks(seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = unit(rng, CHUNK_ROWS * 2 + 37, 64)  # spans blocks, with a short last one
    query = rows[seed] + 0.3 * unit(rng, 1, 64)[0]
    found = search(rows, query, 25)
    assert [row for _, row in found] == exact_top(rows, query, 25)
    exact = rows.astype(np.float64) @ query.astype(np.float64)
    assert [score for score, _ in found] == pytest.approx([float(exact[row]) for _, row in found], rel=1e-12)


def test_near_ties_that_int8_cannot_tell_apart_are_still_ranked_exactly() -> None:
    # Rows a hair apart round to the same codes: only the exact re-score can order them.
    rng = np.random.default_rng(1)
    base = unit(rng, 1, 32)[0]
    rows = np.stack([base * (1 - i * 1e-6) + (i % 3) * 1e-7 for i in range(300)]).astype(np.float32)
    rows = np.vstack([rows, unit(rng, 500, 32)])
    assert [row for _, row in search(rows, base, 40)] == exact_top(rows, base, 40)


def test_exact_ties_break_by_row_and_excluded_rows_never_come_back() -> None:
    rng = np.random.default_rng(2)
    rows = np.repeat(unit(rng, 5, 16), 20, axis=0)  # five distinct rows, twenty copies each
    query = rows[0]
    excluded = np.zeros(len(rows), dtype=bool)
    excluded[:7] = True
    found = [row for _, row in search(rows, query, 10, excluded)]
    assert found == exact_top(rows, query, 10, excluded) == list(range(7, 17))


def test_fewer_rows_than_k_and_zero_rows() -> None:
    rows = np.zeros((4, 8), dtype=np.float32)
    rows[1, 0] = 0.5
    query = np.ones(8, dtype=np.float32)
    assert [row for _, row in search(rows, query, 10)] == [1, 0, 2, 3]
    assert search(rows, query, 0) == []
    assert search(rows, query, 3, np.ones(4, dtype=bool)) == []


def test_a_growing_passage_matrix_keeps_its_codes_in_step_with_its_rows() -> None:
    rng = np.random.default_rng(3)
    vectors = unit(rng, 300, 24)
    matrix = PassageMatrix(epoch=0)
    for start in range(0, 300, 70):  # several appends: the capacity doubles under them
        block = [(1000 + i, f"s{i % 4}", vectors[i].tobytes()) for i in range(start, min(300, start + 70))]
        matrix.extend(block, last_stamp=start + len(block))
    query = vectors[10]
    found = matrix.nearest(query, 15, exclude_session="s2")
    excluded = np.array([i % 4 == 2 for i in range(300)])
    assert [pid - 1000 for _, pid in found] == exact_top(vectors, query, 15, excluded)
