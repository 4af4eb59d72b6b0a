"""Retention on SQLite: the worker's sweep of raw events past the tenant's retention, and the
snapshot of observations it keeps so that beliefs survive their events, even through a replay.

Only events the active generation has projected are expired, and in the same transaction that
deletes them their observations are copied into the snapshot: there is no moment at which an
event is gone and what it stated is not kept. Blobs go only when no event left points at them."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

from agentmem.adapters.local.sqlite_belief_erasure import SNAPSHOT_TABLE
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_subject_log import BLOB_SHA
from agentmem.adapters.local.sqlite_subject_log import SCHEMA as BLOB_INDEX
from agentmem.model.beliefs import Observation
from agentmem.ports.blobs import BlobStore

logger = logging.getLogger(__name__)

# Pages resume after the last row by its whole key: one event states several facts (and a set
# fact several members), so resuming after (order_key, event_id) alone would skip the rest of an
# event's observations whenever a page ended inside it.
PAGE_ORDER = ("order_key", "event_id", "subject_id", "key", "member")
PAGE_ORDER_SQL = ", ".join(("tenant_id", *PAGE_ORDER))
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {SNAPSHOT_TABLE} (
    tenant_id TEXT NOT NULL, subject_id TEXT NOT NULL, key TEXT NOT NULL, member TEXT NOT NULL,
    event_id TEXT NOT NULL, order_key TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, subject_id, key, member, event_id)
);
DROP INDEX IF EXISTS {SNAPSHOT_TABLE}_in_order;
CREATE INDEX IF NOT EXISTS {SNAPSHOT_TABLE}_in_page_order ON {SNAPSHOT_TABLE} ({PAGE_ORDER_SQL})
"""
# Only a deployment with retention pays for this index on every append.
EXPIRY_INDEX = "CREATE INDEX IF NOT EXISTS events_by_created ON events (tenant_id, created_at)"
BATCH = 500


def iso(moment: datetime) -> str:
    """The log's own timestamp format (EpisodicService.utc_now_iso), so the two compare as text."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class SqliteObservationSnapshot:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        db.apply_schema(SCHEMA)

    def pages(self, subject_id: str | None = None, size: int = BATCH) -> Iterator[list[Observation]]:
        columns = ", ".join(PAGE_ORDER)
        subject = "" if subject_id is None else " AND subject_id=?"
        after: tuple[str, ...] = ("",) * len(PAGE_ORDER)
        while True:
            params: list[object] = [self._tenant, *after, *([] if subject_id is None else [subject_id]), size]
            rows = (
                self._db.connection()
                .execute(
                    f"SELECT {columns}, body FROM {SNAPSHOT_TABLE} WHERE tenant_id=?"
                    f" AND ({columns}) > ({', '.join('?' * len(PAGE_ORDER))}){subject}"
                    f" ORDER BY {columns} LIMIT ?",
                    params,
                )
                .fetchall()
            )
            if not rows:
                return
            yield [Observation.model_validate_json(row[-1]) for row in rows]
            after = tuple(rows[-1][: len(PAGE_ORDER)])


class SqliteRetention:
    def __init__(
        self,
        db: SqliteDatabase,
        tenant_id: str,
        blobs: BlobStore,
        *,
        retention_days: int,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._db = db
        self._tenant = tenant_id
        self._blobs = blobs
        self._retention = timedelta(days=retention_days)
        self._now = now
        db.apply_schema(SCHEMA)
        db.apply_schema(BLOB_INDEX)
        db.apply_schema(EXPIRY_INDEX)

    def sweep(self, projected_up_to: int, generation: int) -> int:
        cutoff = iso(self._now() - self._retention)
        observations = f"observations_g{int(generation)}"
        self._db.apply_schema(
            f"CREATE INDEX IF NOT EXISTS {observations}_by_event ON {observations} (tenant_id, event_id)"
        )
        expired = 0
        while batch := self._expire_batch(cutoff, projected_up_to, observations):
            expired += batch
        if expired:
            logger.info("retention expired events", extra={"events": expired, "cutoff": cutoff})
        return expired

    def _expire_batch(self, cutoff: str, projected_up_to: int, observations: str) -> int:
        with self._db.write() as conn:
            rows = conn.execute(
                f"SELECT position, event_id, {BLOB_SHA} FROM events"
                " WHERE tenant_id=? AND created_at<? AND position<=? ORDER BY created_at LIMIT ?",
                (self._tenant, cutoff, projected_up_to, BATCH),
            ).fetchall()
            if not rows:
                return 0
            ids = [event_id for _, event_id, _ in rows]
            marks = ",".join("?" * len(ids))
            conn.execute(
                f"INSERT OR IGNORE INTO {SNAPSHOT_TABLE} SELECT tenant_id, subject_id, key, member,"
                f" event_id, order_key, body FROM {observations} WHERE tenant_id=? AND event_id IN ({marks})",
                (self._tenant, *ids),
            )
            conn.execute(
                f"DELETE FROM events WHERE position IN ({marks})", [position for position, _, _ in rows]
            )
            shas = sorted({sha for _, _, sha in rows if sha})
        for sha in shas:
            still_used = (
                self._db.connection()
                .execute(f"SELECT 1 FROM events WHERE blob_json IS NOT NULL AND {BLOB_SHA}=? LIMIT 1", (sha,))
                .fetchone()
            )
            if still_used is None:
                self._blobs.delete(sha)
        return len(rows)
