"""EventLog on SQLite: seq and idempotency are decided inside one BEGIN IMMEDIATE transaction."""

from __future__ import annotations

import json
import sqlite3

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_erasures import SCHEMA as ERASURE_SCHEMA
from agentmem.adapters.local.sqlite_erasures import refuse_if_erased
from agentmem.errors import BackendUnavailableError
from agentmem.model.beliefs import FactInput
from agentmem.model.events import AppendOutcome, BlobRef, Event, EventDraft

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    position        INTEGER PRIMARY KEY AUTOINCREMENT,  -- global append order, for projector checkpoints
    tenant_id       TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    seq             INTEGER NOT NULL,
    event_id        TEXT NOT NULL UNIQUE,
    subject_id      TEXT NOT NULL,
    round           INTEGER NOT NULL,
    agent           TEXT NOT NULL,
    kind            TEXT NOT NULL,
    media_type      TEXT NOT NULL,
    content_json    TEXT,
    blob_json       TEXT,
    idempotency_key TEXT,
    facts_json      TEXT,
    request_hash    TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    UNIQUE (tenant_id, session_id, seq),
    UNIQUE (tenant_id, session_id, idempotency_key)
);
CREATE INDEX IF NOT EXISTS events_by_subject ON events (tenant_id, subject_id, position);
"""

COLUMNS = (
    "event_id, session_id, seq, subject_id, round, agent, kind, media_type, content_json, blob_json, "
    "idempotency_key, facts_json, request_hash, created_at"
)


def row_to_event(row: sqlite3.Row) -> Event:
    return Event(
        event_id=row["event_id"],
        session_id=row["session_id"],
        seq=row["seq"],
        subject_id=row["subject_id"],
        round=row["round"],
        agent=row["agent"],
        kind=row["kind"],
        media_type=row["media_type"],
        content=json.loads(row["content_json"]) if row["content_json"] is not None else None,
        blob=BlobRef.model_validate_json(row["blob_json"]) if row["blob_json"] else None,
        idempotency_key=row["idempotency_key"],
        facts=[FactInput.model_validate(f) for f in json.loads(row["facts_json"])]
        if row["facts_json"]
        else None,
        created_at=row["created_at"],
    )


class SqliteEventLog:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        db.apply_schema(SCHEMA)
        db.apply_schema(ERASURE_SCHEMA)

    @property
    def database(self) -> SqliteDatabase:
        return self._db

    def append(self, draft: EventDraft) -> AppendOutcome:
        try:
            with self._db.write() as conn:
                refuse_if_erased(conn, self._tenant, draft.subject_id)
                if draft.idempotency_key is not None:
                    existing = conn.execute(
                        f"SELECT {COLUMNS} FROM events"
                        " WHERE tenant_id=? AND session_id=? AND idempotency_key=?",
                        (self._tenant, draft.session_id, draft.idempotency_key),
                    ).fetchone()
                    if existing is not None:
                        return AppendOutcome(
                            event=row_to_event(existing), created=False, request_hash=existing["request_hash"]
                        )
                (last,) = conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM events WHERE tenant_id=? AND session_id=?",
                    (self._tenant, draft.session_id),
                ).fetchone()
                event = Event.from_draft(draft, seq=last + 1)
                conn.execute(
                    f"INSERT INTO events (tenant_id, {COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        self._tenant,
                        event.event_id,
                        event.session_id,
                        event.seq,
                        event.subject_id,
                        event.round,
                        event.agent,
                        event.kind,
                        event.media_type,
                        json.dumps(event.content, ensure_ascii=False) if event.content is not None else None,
                        event.blob.model_dump_json() if event.blob else None,
                        event.idempotency_key,
                        json.dumps([f.model_dump(exclude_none=True) for f in event.facts])
                        if event.facts
                        else None,
                        draft.request_hash,
                        event.created_at,
                    ),
                )
        except sqlite3.OperationalError as exc:
            raise BackendUnavailableError(f"sqlite append failed: {exc}") from exc
        return AppendOutcome(event=event, created=True, request_hash=draft.request_hash)

    def list_events(
        self,
        session_id: str,
        *,
        after: int = 0,
        limit: int = 100,
        agent: str | None = None,
        round: int | None = None,
    ) -> list[Event]:
        sql = f"SELECT {COLUMNS} FROM events WHERE tenant_id=? AND session_id=? AND seq>?"
        params: list[object] = [self._tenant, session_id, after]
        if agent is not None:
            sql += " AND agent=?"
            params.append(agent)
        if round is not None:
            sql += " AND round=?"
            params.append(round)
        sql += " ORDER BY seq LIMIT ?"
        params.append(limit)
        rows = self._db.connection().execute(sql, params).fetchall()
        return [row_to_event(row) for row in rows]

    def recent_events(self, session_id: str, *, before: int | None = None, limit: int = 100) -> list[Event]:
        if limit <= 0:
            return []
        rows = self._db.connection().execute(
            f"SELECT {COLUMNS} FROM events WHERE tenant_id=? AND session_id=? AND seq<?"
            " ORDER BY seq DESC LIMIT ?",
            (self._tenant, session_id, before if before is not None else 2**62, limit),
        )
        return [row_to_event(row) for row in rows]

    def last_seq(self, session_id: str) -> int:
        (last,) = (
            self._db.connection()
            .execute(
                "SELECT COALESCE(MAX(seq), 0) FROM events WHERE tenant_id=? AND session_id=?",
                (self._tenant, session_id),
            )
            .fetchone()
        )
        return int(last)

    def has_subject(self, subject_id: str) -> bool:
        row = (
            self._db.connection()
            .execute(  # served by the events_by_subject index
                "SELECT 1 FROM events WHERE tenant_id=? AND subject_id=? LIMIT 1", (self._tenant, subject_id)
            )
            .fetchone()
        )
        return row is not None

    def read_since(self, position: int, limit: int = 500) -> list[tuple[int, Event]]:
        rows = self._db.connection().execute(
            f"SELECT position, {COLUMNS} FROM events"
            " WHERE tenant_id=? AND position>? ORDER BY position LIMIT ?",
            (self._tenant, position, limit),
        )
        return [(row["position"], row_to_event(row)) for row in rows]

    def head_position(self) -> int:
        (head,) = (
            self._db.connection()
            .execute("SELECT COALESCE(MAX(position), 0) FROM events WHERE tenant_id=?", (self._tenant,))
            .fetchone()
        )
        return int(head)


class SqliteCheckpoints:
    """Projector positions in the log, so a restarted worker resumes where it stopped."""

    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        db.apply_schema(
            "CREATE TABLE IF NOT EXISTS checkpoints ("
            " tenant_id TEXT NOT NULL, name TEXT NOT NULL, position INTEGER NOT NULL,"
            " PRIMARY KEY (tenant_id, name))"
        )

    def load(self, name: str) -> int:
        row = (
            self._db.connection()
            .execute("SELECT position FROM checkpoints WHERE tenant_id=? AND name=?", (self._tenant, name))
            .fetchone()
        )
        return int(row[0]) if row else 0

    def save(self, name: str, position: int) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO checkpoints VALUES (?,?,?) ON CONFLICT DO UPDATE SET position=excluded.position",
                (self._tenant, name, position),
            )
