"""The vector cache in the data dir's SQLite file: one row per (model, content hash), and one per
subject that owns it.

It lives beside the generations, in no generation of its own, so a replay or a shadow build into
a new generation finds every vector the old one computed. A vector is stored as float32 when
that keeps every float exactly, else as float64 (agentmem.adapters.vector_bytes), so what `get`
returns is always exactly what `put` was given."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Mapping, Sequence
from itertools import islice

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.vector_bytes import decode, encode
from agentmem.errors import BackendUnavailableError
from agentmem.ports.vectors import VectorKey

logger = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS vector_cache (
    tenant_id TEXT NOT NULL, model TEXT NOT NULL, digest TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (tenant_id, model, digest)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vector_cache_owners (
    tenant_id TEXT NOT NULL, subject_id TEXT NOT NULL, model TEXT NOT NULL, digest TEXT NOT NULL,
    PRIMARY KEY (tenant_id, subject_id, model, digest)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS vector_cache_owners_by_digest ON vector_cache_owners (tenant_id, model, digest)
"""
CHUNK = 500  # digests per lookup, well under SQLite's variable limit on any build

# A vector goes with its last owner: none of the owners left may still say its text.
_UNOWNED = """
DELETE FROM vector_cache WHERE tenant_id = :tenant AND (model, digest) IN (
    SELECT model, digest FROM vector_cache_owners WHERE tenant_id = :tenant AND subject_id = :subject
) AND NOT EXISTS (
    SELECT 1 FROM vector_cache_owners o WHERE o.tenant_id = :tenant AND o.model = vector_cache.model
    AND o.digest = vector_cache.digest AND o.subject_id <> :subject
)
"""


class SqliteVectorCache:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        db.apply_schema(SCHEMA)

    def get(self, model: str, digests: Sequence[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        wanted = iter(dict.fromkeys(digests))
        conn = self._db.connection()
        while chunk := list(islice(wanted, CHUNK)):
            try:
                rows = conn.execute(
                    "SELECT digest, vector FROM vector_cache WHERE tenant_id=? AND model=?"
                    f" AND digest IN ({', '.join('?' * len(chunk))})",
                    [self._tenant, model, *chunk],
                ).fetchall()
            except sqlite3.OperationalError as exc:  # busy past the timeout: the caller embeds instead
                raise BackendUnavailableError(f"vector cache not read: {exc}") from exc
            found.update((digest, decode(blob)) for digest, blob in rows)
        return found

    def put(self, model: str, vectors: Mapping[VectorKey, Sequence[float]]) -> int:
        if not vectors:
            return 0
        by_digest = {digest: encode(vector) for (_, digest), vector in vectors.items()}
        with self._db.write() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO vector_cache VALUES (?, ?, ?, ?)",
                [(self._tenant, model, digest, blob) for digest, blob in by_digest.items()],
            )
            conn.executemany(
                "INSERT OR IGNORE INTO vector_cache_owners VALUES (?, ?, ?, ?)",
                [(self._tenant, subject, model, digest) for subject, digest in vectors],
            )
        return len(vectors)

    def forget_subject(self, subject_id: str) -> int:
        with self._db.write() as conn:
            conn.execute(_UNOWNED, {"tenant": self._tenant, "subject": subject_id})
            removed = conn.execute(
                "DELETE FROM vector_cache_owners WHERE tenant_id=? AND subject_id=?",
                (self._tenant, subject_id),
            ).rowcount
        if removed:
            logger.info("cached vectors forgotten", extra={"entries": removed})
        return int(removed)
