"""The local search index of the skill library: approved functions and guidance only, each as one
text with its embedding (a float32 BLOB) and an FTS5 row, in the same SQLite file as the library.

The index does not watch the library: `procedural.search.SkillSearch` brings it up to date on each
search by comparing the library's stamps (version, status, updated_at) with the stamps stored
here, so only what changed since is re-embedded. Every write bumps a per-tenant revision; the
in-memory vector matrix is rebuilt only when that revision moved, so a search that finds the index
current costs one lookup plus one matrix-vector product."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from agentmem.adapters.local.fts import fts_query, scope_token
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.ports.procedural import IndexedSkill, SkillKey

SCHEMA = """
CREATE TABLE IF NOT EXISTS skill_index (
    tenant_id TEXT NOT NULL, kind TEXT NOT NULL, skill_id TEXT NOT NULL, stamp TEXT NOT NULL,
    text TEXT NOT NULL, vector BLOB NOT NULL, fts_rowid INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, kind, skill_id)
);
CREATE VIRTUAL TABLE IF NOT EXISTS skill_index_fts USING fts5(
    text, scope, kind UNINDEXED, skill_id UNINDEXED, tokenize = 'porter unicode61'
);
CREATE TABLE IF NOT EXISTS skill_index_revisions (
    tenant_id TEXT NOT NULL PRIMARY KEY, revision INTEGER NOT NULL
)
"""


class SqliteSkillIndex:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        self._scope = scope_token(tenant_id, "\x00skills")
        self._lock = threading.Lock()
        self._revision = -1
        self._keys: list[SkillKey] = []
        self._matrix: Any = np.zeros((0, 0), dtype=np.float32)
        self._stamps_revision = -1
        self._stamps: dict[SkillKey, str] = {}
        db.apply_schema(SCHEMA)

    def ensure_ready(self) -> None:
        """Nothing to do: the schema is applied when the index is opened."""

    def _revision_now(self, conn: sqlite3.Connection) -> int:
        row = conn.execute(
            "SELECT revision FROM skill_index_revisions WHERE tenant_id=?", (self._tenant,)
        ).fetchone()
        return int(row[0]) if row else 0

    def stamps(self) -> dict[SkillKey, str]:
        """Every indexed item with its stamp. Read again only when the revision moved (every write
        bumps it, whichever process wrote): each local search compares these with the library's,
        and reading thousands of rows each time cost more than the rest of the comparison."""
        conn = self._db.connection()
        revision = self._revision_now(conn)
        with self._lock:
            if revision != self._stamps_revision:
                rows = conn.execute(
                    "SELECT kind, skill_id, stamp FROM skill_index WHERE tenant_id=?", (self._tenant,)
                )
                self._stamps = {(kind, skill_id): stamp for kind, skill_id, stamp in rows}
                self._stamps_revision = revision
            return dict(self._stamps)

    def update(self, put: Sequence[IndexedSkill], remove: Sequence[SkillKey]) -> None:
        """Write `put` (replacing rows of the same key) and delete `remove`, in one transaction."""
        if not put and not remove:
            return
        with self._db.write() as conn:
            for key in [*remove, *((s.kind, s.skill_id) for s in put)]:
                row = conn.execute(
                    "DELETE FROM skill_index WHERE tenant_id=? AND kind=? AND skill_id=? RETURNING fts_rowid",
                    (self._tenant, *key),
                ).fetchone()
                if row is not None:
                    conn.execute("DELETE FROM skill_index_fts WHERE rowid=?", (row[0],))
            for s in put:
                fts_rowid = conn.execute(
                    "INSERT INTO skill_index_fts (text, scope, kind, skill_id) VALUES (?,?,?,?)",
                    (s.text, self._scope, s.kind, s.skill_id),
                ).lastrowid
                conn.execute(
                    "INSERT INTO skill_index VALUES (?,?,?,?,?,?,?)",
                    (
                        self._tenant,
                        s.kind,
                        s.skill_id,
                        s.stamp,
                        s.text,
                        np.asarray(s.vector, dtype=np.float32).tobytes(),
                        fts_rowid,
                    ),
                )
            conn.execute(
                "INSERT INTO skill_index_revisions VALUES (?, 1) ON CONFLICT (tenant_id)"
                " DO UPDATE SET revision = revision + 1",
                (self._tenant,),
            )

    def _current(self) -> tuple[list[SkillKey], Any]:
        conn = self._db.connection()
        revision = self._revision_now(conn)
        with self._lock:
            if revision != self._revision:
                rows = conn.execute(
                    "SELECT kind, skill_id, vector FROM skill_index WHERE tenant_id=?"
                    " ORDER BY kind, skill_id",
                    (self._tenant,),
                ).fetchall()
                self._keys = [(kind, skill_id) for kind, skill_id, _ in rows]
                vectors = [np.frombuffer(blob, dtype=np.float32) for _, _, blob in rows]
                self._matrix = np.vstack(vectors) if vectors else np.zeros((0, 0), dtype=np.float32)
                self._revision = revision
            return self._keys, self._matrix

    def vector_search(self, vector: Sequence[float], k: int) -> list[SkillKey]:
        """The k nearest items by cosine (vectors are normalised), best first; ties by key."""
        keys, matrix = self._current()
        if not keys or k <= 0:
            return []
        scores = matrix @ np.asarray(vector, dtype=np.float32)
        candidates: Any = range(len(keys))
        if k < len(keys):
            # Only items scoring at least the k-th best score can be in the top k; keeping every
            # one of them (ties included) keeps the tie-break by key exact, and sorting those few
            # instead of all items is what makes this fast.
            kth = np.partition(scores, len(keys) - k)[len(keys) - k]
            candidates = np.flatnonzero(scores >= kth)
        ranked = sorted(candidates, key=lambda i: (-float(scores[i]), keys[i]))
        return [keys[i] for i in ranked[:k]]

    def keyword_search(self, text: str, k: int) -> list[SkillKey]:
        """The k best BM25 matches (FTS5 rank), best first; ties by key."""
        match = fts_query(text, self._scope)
        if not match or k <= 0:
            return []
        # Ties are broken inside the query: a cut before the tie-break would settle a tie at the
        # k-th place by insertion order.
        rows = self._db.connection().execute(
            "SELECT kind, skill_id FROM skill_index_fts WHERE skill_index_fts MATCH ?"
            " ORDER BY rank, kind, skill_id LIMIT ?",
            (match, k),
        )
        return [(kind, skill_id) for kind, skill_id in rows.fetchall()]
