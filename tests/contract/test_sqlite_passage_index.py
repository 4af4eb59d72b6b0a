"""The SQLite passage store against the PassageIndex contract."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agentmem.adapters.local.fts import scope_token
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_passage_schema import SCHEMA
from agentmem.adapters.local.sqlite_passage_store import SqlitePassageStore
from agentmem.adapters.local.sqlite_passages import session_token
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


def test_a_data_dir_from_before_vector_stamps_keeps_its_vectors(tmp_path: Path) -> None:
    # Tables made before the vector lane have no `embedded` stamp: opening them must stamp every
    # vector already there, or vector search (which catches up by stamp) would see none of them.
    db = SqliteDatabase(tmp_path / "db")
    db.apply_schema(SCHEMA.format(g=1))
    with db.write() as conn:
        conn.execute(
            "INSERT INTO passages_g1 VALUES (NULL,?,?,?,?,?,?)",
            (
                "acme",
                "priya",
                GARDEN.passage_id,
                "s1",
                GARDEN.model_dump_json(),
                np.asarray(EAST, "f4").tobytes(),
            ),
        )
        conn.execute(
            "INSERT INTO passages_fts_g1(rowid, text, scope, session) VALUES (1, ?, ?, ?)",
            (GARDEN.text, scope_token("acme", "priya"), session_token("s1")),
        )
    index = SqlitePassageStore(db, "acme").generation(1)
    assert index.pending_count("priya") == 0
    assert [h.passage for h in index.vector_search("priya", EAST, 5)] == [GARDEN]
    assert index.add([GARDEN], [EAST]) == 0
    later = passage("s2", 2, "A later turn about pears.")
    assert index.add([later], None) == 1 and index.pending(5) == [later]
