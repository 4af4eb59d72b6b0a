"""One SQLite database file per data dir, one connection per thread, WAL mode."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from agentmem.errors import BackendUnavailableError

BUSY_TIMEOUT_MS = 10_000


class SqliteDatabase:
    """Thread-safe access to one SQLite file: each thread gets its own connection (sqlite3
    connections must not be shared across threads), and writes run in `BEGIN IMMEDIATE`
    transactions so concurrent writers queue on the file lock instead of failing mid-way."""

    def __init__(self, path: Path, *, synchronous: str = "FULL") -> None:
        self.path = path
        self._synchronous = synchronous
        self._local = threading.local()
        # SQLite's own busy handler retries with growing sleeps, which gives 8 threads of one
        # process second-long tails; queueing them on a lock first keeps the wait fair and short.
        self._write_lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)

    def connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={self._synchronous}")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            self._local.conn = conn
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: committed on success, rolled back on any error."""
        conn = self.connection()
        with self._write_lock:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise BackendUnavailableError(f"sqlite is busy: {exc}") from exc
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                conn.execute("ROLLBACK")
                raise BackendUnavailableError(f"sqlite commit failed: {exc}") from exc

    def apply_schema(self, script: str) -> None:
        """Run idempotent DDL in one transaction (executescript would commit on its own)."""
        with self.write() as conn:
            statement = ""
            for piece in script.split(";"):
                statement += piece + ";"
                # A trigger body holds semicolons of its own: run only whole statements.
                if sqlite3.complete_statement(statement):
                    if statement.strip(" \n;"):
                        conn.execute(statement)
                    statement = ""
            if statement.strip(" \n;"):
                conn.execute(statement)

    def migrate(self, component: str, steps: Sequence[Callable[[sqlite3.Connection], None]]) -> None:
        """Bring `component` to version `len(steps)`: run, in order, the steps a database made by
        an earlier version has not had yet, each in one transaction with its version stamp, so a
        crash leaves either the old or the new version, never half of one. Idempotent."""
        with self.write() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_versions"
                " (component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
            )
        for version, step in enumerate(steps, start=1):
            with self.write() as conn:
                row = conn.execute(
                    "SELECT version FROM schema_versions WHERE component=?", (component,)
                ).fetchone()
                if row is not None and row[0] >= version:
                    continue
                step(conn)
                conn.execute(
                    "INSERT INTO schema_versions VALUES (?, ?)"
                    " ON CONFLICT DO UPDATE SET version=excluded.version",
                    (component, version),
                )

    def compact(self) -> int:
        """Rewrite the file from its live rows (VACUUM), then move the WAL into it and truncate
        the WAL to nothing, so content deleted earlier leaves no bytes in either file. Returns
        the pages reclaimed. Raises BackendUnavailableError while another process holds a read
        open on an older snapshot (the WAL cannot be emptied then); a later call finishes it."""
        conn = self.connection()
        with self._write_lock:
            (before,) = conn.execute("PRAGMA page_count").fetchone()
            try:
                conn.execute("VACUUM")
                busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            except sqlite3.OperationalError as exc:
                raise BackendUnavailableError(f"sqlite compaction failed: {exc}") from exc
            (after,) = conn.execute("PRAGMA page_count").fetchone()
        if busy:
            raise BackendUnavailableError("sqlite compaction: a reader still holds the WAL; run it again")
        return int(before) - int(after)

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


_open: dict[tuple[Path, str], SqliteDatabase] = {}
_open_lock = threading.Lock()


def open_database(path: Path, *, synchronous: str = "NORMAL") -> SqliteDatabase:
    """One SqliteDatabase per file per process, so every adapter on it shares one write lock."""
    key = (path.resolve(), synchronous)
    with _open_lock:
        db = _open.get(key)
        if db is None:
            db = _open[key] = SqliteDatabase(path, synchronous=synchronous)
        return db
