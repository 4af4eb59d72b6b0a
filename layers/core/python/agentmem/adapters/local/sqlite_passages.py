"""PassageIndex on SQLite: one row per passage with its vector, FTS5 for keywords, and exact
cosine search over an in-memory matrix of each subject's passage vectors.

A passage can be indexed before its vector (`defers_vectors`): its row and its keywords are
written by projection, and the vector lane stores the vector later, stamping it with the
subject's next `embedded` number (NULL while pending; the vector column then holds an empty
blob, as it was NOT NULL in data dirs made before). A subject's matrix catches up by fetching
only the vectors stamped past the highest stamp it holds. Erasing a subject bumps its epoch,
which makes every process rebuild that subject's matrix from what is left."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

import numpy as np

from agentmem.adapters.local.blas import single_threaded_blas
from agentmem.adapters.local.fts import content_words, match_expression, scope_token
from agentmem.adapters.local.passage_matrix import PassageMatrix
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_passage_schema import PENDING, SCHEMA, Stamps, vector_stamps
from agentmem.model.passages import Passage, PassageHit

SUBJECT = " WHERE tenant_id=? AND subject_id=?"
# FTS5 scores every row that matches before it can sort, so a query word found in most of a
# subject's passages (low idf, so little weight in BM25 anyway) would cost a full scan per read:
# measured 150 ms at 50,000 passages. Words in COMMON passages or more are left out of the ranked
# query, and a query made only of such words finds nothing by keyword (its ranks would be noise;
# the vector ranker still runs). Counting up to COMMON costs well under a millisecond a word.
COMMON = 1000
MAX_WORDS = 12


def session_token(session_id: str) -> str:
    """One FTS token per session, so MATCH can leave the reader's own session out in the index."""
    return scope_token("session", session_id)


class SqlitePassageIndex:
    defers_vectors = True

    def __init__(self, db: SqliteDatabase, tenant_id: str, generation: int) -> None:
        self._db = db
        self._tenant = tenant_id
        self.generation = generation
        self._g = int(generation)
        db.apply_schema(SCHEMA.format(g=self._g))
        db.migrate(f"passages_g{self._g}", [vector_stamps(self._g)])
        self._cache: dict[str, PassageMatrix] = {}
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

    def add(self, passages: Sequence[Passage], vectors: Sequence[Sequence[float]] | None) -> int:
        if vectors is not None and len(passages) != len(vectors):
            raise ValueError("add takes one vector per passage")
        added = 0
        with self._db.write() as conn:
            stamps = Stamps(conn, self._g, self._tenant)
            for at, passage in enumerate(passages):
                vector = None if vectors is None else vectors[at]
                cursor = conn.execute(
                    self._sql(
                        "INSERT OR IGNORE INTO passages_g{g} (tenant_id, subject_id, passage_id,"
                        " session_id, body, vector, embedded) VALUES (?,?,?,?,?,?,?)"
                    ),
                    (
                        self._tenant,
                        passage.subject_id,
                        passage.passage_id,
                        passage.session_id,
                        passage.model_dump_json(),
                        PENDING if vector is None else np.asarray(vector, dtype=np.float32).tobytes(),
                        None if vector is None else stamps.next(passage.subject_id),
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

    def restate(self, passages: Sequence[Passage]) -> int:
        changed = 0
        with self._db.write() as conn:
            for passage in passages:
                body = passage.model_dump_json()  # the text is the same, so the keywords stay
                changed += conn.execute(
                    self._sql("UPDATE passages_g{g} SET body=?" + SUBJECT + " AND passage_id=? AND body<>?"),
                    (body, self._tenant, passage.subject_id, passage.passage_id, body),
                ).rowcount
        return changed

    # -- the vector lane ----------------------------------------------------------------------

    def pending(self, limit: int) -> list[Passage]:
        if limit <= 0:
            return []
        rows = self._db.connection().execute(
            self._sql(
                "SELECT body FROM passages_g{g} WHERE tenant_id=? AND embedded IS NULL ORDER BY pid LIMIT ?"
            ),
            (self._tenant, limit),
        )
        return [Passage.model_validate_json(body) for (body,) in rows]

    def pending_count(self, subject_id: str) -> int:
        (n,) = (
            self._db.connection()
            .execute(
                self._sql("SELECT COUNT(*) FROM passages_g{g}" + SUBJECT + " AND embedded IS NULL"),
                (self._tenant, subject_id),
            )
            .fetchone()
        )
        return int(n)

    def store_vectors(self, passages: Sequence[Passage], vectors: Sequence[Sequence[float]]) -> int:
        if len(passages) != len(vectors):
            raise ValueError("store_vectors takes one vector per passage")
        stored = 0
        with self._db.write() as conn:
            stamps = Stamps(conn, self._g, self._tenant)
            for passage, vector in zip(passages, vectors, strict=True):
                # Only a row still pending: an erased passage has no row left to bring back.
                stored += conn.execute(
                    self._sql(
                        "UPDATE passages_g{g} SET vector=?, embedded=?"
                        + SUBJECT
                        + " AND passage_id=? AND embedded IS NULL"
                    ),
                    (
                        np.asarray(vector, dtype=np.float32).tobytes(),
                        stamps.next(passage.subject_id),
                        self._tenant,
                        passage.subject_id,
                        passage.passage_id,
                    ),
                ).rowcount
        return stored

    # -- search -------------------------------------------------------------------------------

    def _epoch(self, conn: sqlite3.Connection, subject_id: str) -> int:
        row = conn.execute(
            self._sql("SELECT epoch FROM passage_epochs_g{g}" + SUBJECT), (self._tenant, subject_id)
        ).fetchone()
        return int(row[0]) if row else 0

    def _matrix(self, subject_id: str) -> PassageMatrix:
        conn = self._db.connection()
        epoch = self._epoch(conn, subject_id)
        with self._lock:
            matrix = self._cache.get(subject_id)
            if matrix is None or matrix.epoch != epoch:
                matrix = self._cache[subject_id] = PassageMatrix(epoch)
            rows = conn.execute(
                self._sql(
                    "SELECT pid, session_id, vector, embedded FROM passages_g{g}"
                    + SUBJECT
                    + " AND embedded > ? ORDER BY embedded"
                ),
                (self._tenant, subject_id, matrix.last_stamp),
            ).fetchall()
            if rows:
                held = [(int(pid), str(session), bytes(blob)) for pid, session, blob, _ in rows]
                matrix.extend(held, last_stamp=int(rows[-1][3]))
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
        ranked = self._matrix(subject_id).nearest(vector, k, exclude_session)
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
                # bm25() is what `rank` is, sorted by SQLite's own top-k sorter: FTS5's
                # ORDER BY rank took 8 ms where this takes 5 (50,000 passages, same scores).
                # Ties go by rowid, so the cut at k is the same on every run.
                self._sql(
                    "SELECT rowid, bm25(passages_fts_g{g}) AS score FROM passages_fts_g{g}"
                    " WHERE passages_fts_g{g} MATCH ? ORDER BY score, rowid LIMIT ?"
                ),
                (match, k),
            )
            .fetchall()
        )
        found = self._bodies([int(pid) for pid, _ in rows])
        hits = [
            PassageHit(passage=found[int(pid)], score=-float(bm25), source="keyword")
            for pid, bm25 in rows
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
