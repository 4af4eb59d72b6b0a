"""PassageIndex on SQLite: one row per passage with its vector, FTS5 for keywords, and exact
cosine search over an in-memory matrix of each subject's passage vectors.

Passages are append-only (a passage never changes once indexed), so a subject's matrix catches
up by fetching only the rows past the highest row id it holds. Erasing a subject bumps its epoch,
which makes every process rebuild that subject's matrix from what is left."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agentmem.adapters.local.blas import single_threaded_blas
from agentmem.adapters.local.fts import content_words, match_expression, scope_token
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.vector_size import sized
from agentmem.model.passages import Passage, PassageHit

SCHEMA = """
CREATE TABLE IF NOT EXISTS passages_g{g} (
    pid INTEGER PRIMARY KEY,
    tenant_id TEXT NOT NULL, subject_id TEXT NOT NULL, passage_id TEXT NOT NULL,
    session_id TEXT NOT NULL, body TEXT NOT NULL, vector BLOB NOT NULL,
    UNIQUE (tenant_id, subject_id, passage_id)
);
CREATE INDEX IF NOT EXISTS passages_g{g}_subject ON passages_g{g} (tenant_id, subject_id, pid);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts_g{g} USING fts5(
    text, scope, session, tokenize = 'porter unicode61'
);
CREATE TABLE IF NOT EXISTS passage_epochs_g{g} (
    tenant_id TEXT NOT NULL, subject_id TEXT NOT NULL, epoch INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, subject_id)
)
"""
SUBJECT = " WHERE tenant_id=? AND subject_id=?"
# FTS5 scores every row that matches before it can sort, so a query word found in most of a
# subject's passages (low idf, so little weight in BM25 anyway) would cost a full scan per read:
# measured 150 ms at 50,000 passages. Words in COMMON passages or more are left out of the ranked
# query, and a query made only of such words finds nothing by keyword (its ranks would be noise;
# the vector ranker still runs). Counting up to COMMON costs well under a millisecond a word.
COMMON = 1000
HISTORY = "history passage index"
MAX_WORDS = 12


def session_token(session_id: str) -> str:
    """One FTS token per session, so MATCH can leave the reader's own session out in the index."""
    return scope_token("session", session_id)


@dataclass
class _Matrix:
    epoch: int
    last_pid: int = 0
    pids: list[int] = field(default_factory=list)
    codes: dict[str, int] = field(default_factory=dict)  # session id -> a small int, per matrix
    sessions: Any = None  # the code of each row's session: excluding one is a vector compare
    rows: Any = None  # capacity doubles, so a read after a few appends copies nothing

    def extend(self, rows: Sequence[tuple[int, str, bytes]]) -> None:
        if not rows:
            return
        width = len(rows[0][2]) // 4 if self.rows is None else self.rows.shape[1]
        block = np.vstack(
            [sized(np.frombuffer(blob, dtype=np.float32), width, HISTORY) for _, _, blob in rows]
        )
        codes = np.fromiter(
            (self.codes.setdefault(s, len(self.codes)) for _, s, _ in rows), dtype=np.int32, count=len(rows)
        )
        used, need = len(self.pids), len(self.pids) + len(rows)
        if self.rows is None or need > len(self.rows):
            capacity = max(need, 2 * (0 if self.rows is None else len(self.rows)), 64)
            grown_rows = np.zeros((capacity, block.shape[1]), dtype=np.float32)
            grown_sessions = np.full(capacity, -1, dtype=np.int32)
            if self.rows is not None:
                grown_rows[:used], grown_sessions[:used] = self.rows[:used], self.sessions[:used]
            self.rows, self.sessions = grown_rows, grown_sessions
        self.rows[used:need], self.sessions[used:need] = block, codes
        self.pids += [pid for pid, _, _ in rows]
        self.last_pid = self.pids[-1]


