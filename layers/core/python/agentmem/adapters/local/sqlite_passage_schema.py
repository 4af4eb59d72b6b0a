"""The tables of one generation of the local passage index, and how its vector stamps are kept."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

SCHEMA = """
CREATE TABLE IF NOT EXISTS passages_g{g} (
    pid INTEGER PRIMARY KEY,
    tenant_id TEXT NOT NULL, subject_id TEXT NOT NULL, passage_id TEXT NOT NULL,
    session_id TEXT NOT NULL, body TEXT NOT NULL, vector BLOB NOT NULL,
    UNIQUE (tenant_id, subject_id, passage_id)
);
CREATE INDEX IF NOT EXISTS passages_g{g}_subject ON passages_g{g} (tenant_id, subject_id, pid);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts_g{g} USING fts5(
    text, scope, session, tokenize = 'porter unicode61'
);
CREATE TABLE IF NOT EXISTS passage_epochs_g{g} (
    tenant_id TEXT NOT NULL, subject_id TEXT NOT NULL, epoch INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, subject_id)
)
"""
PENDING = b""  # the vector column of a passage not embedded yet (NOT NULL in older data dirs)


class Stamps:
    """Hands out each subject's next `embedded` stamp inside one write transaction (writers are
    serialised, so a subject's stamps only ever grow, which its matrices rely on)."""

    def __init__(self, conn: sqlite3.Connection, g: int, tenant_id: str) -> None:
        self._conn, self._g, self._tenant = conn, g, tenant_id
        self._last: dict[str, int] = {}

    def next(self, subject_id: str) -> int:
        last = self._last.get(subject_id)
        if last is None:
            (found,) = self._conn.execute(
                f"SELECT MAX(embedded) FROM passages_g{self._g} WHERE tenant_id=? AND subject_id=?",
                (self._tenant, subject_id),
            ).fetchone()
            last = int(found or 0)
        self._last[subject_id] = last + 1
        return last + 1


def vector_stamps(g: int) -> Callable[[sqlite3.Connection], None]:
    """Migration 1 of generation `g`: the `embedded` stamp, given to every vector already there."""

    def step(conn: sqlite3.Connection) -> None:
        conn.execute(f"ALTER TABLE passages_g{g} ADD COLUMN embedded INTEGER")
        conn.execute(f"UPDATE passages_g{g} SET embedded = pid")
        conn.execute(
            f"CREATE INDEX passages_g{g}_embedded ON passages_g{g} (tenant_id, subject_id, embedded)"
        )
        # Pending rows only: the lane's oldest-first scan reads this small index, not the table.
        conn.execute(
            f"CREATE INDEX passages_g{g}_pending ON passages_g{g} (tenant_id, pid) WHERE embedded IS NULL"
        )

    return step
