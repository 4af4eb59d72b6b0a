"""DependentsIndex on SQLite: one row per (dependent, belief) use, indexed by belief, so the
projection step that moves a belief finds its dependents with one indexed query.

A dependent recorded with a ttl carries `expires_at` (epoch seconds) on its rows: reads and
marks skip it from then on, and `expire` (the projector worker's sweep) deletes it."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from datetime import timedelta

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.model.dependents import ERASED, BeliefRef, BeliefUse, Staleness, stale_after

SCHEMA = """
CREATE TABLE IF NOT EXISTS dependent_uses (
    tenant_id TEXT NOT NULL, dependent TEXT NOT NULL,
    subject_id TEXT NOT NULL, key TEXT NOT NULL, member TEXT NOT NULL,
    version INTEGER NOT NULL, stale TEXT,
    PRIMARY KEY (tenant_id, dependent, subject_id, key, member));
CREATE INDEX IF NOT EXISTS dependent_uses_by_belief ON dependent_uses (tenant_id, subject_id, key, member);
CREATE TABLE IF NOT EXISTS dependent_bodies (
    tenant_id TEXT NOT NULL, dependent TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, dependent));
"""
COLUMNS = "dependent, subject_id, key, member, version, stale"
LIVE = "(expires_at IS NULL OR expires_at > ?)"
IN_CHUNK = 500  # names bound in one query, under SQLite's limit of bound parameters


def _expiry(conn: sqlite3.Connection) -> None:
    """Migration 1: kept compose reports and cache entries expire (docs/stale-dependents.md)."""
    for table in ("dependent_uses", "dependent_bodies"):
        conn.execute(f"ALTER TABLE {table} ADD COLUMN expires_at INTEGER")
        # Partial: guidance and assets never expire, so only expiring rows are in the sweep's index.
        conn.execute(
            f"CREATE INDEX {table}_by_expiry ON {table} (tenant_id, expires_at) WHERE expires_at IS NOT NULL"
        )


def _use(row: sqlite3.Row | tuple[object, ...]) -> tuple[str, BeliefUse]:
    dependent, subject, key, member, version, stale = row
    ref = BeliefRef(subject_id=str(subject), key=str(key), member=str(member) or None)
    marked = Staleness.model_validate_json(str(stale)) if stale is not None else None
    return str(dependent), BeliefUse(ref, int(str(version)), marked)


class SqliteDependentsIndex:
    def __init__(self, db: SqliteDatabase, tenant_id: str, *, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self._tenant = tenant_id
        self._clock = clock
        db.apply_schema(SCHEMA)
        db.migrate("dependents", [_expiry])

    def _now(self) -> int:
        return int(self._clock())

    def record(
        self, dependent: str, uses: Sequence[BeliefUse], body: str | None = None, ttl: timedelta | None = None
    ) -> None:
        expires = None if ttl is None else self._now() + int(ttl.total_seconds())
        with self._db.write() as conn:  # one transaction: a reader sees the old uses or the new
            self._delete(conn, dependent)
            conn.executemany(
                f"INSERT OR REPLACE INTO dependent_uses (tenant_id, {COLUMNS}, expires_at)"
                " VALUES (?,?,?,?,?,?,?,?)",
                [
                    (
                        self._tenant,
                        dependent,
                        *u.key(),
                        u.version,
                        u.stale.model_dump_json() if u.stale else None,
                        expires,
                    )
                    for u in uses
                ],
            )
            if body is not None:
                conn.execute(
                    "INSERT INTO dependent_bodies (tenant_id, dependent, body, expires_at) VALUES (?,?,?,?)",
                    (self._tenant, dependent, body, expires),
                )

    def uses_of(self, dependent: str) -> list[BeliefUse]:
        rows = (
            self._db.connection()
            .execute(
                f"SELECT {COLUMNS} FROM dependent_uses WHERE tenant_id=? AND dependent=? AND {LIVE}"
                " ORDER BY subject_id, key, member",
                (self._tenant, dependent, self._now()),
            )
            .fetchall()
        )
        return [_use(row)[1] for row in rows]

    def stale_of(self, dependent: str) -> list[Staleness]:
        marked = [u.stale for u in self.uses_of(dependent) if u.stale is not None]
        return sorted(marked, key=lambda s: s.belief)

    def stale_of_many(self, dependents: Sequence[str]) -> dict[str, list[Staleness]]:
        """One indexed query per IN_CHUNK names (the primary key leads with the dependent)."""
        names = sorted(set(dependents))
        found: dict[str, list[Staleness]] = {}
        conn = self._db.connection()
        for begin in range(0, len(names), IN_CHUNK):
            chunk = names[begin : begin + IN_CHUNK]
            rows = conn.execute(
                f"SELECT dependent, stale FROM dependent_uses WHERE tenant_id=?"
                f" AND dependent IN ({','.join('?' * len(chunk))}) AND stale IS NOT NULL AND {LIVE}",
                (self._tenant, *chunk, self._now()),
            ).fetchall()
            for dependent, stale in rows:
                found.setdefault(str(dependent), []).append(Staleness.model_validate_json(str(stale)))
        return {name: sorted(marks, key=lambda s: s.belief) for name, marks in sorted(found.items())}

    def body_of(self, dependent: str) -> str | None:
        row = (
            self._db.connection()
            .execute(
                f"SELECT body FROM dependent_bodies WHERE tenant_id=? AND dependent=? AND {LIVE}",
                (self._tenant, dependent, self._now()),
            )
            .fetchone()
        )
        return str(row[0]) if row else None

    def mark_stale(self, ref: BeliefRef, to_version: int, reason: str) -> list[str]:
        where = "subject_id=? AND key=? AND member=?"
        return self._mark(where, (ref.subject_id, ref.key, ref.member or ""), to_version, reason)

    def mark_erased(self, subject_id: str) -> list[str]:
        return self._mark("subject_id=?", (subject_id,), None, ERASED)

    def forget(self, dependent: str) -> bool:
        with self._db.write() as conn:
            return self._delete(conn, dependent) > 0

    def expire(self) -> int:
        now = self._now()
        where = "tenant_id=? AND expires_at IS NOT NULL AND expires_at<=?"
        with self._db.write() as conn:
            gone = {
                str(row[0])
                for table in ("dependent_uses", "dependent_bodies")
                for row in conn.execute(
                    f"SELECT DISTINCT dependent FROM {table} WHERE {where}", (self._tenant, now)
                )
            }
            for table in ("dependent_uses", "dependent_bodies"):
                conn.execute(f"DELETE FROM {table} WHERE {where}", (self._tenant, now))
        return len(gone)

    def _mark(self, where: str, args: tuple[str, ...], to_version: int | None, reason: str) -> list[str]:
        marked: set[str] = set()
        with self._db.write() as conn:  # read and update in one write transaction: no lost mark
            rows = conn.execute(
                f"SELECT {COLUMNS} FROM dependent_uses WHERE tenant_id=? AND {where} AND {LIVE}",
                (self._tenant, *args, self._now()),
            ).fetchall()
            for row in rows:
                dependent, use = _use(row)
                stale = stale_after(use, to_version, reason)
                if stale is None:
                    continue
                conn.execute(
                    "UPDATE dependent_uses SET stale=? WHERE tenant_id=? AND dependent=?"
                    " AND subject_id=? AND key=? AND member=?",
                    (stale.model_dump_json(), self._tenant, dependent, *use.key()),
                )
                marked.add(dependent)
        return sorted(marked)

    def _delete(self, conn: sqlite3.Connection, dependent: str) -> int:
        args = (self._tenant, dependent)
        uses = conn.execute("DELETE FROM dependent_uses WHERE tenant_id=? AND dependent=?", args).rowcount
        bodies = conn.execute("DELETE FROM dependent_bodies WHERE tenant_id=? AND dependent=?", args).rowcount
        return uses + bodies
