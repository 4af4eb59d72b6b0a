"""The erasure ledger on SQLite: one tombstone per erased subject (by keyed hash, never the id)
and one record per erasure. The event log checks the tombstone inside its append transaction,
so an append and an erasure of the same subject are serialised by the database's write lock."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.errors import NotFoundError, SubjectErasedError
from agentmem.subjects.identity import subject_hash
from agentmem.subjects.model import ErasureRecord

SCHEMA = """
CREATE TABLE IF NOT EXISTS erasure_tombstones (
    tenant_id TEXT NOT NULL, subject_hash TEXT NOT NULL, erasure_id TEXT NOT NULL, erased_at TEXT NOT NULL,
    PRIMARY KEY (tenant_id, subject_hash)
);
CREATE TABLE IF NOT EXISTS erasures (
    tenant_id TEXT NOT NULL, erasure_id TEXT NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (tenant_id, erasure_id)
)
"""
MAX_PARAMS = 500  # well under SQLite's limit of bound parameters per statement


def refuse_if_erased(conn: sqlite3.Connection, tenant_id: str, subject_id: str) -> None:
    """Inside the caller's write transaction: the append's own check."""
    found = conn.execute(
        "SELECT 1 FROM erasure_tombstones WHERE tenant_id=? AND subject_hash=?",
        (tenant_id, subject_hash(tenant_id, subject_id)),
    ).fetchone()
    if found is not None:
        raise SubjectErasedError(f"subject {subject_id} was erased; write about a new subject id instead")


class SqliteErasureLedger:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        db.apply_schema(SCHEMA)

    def open(self, subject_id: str, record: ErasureRecord) -> ErasureRecord:
        hashed = subject_hash(self._tenant, subject_id)
        with self._db.write() as conn:
            row = conn.execute(
                "SELECT erasure_id FROM erasure_tombstones WHERE tenant_id=? AND subject_hash=?",
                (self._tenant, hashed),
            ).fetchone()
            if row is not None:
                return self._get(conn, row[0])
            conn.execute(
                "INSERT INTO erasure_tombstones VALUES (?,?,?,?)",
                (self._tenant, hashed, record.erasure_id, record.requested_at),
            )
            conn.execute(
                "INSERT INTO erasures VALUES (?,?,?)",
                (self._tenant, record.erasure_id, record.model_dump_json()),
            )
        return record

    def _get(self, conn: sqlite3.Connection, erasure_id: str) -> ErasureRecord:
        row = conn.execute(
            "SELECT record FROM erasures WHERE tenant_id=? AND erasure_id=?", (self._tenant, erasure_id)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no erasure {erasure_id}", field="erasure_id")
        return ErasureRecord.model_validate_json(row[0])

    def get(self, erasure_id: str) -> ErasureRecord:
        return self._get(self._db.connection(), erasure_id)

    def save(self, record: ErasureRecord) -> None:
        with self._db.write() as conn:
            conn.execute(
                "UPDATE erasures SET record=? WHERE tenant_id=? AND erasure_id=?",
                (record.model_dump_json(), self._tenant, record.erasure_id),
            )

    def erased(self, subject_ids: Collection[str]) -> set[str]:
        by_hash = {subject_hash(self._tenant, s): s for s in set(subject_ids)}
        found: set[str] = set()
        hashes = sorted(by_hash)
        conn = self._db.connection()
        for start in range(0, len(hashes), MAX_PARAMS):
            chunk = hashes[start : start + MAX_PARAMS]
            rows = conn.execute(
                "SELECT subject_hash FROM erasure_tombstones WHERE tenant_id=?"
                f" AND subject_hash IN ({','.join('?' * len(chunk))})",
                (self._tenant, *chunk),
            )
            found.update(by_hash[h] for (h,) in rows)
        return found
