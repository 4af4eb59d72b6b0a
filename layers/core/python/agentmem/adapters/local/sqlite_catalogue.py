"""The composer's Catalogue and ConversationMemory on SQLite. The tenant is part of every key.

- `catalogue_revisions` holds one counter per tenant, bumped once by every write transaction; each
  asset row records the revision of its write in `change_seq`.
- `catalogue_assets` keeps each asset's header as JSON in its own column, under a covering index
  in (path, id) order: `headers()` is one index-only scan, joined into one JSON array that
  pydantic validates in a single call, and never touches a payload. Its result is kept until the
  revision moves. Body, payload (JSON text) and updated_at have their own columns.
- `catalogue_skills` keeps every version of a skill; the highest is the current one.
- `conversation_sent` is one row per (conversation, asset): what was sent, by content hash.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence

from pydantic import TypeAdapter

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.compose.catalogue_rules import encode_payloads, next_version
from agentmem.compose.model import Asset, AssetHeader, ComposerSkill, ComposerSkillSpec, StoredAsset
from agentmem.errors import NotFoundError

SCHEMA = """
CREATE TABLE IF NOT EXISTS catalogue_revisions (
    tenant_id TEXT PRIMARY KEY, revision INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS catalogue_assets (
    tenant_id TEXT NOT NULL, asset_id TEXT NOT NULL, path TEXT NOT NULL, change_seq INTEGER NOT NULL,
    header TEXT NOT NULL, body TEXT NOT NULL, updated_at TEXT NOT NULL, payload TEXT NOT NULL,
    PRIMARY KEY (tenant_id, asset_id)
);
CREATE INDEX IF NOT EXISTS catalogue_asset_headers ON catalogue_assets (tenant_id, path, asset_id, header);
CREATE TABLE IF NOT EXISTS catalogue_skills (
    tenant_id TEXT NOT NULL, skill_id TEXT NOT NULL, version INTEGER NOT NULL, skill TEXT NOT NULL,
    PRIMARY KEY (tenant_id, skill_id, version)
);
CREATE TABLE IF NOT EXISTS conversation_sent (
    tenant_id TEXT NOT NULL, conversation_id TEXT NOT NULL, asset_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    PRIMARY KEY (tenant_id, conversation_id, asset_id)
) WITHOUT ROWID
"""

_HEADERS: TypeAdapter[list[AssetHeader]] = TypeAdapter(list[AssetHeader])


class SqliteCatalogue:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        # Every write moves the revision, so the headers read at a revision stay true until it moves.
        self._headers: tuple[int, tuple[AssetHeader, ...]] | None = None
        db.apply_schema(SCHEMA)

    def _bump(self, conn: sqlite3.Connection) -> int:
        """Move the tenant's revision on by one, inside the caller's write transaction."""
        # fetchall runs the RETURNING statement to completion, so it never lingers into the COMMIT.
        rows = conn.execute(
            "INSERT INTO catalogue_revisions VALUES (?, 1) ON CONFLICT (tenant_id)"
            " DO UPDATE SET revision = revision + 1 RETURNING revision",
            (self._tenant,),
        ).fetchall()
        return int(rows[0][0])

    def put_assets(self, assets: Sequence[Asset]) -> int:
        payloads = encode_payloads(assets)
        with self._db.write() as conn:
            revision = self._bump(conn)
            conn.executemany(
                "INSERT OR REPLACE INTO catalogue_assets VALUES (?,?,?,?,?,?,?,?)",
                [
                    (
                        self._tenant,
                        a.asset_id,
                        a.path,
                        revision,
                        _header(a, revision).model_dump_json(),
                        a.body,
                        a.updated_at.isoformat(),
                        payload.decode("utf-8"),
                    )
                    for a, payload in zip(assets, payloads, strict=True)
                ],
            )
        return revision

    def delete_asset(self, asset_id: str) -> int:
        with self._db.write() as conn:
            deleted = conn.execute(
                "DELETE FROM catalogue_assets WHERE tenant_id=? AND asset_id=?", (self._tenant, asset_id)
            ).rowcount
            if not deleted:
                raise NotFoundError(f"no asset {asset_id!r}", field="asset_id")
            return self._bump(conn)

    def get_assets(self, asset_ids: Collection[str]) -> dict[str, StoredAsset]:
        ids = list(dict.fromkeys(asset_ids))
        found: dict[str, StoredAsset] = {}
        conn = self._db.connection()
        # Chunked to stay far below SQLite's limit on bound parameters.
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows = conn.execute(
                "SELECT header, body, updated_at, payload FROM catalogue_assets WHERE tenant_id=?"
                f" AND asset_id IN ({','.join('?' * len(chunk))})",
                (self._tenant, *chunk),
            )
            for header, body, updated_at, payload in rows:
                asset = StoredAsset.model_validate(
                    {
                        **json.loads(header),
                        "body": body,
                        "updated_at": updated_at,
                        "payload": json.loads(payload),
                    }
                )
                found[asset.asset_id] = asset
        return found

    def headers(self) -> list[AssetHeader]:
        conn = self._db.connection()
        # One snapshot, so the rows are exactly those of the revision read with them.
        conn.execute("BEGIN")
        try:
            revision = self._revision(conn)
            cached = self._headers
            if cached is not None and cached[0] == revision:
                return list(cached[1])
            cursor = conn.cursor()
            cursor.row_factory = None  # plain tuples, cheaper than sqlite3.Row
            # INDEXED BY turns a lost index into an error instead of a silent scan of every payload.
            rows = cursor.execute(
                "SELECT header FROM catalogue_assets INDEXED BY catalogue_asset_headers"
                " WHERE tenant_id=? ORDER BY path, asset_id",
                (self._tenant,),
            ).fetchall()
        finally:
            conn.execute("COMMIT")
        # One validation of one JSON array, in pydantic's core: no Python objects per row but the
        # headers themselves, which spares the allocator and the garbage collector a third of the time.
        headers = _HEADERS.validate_json("[" + ",".join(header for (header,) in rows) + "]")
        self._headers = (revision, tuple(headers))
        return headers

    def revision(self) -> int:
        return self._revision(self._db.connection())

    def _revision(self, conn: sqlite3.Connection) -> int:
        row = conn.execute(
            "SELECT revision FROM catalogue_revisions WHERE tenant_id=?", (self._tenant,)
        ).fetchone()
        return int(row[0]) if row is not None else 0

    def put_skill(self, skill_id: str, spec: ComposerSkillSpec) -> ComposerSkill:
        with self._db.write() as conn:
            stored = self._skill(conn, skill_id)
            skill = next_version(skill_id, stored, spec)
            if skill is None:
                assert stored is not None
                return stored
            conn.execute(
                "INSERT INTO catalogue_skills VALUES (?,?,?,?)",
                (self._tenant, skill_id, skill.version, skill.model_dump_json()),
            )
        return skill

    def get_skill(self, skill_id: str) -> ComposerSkill:
        skill = self._skill(self._db.connection(), skill_id)
        if skill is None:
            raise NotFoundError(f"no skill {skill_id!r}", field="skill_id")
        return skill

    def _skill(self, conn: sqlite3.Connection, skill_id: str) -> ComposerSkill | None:
        row = conn.execute(
            "SELECT skill FROM catalogue_skills WHERE tenant_id=? AND skill_id=?"
            " ORDER BY version DESC LIMIT 1",
            (self._tenant, skill_id),
        ).fetchone()
        return ComposerSkill.model_validate_json(row[0]) if row is not None else None


def _header(asset: Asset, change_seq: int) -> AssetHeader:
    return AssetHeader(
        asset_id=asset.asset_id,
        path=asset.path,
        kind=asset.kind,
        title=asset.title,
        principals=tuple(asset.principals),
        deprecated=asset.deprecated,
        change_seq=change_seq,
        cites=tuple(asset.cites),
    )


class SqliteConversationMemory:
    """What each conversation was sent. Rows are kept until deleted: the local store has no TTL."""

    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        db.apply_schema(SCHEMA)

    def sent(self, conversation_id: str) -> dict[str, str]:
        rows = self._db.connection().execute(
            "SELECT asset_id, content_hash FROM conversation_sent WHERE tenant_id=? AND conversation_id=?",
            (self._tenant, conversation_id),
        )
        return dict(rows.fetchall())

    def forget(self, conversation_ids: Collection[str]) -> int:
        """Delete what each conversation was sent; returns how many conversations had any."""
        ids = sorted(set(conversation_ids))
        removed = 0
        with self._db.write() as conn:
            for conversation_id in ids:
                removed += (
                    conn.execute(
                        "DELETE FROM conversation_sent WHERE tenant_id=? AND conversation_id=?",
                        (self._tenant, conversation_id),
                    ).rowcount
                    > 0
                )
        return removed

    def record(self, conversation_id: str, sent: dict[str, str]) -> None:
        if not sent:
            return
        with self._db.write() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO conversation_sent VALUES (?,?,?,?)",
                [(self._tenant, conversation_id, aid, digest) for aid, digest in sent.items()],
            )
