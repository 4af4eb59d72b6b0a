"""Exact cosine search over one subject's current belief vectors, held as an in-memory matrix.

The matrix is rebuilt only when the subject's revision (bumped by every chain write, from any
process) has moved, so a search costs one indexed lookup plus one matrix-vector product."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agentmem.adapters.local.sqlite_db import SqliteDatabase


@dataclass(frozen=True)
class _Matrix:
    revision: int
    doc_ids: list[str]
    rows: Any  # numpy float32 array, one unit vector per doc id


class SubjectVectors:
    def __init__(self, db: SqliteDatabase, tenant_id: str, generation: int) -> None:
        self._db = db
        self._tenant = tenant_id
        self._g = generation
        self._cache: dict[str, _Matrix] = {}
        self._lock = threading.Lock()

    def _load(self, subject_id: str) -> _Matrix:
        conn = self._db.connection()
        row = conn.execute(
            f"SELECT revision FROM subject_revisions_g{self._g} WHERE tenant_id=? AND subject_id=?",
            (self._tenant, subject_id),
        ).fetchone()
        revision = row[0] if row else 0
        with self._lock:
            cached = self._cache.get(subject_id)
        if cached is not None and cached.revision == revision:
            return cached
        found = conn.execute(
            f"SELECT doc_id, vector FROM beliefs_g{self._g} WHERE tenant_id=? AND subject_id=? AND current=1"
            " AND vector IS NOT NULL ORDER BY doc_id",
            (self._tenant, subject_id),
        ).fetchall()
        rows = (
            np.vstack([np.frombuffer(blob, dtype=np.float32) for _, blob in found])
            if found
            else np.zeros((0, 1), dtype=np.float32)
        )
        built = _Matrix(revision, [doc_id for doc_id, _ in found], rows)
        with self._lock:
            self._cache[subject_id] = built
        return built

    def nearest(self, subject_id: str, vector: Sequence[float], k: int) -> list[tuple[float, str]]:
        """(score, doc_id) of the k nearest current beliefs, best first; ties break by doc_id."""
        matrix = self._load(subject_id)
        if not matrix.doc_ids or k <= 0:
            return []
        scores = matrix.rows @ np.asarray(vector, dtype=np.float32)
        top = np.argpartition(-scores, k - 1)[:k] if len(scores) > k else np.arange(len(scores))
        return sorted(((float(scores[i]), matrix.doc_ids[i]) for i in top), key=lambda p: (-p[0], p[1]))
