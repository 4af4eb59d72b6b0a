"""The shadow builds of one tenant, in the shared SQLite file beside the generations they describe."""

from __future__ import annotations

import json
from collections.abc import Mapping

from pydantic import JsonValue

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.model.generations import ShadowBuild

SCHEMA = """
CREATE TABLE IF NOT EXISTS shadow_builds (
    tenant_id TEXT NOT NULL, generation INTEGER NOT NULL, live_generation INTEGER NOT NULL,
    overrides TEXT NOT NULL, settings TEXT NOT NULL, state TEXT NOT NULL, events_read INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, generation)
)
"""
COLUMNS = "generation, live_generation, overrides, settings, state, events_read"


class SqliteShadowLedger:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        db.apply_schema(SCHEMA)

    def begin(
        self,
        generation: int,
        live_generation: int,
        overrides: Mapping[str, str],
        settings: Mapping[str, JsonValue],
    ) -> ShadowBuild:
        given, effective = (json.dumps(dict(m), sort_keys=True) for m in (overrides, settings))
        with self._db.write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO shadow_builds VALUES (?,?,?,?,?,'building',0)",
                (self._tenant, generation, live_generation, given, effective),
            )
        return self._require(generation)

    def complete(self, generation: int, events_read: int) -> ShadowBuild:
        with self._db.write() as conn:
            updated = conn.execute(
                "UPDATE shadow_builds SET state='complete', events_read=? WHERE tenant_id=? AND generation=?",
                (events_read, self._tenant, generation),
            ).rowcount
        if not updated:
            raise KeyError(f"no shadow build of generation {generation} was begun")
        return self._require(generation)

    def get(self, generation: int) -> ShadowBuild | None:
        row = (
            self._db.connection()
            .execute(
                f"SELECT {COLUMNS} FROM shadow_builds WHERE tenant_id=? AND generation=?",
                (self._tenant, generation),
            )
            .fetchone()
        )
        return _build(row) if row else None

    def builds(self) -> list[ShadowBuild]:
        rows = self._db.connection().execute(
            f"SELECT {COLUMNS} FROM shadow_builds WHERE tenant_id=? ORDER BY generation", (self._tenant,)
        )
        return [_build(row) for row in rows]

    def _require(self, generation: int) -> ShadowBuild:
        found = self.get(generation)
        assert found is not None  # written in the transaction just committed
        return found


def _build(row: tuple[int, int, str, str, str, int]) -> ShadowBuild:
    generation, live, overrides, settings, state, events = row
    return ShadowBuild.model_validate(
        {"generation": generation, "live_generation": live, "overrides": json.loads(overrides),
         "settings": json.loads(settings),
         "state": state, "events_read": events}
    )  # fmt: skip
