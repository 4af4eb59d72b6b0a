"""Generations of the local belief index. Each generation has its own tables; a one-row pointer
says which one readers use, so a replay builds `g+1` beside `g` and switches in one commit."""

from __future__ import annotations

import threading

from agentmem.adapters.local.sqlite_belief_erasure import forget_subject
from agentmem.adapters.local.sqlite_beliefs import SqliteBeliefIndex
from agentmem.adapters.local.sqlite_db import SqliteDatabase

SCHEMA = """
CREATE TABLE IF NOT EXISTS belief_generations (
    tenant_id TEXT PRIMARY KEY, active INTEGER NOT NULL, latest INTEGER NOT NULL
)
"""


class SqliteBeliefStore:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        self._indexes: dict[int, SqliteBeliefIndex] = {}
        self._lock = threading.Lock()
        db.apply_schema(SCHEMA)
        with db.write() as conn:
            conn.execute("INSERT OR IGNORE INTO belief_generations VALUES (?, 1, 1)", (tenant_id,))

    def _index(self, generation: int) -> SqliteBeliefIndex:
        with self._lock:
            index = self._indexes.get(generation)
            if index is None:
                index = SqliteBeliefIndex(self._db, self._tenant, generation)
                self._indexes[generation] = index
            return index

    def active_generation(self) -> int:
        (active,) = (
            self._db.connection()
            .execute("SELECT active FROM belief_generations WHERE tenant_id=?", (self._tenant,))
            .fetchone()
        )
        return int(active)

    def active(self) -> SqliteBeliefIndex:
        return self._index(self.active_generation())

    def ensure_ready(self) -> None:
        """Nothing to do: `__init__` already created the pointer row."""

    def new_generation(self) -> SqliteBeliefIndex:
        with self._db.write() as conn:
            conn.execute(
                "UPDATE belief_generations SET latest = latest + 1 WHERE tenant_id=?", (self._tenant,)
            )
            (latest,) = conn.execute(
                "SELECT latest FROM belief_generations WHERE tenant_id=?", (self._tenant,)
            ).fetchone()
        return self._index(int(latest))

    def generation(self, generation: int) -> SqliteBeliefIndex:
        return self._index(generation)

    def activate(self, generation: int) -> None:
        with self._db.write() as conn:
            conn.execute(
                "UPDATE belief_generations SET active=? WHERE tenant_id=?", (generation, self._tenant)
            )

    def forget_subject(self, subject_id: str) -> int:
        """Erase the subject from every generation (and this process's vector caches)."""
        removed = forget_subject(self._db, self._tenant, subject_id)
        with self._lock:
            indexes = list(self._indexes.values())
        for index in indexes:
            index.forget_cached(subject_id)
        return removed

    def copy_other_subjects(self, source: int, target: int, subject_id: str) -> None:
        """Copy every subject but `subject_id` from generation `source` into `target`, in one
        transaction, so a single-subject replay rebuilds only that subject."""
        tables = ("observations", "chains", "beliefs", "subject_revisions")
        with self._db.write() as conn:
            for table in tables:
                conn.execute(
                    f"INSERT INTO {table}_g{int(target)} SELECT * FROM {table}_g{int(source)}"
                    " WHERE tenant_id=? AND subject_id<>?",
                    (self._tenant, subject_id),
                )
            # Keyword rows get new rowids in the target, so their rowid map is rebuilt with them.
            rows = conn.execute(
                f"SELECT text, scope, tenant_id, subject_id, doc_id FROM beliefs_fts_g{int(source)}"
                " WHERE tenant_id=? AND subject_id<>?",
                (self._tenant, subject_id),
            ).fetchall()
            for text, scope, tenant, subject, doc_id in rows:
                cursor = conn.execute(f"INSERT INTO beliefs_fts_g{int(target)} VALUES (?,?,?,?,?)",
                                      (text, scope, tenant, subject, doc_id))  # fmt: skip
                conn.execute(f"INSERT INTO fts_rows_g{int(target)} VALUES (?,?,?,?)",
                             (tenant, subject, doc_id, cursor.lastrowid))  # fmt: skip
