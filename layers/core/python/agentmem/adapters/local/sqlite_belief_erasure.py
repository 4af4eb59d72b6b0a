"""Erase one subject from every generation of the local belief index, and from the observation
snapshot that retention keeps, leaving nothing of it in the file's bytes.

Deleted rows are zeroed in place (secure_delete). FTS5 keeps the words of a deleted row in its
index segments until they are merged, so each generation's keyword index is optimized (merged
into one segment) after the delete. The caller compacts the file afterwards (SqliteDatabase.compact)."""

from __future__ import annotations

import re
import sqlite3

from agentmem.adapters.local.sqlite_db import SqliteDatabase

GENERATION_TABLE = re.compile(r"beliefs_g(\d+)")
PER_GENERATION = ("observations", "chains", "beliefs", "fts_rows", "subject_revisions")
SNAPSHOT_TABLE = "observation_snapshot"


def generations(conn: sqlite3.Connection) -> list[int]:
    """Every generation whose tables exist, active or not: replay leaves the old ones behind."""
    names = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    return sorted(int(m.group(1)) for name in names if (m := GENERATION_TABLE.fullmatch(name)))


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)).fetchone()
    return found is not None


def forget_subject(db: SqliteDatabase, tenant_id: str, subject_id: str) -> int:
    """Rows removed, over every generation."""
    scope = (tenant_id, subject_id)
    removed = 0
    touched: list[int] = []
    with db.write() as conn:
        conn.execute("PRAGMA secure_delete=ON")
        try:
            for g in generations(conn):
                # The keyword rows first, by subject: the unindexed column means a scan, which
                # also catches a row whose rowid map entry went missing.
                held = conn.execute(
                    f"DELETE FROM beliefs_fts_g{g} WHERE tenant_id=? AND subject_id=?", scope
                ).rowcount
                for table in PER_GENERATION:
                    held += conn.execute(
                        f"DELETE FROM {table}_g{g} WHERE tenant_id=? AND subject_id=?", scope
                    ).rowcount
                if held:
                    touched.append(g)
                removed += held
            if _has_table(conn, SNAPSHOT_TABLE):
                removed += conn.execute(
                    f"DELETE FROM {SNAPSHOT_TABLE} WHERE tenant_id=? AND subject_id=?", scope
                ).rowcount
            for g in touched:
                conn.execute(f"INSERT INTO beliefs_fts_g{g}(beliefs_fts_g{g}) VALUES ('optimize')")
        finally:
            conn.execute("PRAGMA secure_delete=OFF")
    return removed
