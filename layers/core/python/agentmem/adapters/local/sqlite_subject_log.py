"""The SQLite log, read and pruned by subject, for erasure and export.

Blob references are found through an index on the sha256 inside each event's blob pointer, over
every tenant in the file: the blob folder is shared by all of them."""

from __future__ import annotations

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_log import COLUMNS, row_to_event
from agentmem.errors import InvalidInputError
from agentmem.model.events import Event

BLOB_SHA = "json_extract(blob_json, '$.sha256')"
SCHEMA = f"CREATE INDEX IF NOT EXISTS events_by_blob ON events ({BLOB_SHA}) WHERE blob_json IS NOT NULL"


class SqliteSubjectLog:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        db.apply_schema(SCHEMA)

    def sessions(self, subject_id: str) -> list[str]:
        rows = self._db.connection().execute(
            "SELECT DISTINCT session_id FROM events WHERE tenant_id=? AND subject_id=? ORDER BY session_id",
            (self._tenant, subject_id),
        )
        return [session for (session,) in rows]

    def blob_hashes(self, subject_id: str) -> set[str]:
        rows = self._db.connection().execute(
            f"SELECT DISTINCT {BLOB_SHA} FROM events"
            " WHERE tenant_id=? AND subject_id=? AND blob_json IS NOT NULL",
            (self._tenant, subject_id),
        )
        return {sha for (sha,) in rows if sha}

    def blob_used_elsewhere(self, sha256: str, subject_id: str) -> bool:
        row = (
            self._db.connection()
            .execute(
                f"SELECT 1 FROM events WHERE blob_json IS NOT NULL AND {BLOB_SHA}=?"
                " AND NOT (tenant_id=? AND subject_id=?) LIMIT 1",
                (sha256, self._tenant, subject_id),
            )
            .fetchone()
        )
        return row is not None

    def forget(self, subject_id: str) -> int:
        with self._db.write() as conn:
            # Zero the freed cells, so the rows are gone from the file's bytes, not just unlinked.
            conn.execute("PRAGMA secure_delete=ON")
            try:
                removed = conn.execute(
                    "DELETE FROM events WHERE tenant_id=? AND subject_id=?", (self._tenant, subject_id)
                ).rowcount
            finally:
                conn.execute("PRAGMA secure_delete=OFF")
        return int(removed)

    def events(self, subject_id: str, after: str | None, limit: int) -> list[tuple[str, Event]]:
        try:
            position = int(after) if after else 0
        except ValueError as exc:
            raise InvalidInputError("cursor is not one this export handed out", field="cursor") from exc
        rows = self._db.connection().execute(
            f"SELECT position, {COLUMNS} FROM events"
            " WHERE tenant_id=? AND subject_id=? AND position>? ORDER BY position LIMIT ?",
            (self._tenant, subject_id, position, limit),
        )
        return [(str(row["position"]), row_to_event(row)) for row in rows]
