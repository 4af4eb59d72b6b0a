"""The composer's asset index on SQLite: one row per asset with its embedding (a float32 BLOB), and
one row of its searchable text in the tenant's own FTS5 table, in the same file as the catalogue.

Searches are restricted to `allowed`, a skill's compiled scope of up to ~10,000 ids, and must stay
within milliseconds at that size. So:

- Vector search is exact: the tenant's vectors are held as one normalised float32 matrix, rebuilt
  only when the tenant's revision moves (every `update` bumps it). The matrix rows of a scope are
  cached with it (a few scopes, by value), since one compiled scope serves many composes.
- Each tenant has its own FTS5 table, so a MATCH needs no tenant term (a scope token in a shared
  table is one more phrase to evaluate for every one of the tenant's rows, and doubled the cost),
  and BM25 statistics are the tenant's own. FTS rows map back to assets through the snapshot's
  rowid map, read in the same transaction as the FTS rows, so the two always agree."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

import numpy as np

from agentmem.adapters.local.fts import STOP_WORDS
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.errors import AgentMemError
from agentmem.ports.catalogue import IndexedAsset

SCHEMA = """
CREATE TABLE IF NOT EXISTS asset_index (
    tenant_id TEXT NOT NULL, asset_id TEXT NOT NULL, path TEXT NOT NULL, change_seq INTEGER NOT NULL,
    principals TEXT NOT NULL, vector BLOB NOT NULL, fts_rowid INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, asset_id)
);
CREATE TABLE IF NOT EXISTS asset_index_revisions (
    tenant_id TEXT NOT NULL PRIMARY KEY, revision INTEGER NOT NULL
)
"""
# `_` is already a separator under unicode61 (it is punctuation, category Pc); naming it keeps
# `dim_customers_v3` split into `dim customers v3` should the tokenizer's defaults ever change.
FTS_SCHEMA = """CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5(
    text, tokenize = "porter unicode61 separators '_'"
)"""
WORD = re.compile(r"[^\W_]+")
MASKS_KEPT = 16
MIN_PAGE = 64


@dataclass
class _Snapshot:
    """The tenant's index at one revision. Replaced whole, never patched, so a reader holding one
    never sees it change under it (only its cache of allowed rows grows)."""

    revision: int
    ids: list[str]  # sorted: row order is id order, which is how ties break
    position: dict[str, int]
    by_fts_rowid: dict[int, str]
    matrix: Any  # float32 (rows, dims), each row of unit length (or zero)
    masks: OrderedDict[frozenset[str], Any] = field(default_factory=OrderedDict)


def _empty(revision: int) -> _Snapshot:
    return _Snapshot(revision, [], {}, {}, np.zeros((0, 0), dtype=np.float32))


def _dot(matrix: Any, query: Any) -> Any:
    # einsum is numpy's own single-threaded loop: 10k x 384 takes ~0.6 ms. A BLAS product is
    # faster on an idle machine but its worker threads stall for ~15 ms when the 2 cores are busy
    # with other requests, which is exactly when latency matters.
    return np.einsum("ij,j->i", matrix, query)


def _unit(vector: Sequence[float], dims: int) -> Any:
    query = np.asarray(vector, dtype=np.float32)
    if query.shape != (dims,):
        # Query vectors come from the embedder, not from callers: a mismatch means the index was
        # built with another model, a deployment fault rather than bad input.
        raise AgentMemError(f"asset index holds {dims}-dimension vectors, the query has {query.size}")
    norm = float(np.linalg.norm(query))
    return query / norm if norm > 0 else query


def _frozen(allowed: Collection[str]) -> frozenset[str]:
    return allowed if isinstance(allowed, frozenset) else frozenset(allowed)


def match_expression(text: str) -> str:
    """Free text as `"w1" OR "w2" ...`, every word quoted so user text is never FTS syntax, and
    split on `_` like the indexed text. Stop words are left out unless nothing else is left."""
    words = [w for w in dict.fromkeys(WORD.findall(text.lower())) if len(w) > 1]
    content = [w for w in words if w not in STOP_WORDS] or words
    return " OR ".join(f'"{w}"' for w in content)


@contextmanager
def _one_read(conn: sqlite3.Connection) -> Iterator[None]:
    """Statements inside read one state of the file (WAL snapshot isolation), so the revision,
    the rows a snapshot is built from and the FTS matches always agree."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")