class SqlitePassageIndex:
    def __init__(self, db: SqliteDatabase, tenant_id: str, generation: int) -> None:
        self._db = db
        self._tenant = tenant_id
        self.generation = generation
        self._g = int(generation)
        db.apply_schema(SCHEMA.format(g=self._g))
        self._cache: dict[str, _Matrix] = {}
        self._lock = threading.Lock()
        single_threaded_blas()

    def _sql(self, statement: str) -> str:
        return statement.format(g=self._g)

    def missing(self, subject_id: str, passage_ids: Sequence[str]) -> set[str]:
        wanted = list(dict.fromkeys(passage_ids))
        found: set[str] = set()
        conn = self._db.connection()
        for start in range(0, len(wanted), 500):  # SQLite's bound-variable limit
            chunk = wanted[start : start + 500]
            rows = conn.execute(
                self._sql("SELECT passage_id FROM passages_g{g}" + SUBJECT)
                + f" AND passage_id IN ({','.join('?' * len(chunk))})",
                [self._tenant, subject_id, *chunk],
            )
            found.update(pid for (pid,) in rows)
        return set(wanted) - found

    def add(self, passages: Sequence[Passage], vectors: Sequence[Sequence[float]]) -> int:
        if len(passages) != len(vectors):
            raise ValueError("add takes one vector per passage")
        added = 0
        with self._db.write() as conn:
            for passage, vector in zip(passages, vectors, strict=True):
                cursor = conn.execute(
                    self._sql("INSERT OR IGNORE INTO passages_g{g} VALUES (NULL,?,?,?,?,?,?)"),
                    (
                        self._tenant,
                        passage.subject_id,
                        passage.passage_id,
                        passage.session_id,
                        passage.model_dump_json(),
                        np.asarray(vector, dtype=np.float32).tobytes(),
                    ),
                )
                if cursor.rowcount != 1:
                    continue  # already indexed: redelivery changes nothing
                conn.execute(
                    self._sql("INSERT INTO passages_fts_g{g}(rowid, text, scope, session) VALUES (?,?,?,?)"),
                    (
                        cursor.lastrowid,
                        passage.text,
                        scope_token(self._tenant, passage.subject_id),
                        session_token(passage.session_id),
                    ),
                )
                added += 1
        return added

    # -- search -------------------------------------------------------------------------------

    def _epoch(self, conn: sqlite3.Connection, subject_id: str) -> int:
        row = conn.execute(
            self._sql("SELECT epoch FROM passage_epochs_g{g}" + SUBJECT), (self._tenant, subject_id)
        ).fetchone()
        return int(row[0]) if row else 0

    def _matrix(self, subject_id: str) -> _Matrix:
        conn = self._db.connection()
        epoch = self._epoch(conn, subject_id)
        with self._lock:
            matrix = self._cache.get(subject_id)
            if matrix is None or matrix.epoch != epoch:
                matrix = self._cache[subject_id] = _Matrix(epoch)
            rows = conn.execute(
                self._sql(
                    "SELECT pid, session_id, vector FROM passages_g{g}"
                    + SUBJECT
                    + " AND pid > ? ORDER BY pid"
                ),
                (self._tenant, subject_id, matrix.last_pid),
            ).fetchall()
            matrix.extend([(int(pid), str(session), bytes(blob)) for pid, session, blob in rows])
            return matrix

    def _bodies(self, pids: Sequence[int]) -> dict[int, Passage]:
        if not pids:
            return {}
        rows = self._db.connection().execute(
            self._sql("SELECT pid, body FROM passages_g{g}") + f" WHERE pid IN ({','.join('?' * len(pids))})",
            list(pids),
        )
        return {int(pid): Passage.model_validate_json(body) for pid, body in rows}

    def vector_search(
        self, subject_id: str, vector: Sequence[float], k: int, *, exclude_session: str | None = None
    ) -> list[PassageHit]:
        matrix = self._matrix(subject_id)
        if matrix.rows is None or k <= 0:
            return []
        used = len(matrix.pids)
        scores = matrix.rows[:used] @ sized(vector, matrix.rows.shape[1], HISTORY)
        if exclude_session is not None and exclude_session in matrix.codes:
            scores = np.where(matrix.sessions[:used] == matrix.codes[exclude_session], -np.inf, scores)
        top = np.argpartition(-scores, k - 1)[:k] if len(scores) > k else np.arange(len(scores))
        ranked = [(float(scores[i]), matrix.pids[i]) for i in top if np.isfinite(scores[i])]
        found = self._bodies([pid for _, pid in ranked])
        hits = [
            PassageHit(passage=found[pid], score=score, source="vector")
            for score, pid in ranked
            if pid in found
        ]
        return sorted(hits, key=lambda h: (-h.score, h.passage.passage_id))

    def keyword_search(
        self, subject_id: str, query: str, k: int, *, exclude_session: str | None = None
    ) -> list[PassageHit]:
        if k <= 0:
            return []
        match = self._selective_match(subject_id, content_words(query)[:MAX_WORDS])
        if not match:
            return []
        if exclude_session is not None:
            match += f' NOT session : "{session_token(exclude_session)}"'
        rows = (
            self._db.connection()
            .execute(
                self._sql(
                    "SELECT rowid, rank FROM passages_fts_g{g}"
                    " WHERE passages_fts_g{g} MATCH ? ORDER BY rank LIMIT ?"
                ),
                (match, k),
            )
            .fetchall()
        )
        found = self._bodies([int(pid) for pid, _ in rows])
        hits = [
            PassageHit(passage=found[int(pid)], score=-float(rank), source="keyword")
            for pid, rank in rows
            if int(pid) in found and found[int(pid)].subject_id == subject_id
        ]
        return sorted(hits, key=lambda h: (-h.score, h.passage.passage_id))

    def _selective_match(self, subject_id: str, words: list[str]) -> str:
        """The MATCH expression over the query words some but fewer than COMMON of the subject's
        passages hold; "" when there is none."""
        scope = scope_token(self._tenant, subject_id)
        conn = self._db.connection()
        counts: dict[str, int] = {}
        for word in words:
            (counts[word],) = conn.execute(
                self._sql(
                    "SELECT count(*) FROM (SELECT rowid FROM passages_fts_g{g}"
                    " WHERE passages_fts_g{g} MATCH ? LIMIT ?)"
                ),
                (match_expression([word], scope), COMMON),
            ).fetchone()
        return match_expression([w for w in words if 0 < counts[w] < COMMON], scope)

    def count(self, subject_id: str) -> int:
        (n,) = (
            self._db.connection()
            .execute(self._sql("SELECT COUNT(*) FROM passages_g{g}" + SUBJECT), (self._tenant, subject_id))
            .fetchone()
        )
        return int(n)

    def erase_subject(self, subject_id: str) -> int:
        with self._db.write() as conn:
            return self.erase_in(conn, subject_id)

    def erase_in(self, conn: sqlite3.Connection, subject_id: str) -> int:
        """Erase inside the caller's transaction (the store erases every generation in one)."""
        scope = (self._tenant, subject_id)
        conn.execute(
            self._sql(
                "DELETE FROM passages_fts_g{g} WHERE rowid IN (SELECT pid FROM passages_g{g}" + SUBJECT + ")"
            ),
            scope,
        )
        erased = conn.execute(self._sql("DELETE FROM passages_g{g}" + SUBJECT), scope).rowcount
        # FTS5 only marks deleted rows in its segments; merging them all drops the subject's
        # tokens from the file, which a compaction alone would copy over.
        conn.execute(self._sql("INSERT INTO passages_fts_g{g}(passages_fts_g{g}) VALUES ('optimize')"))
        conn.execute(
            self._sql(
                "INSERT INTO passage_epochs_g{g} VALUES (?,?,1) ON CONFLICT DO UPDATE SET epoch = epoch + 1"
            ),
            scope,
        )
        return int(erased)
