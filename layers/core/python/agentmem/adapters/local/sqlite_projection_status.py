"""ProjectionStatusStore on SQLite: one row per tenant in the data dir's database, so `agentmem
serve`, a `Memory` and `agentmem project` on one folder all see what the projector last said."""

from __future__ import annotations

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.model.projection import ProjectionStatus


class SqliteProjectionStatus:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        db.apply_schema(
            "CREATE TABLE IF NOT EXISTS projection_status ( tenant_id TEXT PRIMARY KEY, body TEXT NOT NULL)"
        )

    def load(self) -> ProjectionStatus:
        # Read on every context read: one primary-key lookup on a table of one row per tenant.
        row = (
            self._db.connection()
            .execute("SELECT body FROM projection_status WHERE tenant_id=?", (self._tenant,))
            .fetchone()
        )
        return ProjectionStatus.model_validate_json(row[0]) if row else ProjectionStatus()

    def save(self, status: ProjectionStatus) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO projection_status VALUES (?,?) ON CONFLICT DO UPDATE SET body=excluded.body",
                (self._tenant, status.model_dump_json()),
            )
