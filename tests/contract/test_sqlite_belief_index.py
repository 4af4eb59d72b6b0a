"""The SQLite belief store against the BeliefIndex contract."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_belief_store import SqliteBeliefStore
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from tests.contract.belief_index_contract import BeliefIndexContract, StoreFactory


class TestSqliteBeliefIndex(BeliefIndexContract):
    @pytest.fixture
    def make_store(self, tmp_path: Path) -> StoreFactory:
        db = SqliteDatabase(tmp_path / "db")
        return lambda tenant: SqliteBeliefStore(db, tenant)
