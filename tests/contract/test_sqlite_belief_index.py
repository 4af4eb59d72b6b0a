"""The SQLite belief store against the BeliefIndex contract."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_belief_store import SqliteBeliefStore
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from tests.contract.belief_index_contract import (
    EAST,
    BeliefIndexContract,
    StoreFactory,
    chain_of,
    observation,
    ready,
)


class TestSqliteBeliefIndex(BeliefIndexContract):
    @pytest.fixture
    def make_store(self, tmp_path: Path) -> StoreFactory:
        db = SqliteDatabase(tmp_path / "db")
        return lambda tenant: SqliteBeliefStore(db, tenant)


def test_a_database_from_before_disjoint_archive_ids_is_migrated_once(tmp_path: Path) -> None:
    # Given generation 1 written by the earlier schema: archived versions at `<id>__v<N>`
    db = SqliteDatabase(tmp_path / "db")
    index = ready(SqliteBeliefStore(db, "acme")).active()
    moved = chain_of(
        observation(1, "city", "Paris"), observation(2, "city", "Rome"), observation(3, "city", "Oslo")
    )
    old_style = [
        b.model_copy(update={"doc_id": f"city__v{b.version}"}) if not b.current else b for b in moved
    ]
    index.replace_chain("priya", "city", "", expected_revision=0, chain=old_style, vector=EAST)
    lookalike = chain_of(observation(4, "city__v9", "Lima"))  # a current belief: never renamed
    index.replace_chain("priya", "city__v9", "", expected_revision=0, chain=lookalike, vector=EAST)
    with db.write() as conn:
        conn.execute("DELETE FROM schema_versions WHERE component='beliefs_g1'")

    # When a process of this version opens it (twice: the migration is idempotent)
    for _ in range(2):
        reopened = SqliteBeliefStore(db, "acme").active()

    # Then the archived rows, and the doc ids inside their bodies, took the new identity
    assert reopened.chain("priya", "city", "")[1] == moved
    assert [b.doc_id for b in reopened.history("priya", "city")] == ["city@v1", "city@v2", "city"]
    assert reopened.chain("priya", "city__v9", "")[1] == lookalike
    rows = db.connection().execute("SELECT doc_id FROM beliefs_g1 ORDER BY doc_id").fetchall()
    assert [row[0] for row in rows] == ["city", "city@v1", "city@v2", "city__v9"]
