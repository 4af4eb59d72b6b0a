"""The SQLite passage store against the PassageIndex contract."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_passage_store import SqlitePassageStore
from tests.contract.passage_index_contract import EAST, GARDEN, PassageIndexContract, StoreFactory


class TestSqlitePassageIndex(PassageIndexContract):
    @pytest.fixture
    def make_store(self, tmp_path: Path) -> StoreFactory:
        db = SqliteDatabase(tmp_path / "db")
        return lambda tenant: SqlitePassageStore(db, tenant)


def test_another_process_sees_an_erasure(tmp_path: Path) -> None:
    # Two stores on one file stand for the reader and the eraser: the reader's cached matrix
    # must not keep serving an erased subject.
    reader = SqlitePassageStore(SqliteDatabase(tmp_path / "db"), "acme")
    eraser = SqlitePassageStore(SqliteDatabase(tmp_path / "db"), "acme")
    reader.generation(1).add([GARDEN], [EAST])
    assert reader.active().vector_search("priya", EAST, 1)
    eraser.erase_subject("priya")
    assert reader.active().vector_search("priya", EAST, 1) == []
