"""Generations of the local passage index, beside the belief generations of the same number.
A one-row pointer says which one readers use, so replay builds `g+1` and switches in one commit."""

from __future__ import annotations

import re
import threading

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_passage_schema import Stamps
from agentmem.adapters.local.sqlite_passages import SqlitePassageIndex, session_token

SCHEMA = """
CREATE TABLE IF NOT EXISTS passage_generations (tenant_id TEXT PRIMARY KEY, active INTEGER NOT NULL)
"""
_GENERATION_TABLE = re.compile(r"passages_g(\d+)")


class SqlitePassageStore:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        self._indexes: dict[int, SqlitePassageIndex] = {}
        self._lock = threading.Lock()
        db.apply_schema(SCHEMA)
        with db.write() as conn:
            conn.execute("INSERT OR IGNORE INTO passage_generations VALUES (?, 1)", (tenant_id,))

    def generation(self, generation: int) -> SqlitePassageIndex:
        with self._lock:
            index = self._indexes.get(generation)
            if index is None:
                index = self._indexes[generation] = SqlitePassageIndex(self._db, self._tenant, generation)
            return index

    def active(self) -> SqlitePassageIndex:
        (active,) = (
            self._db.connection()
            .execute("SELECT active FROM passage_generations WHERE tenant_id=?", (self._tenant,))
            .fetchone()
        )
        return self.generation(int(active))

    def activate(self, generation: int) -> None:
        self.generation(generation)  # readers never find a generation without its tables
        with self._db.write() as conn:
            conn.execute(
                "UPDATE passage_generations SET active=? WHERE tenant_id=?", (generation, self._tenant)
            )

    def copy_other_subjects(self, source: int, target: int, subject_id: str) -> None:
        """A passage still waiting for its vector is copied as pending: the lane (or the
        replay's own catch-up) embeds it in `target` too."""
        src, dst = self.generation(source), self.generation(target)
        with self._db.write() as conn:
            stamps = Stamps(conn, dst.generation, self._tenant)
            rows = conn.execute(
                f"SELECT pid, subject_id, passage_id, session_id, body, vector, embedded"
                f" FROM passages_g{src.generation} WHERE tenant_id=? AND subject_id<>? ORDER BY pid",
                (self._tenant, subject_id),
            ).fetchall()
            for pid, subject, passage_id, session, body, vector, embedded in rows:
                cursor = conn.execute(
                    f"INSERT OR IGNORE INTO passages_g{dst.generation} (tenant_id, subject_id, passage_id,"
                    " session_id, body, vector, embedded) VALUES (?,?,?,?,?,?,?)",
                    (
                        self._tenant,
                        subject,
                        passage_id,
                        session,
                        body,
                        vector,
                        None if embedded is None else stamps.next(subject),
                    ),
                )
                if cursor.rowcount == 1:
                    (text, scope) = conn.execute(
                        f"SELECT text, scope FROM passages_fts_g{src.generation} WHERE rowid = ?", (pid,)
                    ).fetchone()
                    conn.execute(
                        f"INSERT INTO passages_fts_g{dst.generation}(rowid, text, scope, session)"
                        " VALUES (?,?,?,?)",
                        (cursor.lastrowid, text, scope, session_token(session)),
                    )

    def _generations(self) -> list[int]:
        rows = self._db.connection().execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'passages_g%'"
        )
        return sorted(int(m.group(1)) for (name,) in rows if (m := _GENERATION_TABLE.fullmatch(name)))

    def erase_subject(self, subject_id: str) -> int:
        """Every generation in one transaction: no reader sees the subject gone from one only."""
        indexes = [self.generation(g) for g in self._generations()]
        with self._db.write() as conn:
            return sum(index.erase_in(conn, subject_id) for index in indexes)
