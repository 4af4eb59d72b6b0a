"""Exact cosine search over one subject's current belief vectors, held as an in-memory matrix.

Every chain write stamps its rows with the subject's new revision. A search first reads that
revision; if the cached matrix is behind, only the rows written since are fetched and patched in
(a current belief keeps its doc id across versions, so rows are replaced or appended, never
removed). A search therefore costs one indexed lookup plus one matrix-vector product, even
while a projector keeps writing to the subject."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from agentmem.adapters.local.blas import single_threaded_blas
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.vector_size import sized


class _Matrix:
    def __init__(self, dimensions: int) -> None:
        self.revision = 0
        self.doc_ids: list[str] = []
        self.position: dict[str, int] = {}
        self.rows: Any = np.zeros((16, dimensions), dtype=np.float32)

    def put(self, doc_id: str, vector: Any) -> None:
        at = self.position.get(doc_id)
        if at is None:
            at = len(self.doc_ids)
            if at == len(self.rows):  # grow by doubling: appends stay amortised O(1)
                self.rows = np.vstack([self.rows, np.zeros_like(self.rows)])
            self.doc_ids.append(doc_id)
            self.position[doc_id] = at
        self.rows[at] = sized(vector, self.rows.shape[1], "belief index")


class SubjectVectors:
    def __init__(self, db: SqliteDatabase, tenant_id: str, generation: int) -> None:
        self._db = db
        self._tenant = tenant_id
        self._g = generation
        self._cache: dict[str, _Matrix] = {}
        self._lock = threading.Lock()  # one catch-up at a time; the others then find it current
        single_threaded_blas()

    def _current(self, subject_id: str) -> _Matrix | None:
        conn = self._db.connection()
        row = conn.execute(
            f"SELECT revision FROM subject_revisions_g{self._g} WHERE tenant_id=? AND subject_id=?",
            (self._tenant, subject_id),
        ).fetchone()
        revision = row[0] if row else 0
        with self._lock:
            if revision == 0:
                # No revision row: the subject has no beliefs, or was erased by another process.
                self._cache.pop(subject_id, None)
                return None
            matrix = self._cache.get(subject_id)
            if matrix is not None and matrix.revision >= revision:
                return matrix
            changed = conn.execute(
                f"SELECT doc_id, vector FROM beliefs_g{self._g}"
                " WHERE tenant_id=? AND subject_id=? AND current=1"
                " AND vector IS NOT NULL AND written_rev > ? AND written_rev <= ? ORDER BY doc_id",
                (self._tenant, subject_id, matrix.revision if matrix else 0, revision),
            ).fetchall()
            for doc_id, blob in changed:
                vector = np.frombuffer(blob, dtype=np.float32)
                if matrix is None:
                    matrix = self._cache[subject_id] = _Matrix(len(vector))
                matrix.put(doc_id, vector)
            if matrix is not None:
                matrix.revision = revision
            return matrix

    def forget(self, subject_id: str) -> None:
        with self._lock:
            self._cache.pop(subject_id, None)

    def nearest(self, subject_id: str, vector: Sequence[float], k: int) -> list[tuple[float, str]]:
        """(score, doc_id) of the k nearest current beliefs, best first; ties break by doc_id."""
        matrix = self._current(subject_id)
        if matrix is None or not matrix.doc_ids or k <= 0:
            return []
        scores = matrix.rows[: len(matrix.doc_ids)] @ sized(vector, matrix.rows.shape[1], "belief index")
        top = np.argpartition(-scores, k - 1)[:k] if len(scores) > k else np.arange(len(scores))
        return sorted(((float(scores[i]), matrix.doc_ids[i]) for i in top), key=lambda p: (-p[0], p[1]))
