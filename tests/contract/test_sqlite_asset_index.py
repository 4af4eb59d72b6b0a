"""The SQLite asset index against the AssetIndex contract, plus what only it promises."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_asset_index import SqliteAssetIndex
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.errors import AgentMemError
from tests.contract.asset_index_contract import (
    EAST,
    NORTH,
    AssetIndexContract,
    IndexFactory,
    asset,
    ids,
    scores,
)


@pytest.fixture
def db(tmp_path: Path) -> SqliteDatabase:
    return SqliteDatabase(tmp_path / "db")


class TestSqliteAssetIndex(AssetIndexContract):
    @pytest.fixture
    def make_index(self, db: SqliteDatabase) -> IndexFactory:
        return lambda tenant: SqliteAssetIndex(db, tenant)


def test_an_id_put_twice_in_one_update_keeps_the_last(db: SqliteDatabase) -> None:
    index = SqliteAssetIndex(db, "acme")
    index.update([asset("a", "first", EAST, 1), asset("a", "second", NORTH, 2)], [])
    assert index.stamps() == {"a": 2}
    assert ids(index.keyword_search("second", {"a"}, 5)) == ["a"]


def test_an_unnormalised_vector_still_ranks_by_angle(db: SqliteDatabase) -> None:
    index = SqliteAssetIndex(db, "acme")
    index.update([asset("long", "x", [3.0, 0.0, 0.0, 0.0]), asset("tilted", "y", [0.6, 0.8, 0.0, 0.0])], [])
    found = index.vector_search([2.0, 0.0, 0.0, 0.0], {"long", "tilted"}, 5)
    assert ids(found) == ["long", "tilted"]
    assert scores(found) == pytest.approx([1.0, 0.6])


def test_a_query_of_another_dimension_is_refused(db: SqliteDatabase) -> None:
    index = SqliteAssetIndex(db, "acme")
    index.update([asset("a", "x", EAST)], [])
    with pytest.raises(AgentMemError, match="4-dimension"):
        index.vector_search([1.0, 0.0], {"a"}, 5)


def test_keyword_search_pages_past_many_better_matches_outside_allowed(db: SqliteDatabase) -> None:
    index = SqliteAssetIndex(db, "acme")
    # 600 better matches fill the first pages; the one allowed match ranks below all of them.
    index.update([asset(f"hit-{i:03}", "invoice invoice", EAST) for i in range(600)], [])
    index.update([asset("wanted", "invoice and a much longer text about other things", EAST)], [])
    assert ids(index.keyword_search("invoice", {"wanted", "absent"}, 5)) == ["wanted"]


def test_a_reused_fts_rowid_maps_to_its_new_asset(db: SqliteDatabase) -> None:
    index = SqliteAssetIndex(db, "acme")
    index.update([asset("a", "alpha words", EAST), asset("b", "beta words", NORTH)], [])
    assert ids(index.keyword_search("beta", {"a", "b", "c"}, 5)) == ["b"]
    # Deleting the last FTS row lets SQLite hand its rowid to the next insert.
    index.update([asset("c", "gamma words", NORTH)], ["b"])
    assert index.keyword_search("beta", {"a", "b", "c"}, 5) == []
    assert ids(index.keyword_search("gamma", {"a", "b", "c"}, 5)) == ["c"]


def test_searches_on_other_threads_during_writes_stay_consistent(db: SqliteDatabase) -> None:
    writer = SqliteAssetIndex(db, "acme")
    reader = SqliteAssetIndex(db, "acme")
    scope = frozenset(f"a{i}" for i in range(0, 200, 2))  # the even ids only
    failures: list[str] = []

    def search() -> None:
        for _ in range(30):
            for found in (reader.vector_search(EAST, scope, 10), reader.keyword_search("shared", scope, 10)):
                if not set(ids(found)) <= scope:
                    failures.append(f"out of scope: {ids(found)}")

    threads = [threading.Thread(target=search) for _ in range(2)]
    for thread in threads:
        thread.start()
    for start in range(0, 200, 20):
        writer.update([asset(f"a{i}", "shared text", EAST) for i in range(start, start + 20)], [])
    for thread in threads:
        thread.join()
    assert failures == []
    assert ids(reader.vector_search(EAST, scope, 3)) == ["a0", "a10", "a100"]
