"""The SQLite catalogue and conversation memory against their contracts, plus what only SQLite can
show: a failure in the middle of the write transaction, and the cost of `headers()`."""

from __future__ import annotations

import sqlite3
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

    def test_headers_come_from_a_covering_index_then_from_memory(self, db: SqliteDatabase) -> None:
        """What made 10,000 headers fast, pinned as behaviour rather than as a wall-clock bound (a
        loaded machine breaks any bound): the first read is one index-only scan that never
        touches a payload, and later reads at the same revision do not query the assets at all."""
        writer = SqliteCatalogue(db, "acme")
        payload = {"columns": [{"name": f"c{i}", "type": "text", "doc": "x" * 40} for i in range(40)]}
        for batch in range(3):
            writer.put_assets(
                [asset(f"a{batch}{i:02d}", f"wh/s{i % 7}/t{batch}_{i}", payload=payload) for i in range(90)]
            )
        statements: list[str] = []
        conn = db.connection()
        conn.set_trace_callback(statements.append)
        try:
            reader = SqliteCatalogue(db, "acme")
            first = reader.headers()
            assert len(first) == 270
            (scan,) = [sql for sql in statements if "FROM catalogue_assets" in sql]
            assert "payload" not in scan
            plan = " ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + scan).fetchall())
            assert "COVERING INDEX catalogue_asset_headers" in plan, plan

            statements.clear()
            assert reader.headers() == first
            assert not [sql for sql in statements if "FROM catalogue_assets" in sql]
        finally:
            conn.set_trace_callback(None)
        headers = writer.headers()
        assert headers == sorted(headers, key=lambda h: (h.path, h.asset_id))
        writer.put_assets([asset("a00000", "aaa/first")])
        assert writer.headers()[0].path == "aaa/first"  # a write moves the revision: read again


class TestSqliteConversationMemory(ConversationMemoryContract):
    @pytest.fixture
    def make_memory(self, db: SqliteDatabase) -> MemoryFactory:
        return lambda tenant: SqliteConversationMemory(db, tenant)
