"""The SQLite passage store against the PassageIndex contract."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_passage_store import SqlitePassageStore
from tests.contract.passage_index_contract import EAST, GARDEN, PassageIndexContract, StoreFactory, passage


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


def test_words_most_passages_hold_are_left_out_of_the_keyword_ranking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # FTS5 scores every matching row before sorting: a word in most passages would make every
    # read a full scan, for a ranking its low idf barely moves.
    import agentmem.adapters.local.sqlite_passages as module

    monkeypatch.setattr(module, "COMMON", 3)
    index = SqlitePassageStore(SqliteDatabase(tmp_path / "db"), "acme").generation(1)
    common = [passage("s1", n, f"The weather report number {n}.") for n in range(1, 5)]
    rare = passage("s2", 9, "The weather on the allotment was fine.")
    index.add([*common, rare], [EAST] * 5)
    assert [h.passage for h in index.keyword_search("priya", "weather allotment", 5)] == [rare]
    assert index.keyword_search("priya", "weather", 5) == []  # only common words: no keyword ranking
