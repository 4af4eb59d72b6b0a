"""The SQLite catalogue and conversation memory against their contracts, plus what only SQLite can
show: a failure in the middle of the write transaction, and the cost of `headers()`."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_catalogue import SqliteCatalogue, SqliteConversationMemory
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from tests.contract.catalogue_contract import (
    CatalogueContract,
    CatalogueFactory,
    ConversationMemoryContract,
    MemoryFactory,
    asset,
    header,
)


@pytest.fixture
def db(tmp_path: Path) -> SqliteDatabase:
    return SqliteDatabase(tmp_path / "db")


class TestSqliteCatalogue(CatalogueContract):
    @pytest.fixture
    def make_catalogue(self, db: SqliteDatabase) -> CatalogueFactory:
        return lambda tenant: SqliteCatalogue(db, tenant)

    def test_a_failure_mid_transaction_writes_nothing(self, db: SqliteDatabase) -> None:
        """The revision bump and every row are one transaction: a row refused by the database
        itself, after others went in, takes them and the bump with it."""
        catalogue = SqliteCatalogue(db, "acme")
        catalogue.put_assets([asset("a")])
        with db.write() as conn:
            conn.execute(
                "CREATE TRIGGER refuse_boom BEFORE INSERT ON catalogue_assets WHEN NEW.asset_id = 'boom'"
                " BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
        with pytest.raises(sqlite3.IntegrityError):
            catalogue.put_assets([asset("b"), asset("a", title="Changed"), asset("boom"), asset("c")])
        assert catalogue.revision() == 1
        assert catalogue.headers() == [header(asset("a"), 1)]

    def test_headers_of_10000_assets_are_fast(self, db: SqliteDatabase) -> None:
        """The first read is one index-only scan (no payload is parsed); later reads at the same
        revision are served from memory. Bounds are loose, to hold on a loaded machine: parsing
        the payloads instead would cost several times the cold bound."""
        writer = SqliteCatalogue(db, "acme")
        payload = {"columns": [{"name": f"c{i}", "type": "text", "doc": "x" * 40} for i in range(40)]}
        for batch in range(125):
            writer.put_assets(
                [
                    asset(f"a{batch:03d}{i:02d}", f"wh/s{batch % 7}/t{batch}_{i}", payload=payload)
                    for i in range(80)
                ]
            )
        writer.headers()  # warm SQLite's page cache, as a running service would have it

        def timed(catalogue: SqliteCatalogue) -> float:
            started = time.perf_counter()
            headers = catalogue.headers()
            elapsed = time.perf_counter() - started
            assert len(headers) == 10_000
            return elapsed

        cold = min(timed(SqliteCatalogue(db, "acme")) for _ in range(5))
        warm = min(timed(writer) for _ in range(5))
        assert cold < 0.1, f"headers() took {cold * 1000:.1f} ms from the database"
        assert warm < 0.005, f"headers() took {warm * 1000:.1f} ms at an unchanged revision"
        headers = writer.headers()
        assert headers == sorted(headers, key=lambda h: (h.path, h.asset_id))
        writer.put_assets([asset("a00000", "aaa/first")])
        assert writer.headers()[0].path == "aaa/first"  # a write moves the revision: read again


class TestSqliteConversationMemory(ConversationMemoryContract):
    @pytest.fixture
    def make_memory(self, db: SqliteDatabase) -> MemoryFactory:
        return lambda tenant: SqliteConversationMemory(db, tenant)