class SqliteAssetIndex:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        digest = hashlib.sha1(tenant_id.encode(), usedforsecurity=False).hexdigest()[:20]
        self._fts = f"asset_fts_{digest}"  # a hex digest: safe inside SQL text
        self._lock = threading.Lock()  # one rebuild at a time; the others then find it current
        self._masks_lock = threading.Lock()
        self._snapshot = _empty(-1)
        db.apply_schema(SCHEMA + ";" + FTS_SCHEMA.format(table=self._fts))

    def ensure_ready(self) -> None:
        """Nothing to do: the schema is applied when the index is opened."""

    def stamps(self) -> dict[str, int]:
        rows = self._db.connection().execute(
            "SELECT asset_id, change_seq FROM asset_index WHERE tenant_id=?", (self._tenant,)
        )
        return {asset_id: change_seq for asset_id, change_seq in rows}

    def update(self, put: Sequence[IndexedAsset], remove: Sequence[str]) -> None:
        """Delete `remove`, then write `put` (replacing rows of the same id), in one transaction.
        An id in both ends up written; an id put twice keeps its last entry."""
        latest = {asset.asset_id: asset for asset in put}
        if not latest and not remove:
            return
        with self._db.write() as conn:
            for asset_id in [*remove, *latest]:
                row = conn.execute(
                    "DELETE FROM asset_index WHERE tenant_id=? AND asset_id=? RETURNING fts_rowid",
                    (self._tenant, asset_id),
                ).fetchone()
                if row is not None:
                    conn.execute(f"DELETE FROM {self._fts} WHERE rowid=?", (row[0],))
            for a in latest.values():
                # The text as the composer built it (title, path words, body, payload strings).
                fts_rowid = conn.execute(f"INSERT INTO {self._fts} (text) VALUES (?)", (a.text,)).lastrowid
                conn.execute(
                    "INSERT INTO asset_index VALUES (?,?,?,?,?,?,?)",
                    (
                        self._tenant,
                        a.asset_id,
                        a.path,
                        a.change_seq,
                        json.dumps(list(a.principals)),
                        np.asarray(a.vector, dtype=np.float32).tobytes(),
                        fts_rowid,
                    ),
                )
            conn.execute(
                "INSERT INTO asset_index_revisions VALUES (?, 1) ON CONFLICT (tenant_id)"
                " DO UPDATE SET revision = revision + 1",
                (self._tenant,),
            )

    def _current(self, conn: sqlite3.Connection) -> _Snapshot:
        """The snapshot at the revision `conn` reads; call inside `_one_read`."""
        row = conn.execute(
            "SELECT revision FROM asset_index_revisions WHERE tenant_id=?", (self._tenant,)
        ).fetchone()
        revision = row[0] if row else 0
        with self._lock:
            cached = self._snapshot
            if cached.revision == revision:
                return cached
            loaded = self._load(conn, revision)
            # A read that began before another thread's newer rebuild gets its own older
            # snapshot, without evicting the newer one.
            if revision > cached.revision:
                self._snapshot = loaded
            return loaded

    def _load(self, conn: sqlite3.Connection, revision: int) -> _Snapshot:
        rows = conn.execute(
            "SELECT asset_id, fts_rowid, vector FROM asset_index WHERE tenant_id=? ORDER BY asset_id",
            (self._tenant,),
        ).fetchall()
        if not rows:
            return _empty(revision)
        width = len(rows[0][2])
        if any(len(blob) != width for _, _, blob in rows):
            raise AgentMemError("asset index holds vectors of different sizes; rebuild it")
        ids = [asset_id for asset_id, _, _ in rows]
        raw = np.frombuffer(b"".join(blob for _, _, blob in rows), dtype=np.float32).reshape(len(ids), -1)
        norms = np.linalg.norm(raw, axis=1, keepdims=True)
        # Normalised once here, so a search's dot product is the cosine even for a stray
        # unnormalised vector; a zero vector stays zero (cosine 0 with everything).
        matrix = (raw / np.where(norms > 0, norms, 1.0)).astype(np.float32)
        by_fts_rowid = {fts_rowid: asset_id for asset_id, fts_rowid, _ in rows}
        return _Snapshot(revision, ids, {a: i for i, a in enumerate(ids)}, by_fts_rowid, matrix)

    def _allowed_rows(self, snap: _Snapshot, allowed: frozenset[str]) -> Any:
        """The sorted matrix rows of the indexed ids among `allowed`, cached with the snapshot.
        Keyed by value: hashing a frozenset is done once per object, and an equal scope from
        another call finds the entry after one set comparison, far cheaper than 10,000 lookups."""
        with self._masks_lock:
            rows = snap.masks.get(allowed)
            if rows is not None:
                snap.masks.move_to_end(allowed)
                return rows
        found = np.fromiter(map(snap.position.get, allowed, repeat(-1)), dtype=np.intp, count=len(allowed))
        rows = np.sort(found[found >= 0])
        with self._masks_lock:
            snap.masks[allowed] = rows
            if len(snap.masks) > MASKS_KEPT:
                snap.masks.popitem(last=False)  # the least recently used
        return rows

    def vector_search(
        self, vector: Sequence[float], allowed: Collection[str], k: int
    ) -> list[tuple[str, float]]:
        """Exact nearest by cosine among `allowed`, best first, ties by id."""
        if k <= 0 or not allowed:
            return []
        conn = self._db.connection()
        with _one_read(conn):
            snap = self._current(conn)
        rows = self._allowed_rows(snap, _frozen(allowed))
        if rows.size == 0:
            return []
        query = _unit(vector, snap.matrix.shape[1])
        # A small scope gathers its rows; a large one is cheaper as one product over all rows.
        if 4 * rows.size < len(snap.ids):
            scores = _dot(snap.matrix[rows], query)
        else:
            scores = _dot(snap.matrix, query)[rows]
        pick = np.arange(rows.size)
        if rows.size > k:
            kth = np.partition(scores, rows.size - k)[rows.size - k]
            pick = np.flatnonzero(scores >= kth)  # every tie at the k-th place, so ids settle it
        # lexsort's last key is the primary one; `pick` ascends with the rows, hence with the ids.
        ranked = pick[np.lexsort((pick, -scores[pick]))][:k]
        return [(snap.ids[rows[i]], float(scores[i])) for i in ranked]

    def keyword_search(self, text: str, allowed: Collection[str], k: int) -> list[tuple[str, float]]:
        """Best BM25 matches among `allowed` (score = -FTS5 rank, higher is better), ties by id."""
        match = match_expression(text)
        if k <= 0 or not match or not allowed:
            return []
        permitted = _frozen(allowed)
        conn = self._db.connection()
        with _one_read(conn):
            snap = self._current(conn)
            wanted = self._allowed_rows(snap, permitted).size
            if wanted == 0:
                return []
            # FTS5 scores every match, but keeps only LIMIT of them in its sort. Size the page
            # for k allowed hits if they spread evenly over the tenant's assets; a scope whose
            # assets rank low takes the rest in one unbounded read.
            page = max(MIN_PAGE, 2 * k * len(snap.ids) // wanted)
            found = self._matches(conn, snap, match, permitted, k, page)
            if found is None:
                found = self._matches(conn, snap, match, permitted, k, None)
        return [(asset_id, -rank) for rank, asset_id in sorted(found or [])[:k]]

    def _matches(
        self,
        conn: sqlite3.Connection,
        snap: _Snapshot,
        match: str,
        permitted: Collection[str],
        k: int,
        limit: int | None,
    ) -> list[tuple[float, str]] | None:
        """(rank, id) of the allowed matches up to the k-th and its ties; None when `limit` rows
        were not enough to be sure of them."""
        sql = f"SELECT rowid, rank FROM {self._fts} WHERE {self._fts} MATCH ? ORDER BY rank"
        rows = conn.execute(sql + " LIMIT ?", (match, limit)) if limit else conn.execute(sql, (match,))
        found: list[tuple[float, str]] = []
        seen = 0
        for fts_rowid, rank in rows:
            seen += 1
            if len(found) >= k and rank > found[k - 1][0]:
                rows.close()
                return found  # worse than the k-th: no tie left to settle
            asset_id = snap.by_fts_rowid.get(fts_rowid)
            if asset_id is not None and asset_id in permitted:
                found.append((rank, asset_id))
        return None if limit is not None and seen == limit else found

    def similarities(self, vector: Sequence[float], asset_ids: Collection[str]) -> dict[str, float]:
        """Cosine of each indexed id among `asset_ids`; ids not indexed are absent."""
        conn = self._db.connection()
        with _one_read(conn):
            snap = self._current(conn)
        known = [asset_id for asset_id in dict.fromkeys(asset_ids) if asset_id in snap.position]
        if not known:
            return {}
        scores = _dot(snap.matrix[[snap.position[a] for a in known]], _unit(vector, snap.matrix.shape[1]))
        return {asset_id: float(score) for asset_id, score in zip(known, scores, strict=True)}
