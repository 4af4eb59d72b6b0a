"""The SQLite skill index against the SkillIndex contract."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_skill_index import SqliteSkillIndex
from tests.contract.skill_index_contract import IndexFactory, SkillIndexContract


class TestSqliteSkillIndex(SkillIndexContract):
    @pytest.fixture
    def make_index(self, tmp_path: Path) -> IndexFactory:
        db = SqliteDatabase(tmp_path / "db")
        return lambda tenant: SqliteSkillIndex(db, tenant)
