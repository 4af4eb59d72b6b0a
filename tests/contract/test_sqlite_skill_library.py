"""The SQLite skill library against the SkillLibrary and StampedLibrary contracts, plus its foreign keys."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_skills import SqliteSkillLibrary
from tests.contract.skill_library_contract import LibraryFactory, SkillLibraryContract, fn
from tests.contract.stamped_library_contract import StampedLibraryContract


class TestSqliteSkillLibrary(SkillLibraryContract, StampedLibraryContract):
    @pytest.fixture
    def db(self, tmp_path: Path) -> SqliteDatabase:
        return SqliteDatabase(tmp_path / "db")

    @pytest.fixture
    def make_library(self, db: SqliteDatabase) -> LibraryFactory:
        return lambda tenant: SqliteSkillLibrary(db, tenant)

    def test_foreign_keys_are_enforced_by_sqlite(
        self, db: SqliteDatabase, make_library: LibraryFactory
    ) -> None:
        library = make_library("acme")
        library.put_function(fn("base"))
        library.put_function(fn("user", "base"))
        with pytest.raises(sqlite3.IntegrityError), db.write() as conn:
            conn.execute("INSERT INTO skill_links VALUES ('acme', 'ghost-guide', 'base', 0, 0)")
        with pytest.raises(sqlite3.IntegrityError), db.write() as conn:
            conn.execute("DELETE FROM skill_functions WHERE tenant_id='acme' AND function_id='base'")
        assert library.get_function("base").version == 1

    def test_cached_stamps_follow_writes_made_through_another_handle(
        self, db: SqliteDatabase, make_library: LibraryFactory
    ) -> None:
        reader, writer = SqliteSkillLibrary(db, "acme"), SqliteSkillLibrary(db, "acme")
        writer.put_function(fn("base"))
        assert [s[:3] for s in reader.stamps()] == [("function", "base", "draft")]
        writer.approve("function", "base")
        assert [s[:3] for s in reader.stamps()] == [("function", "base", "approved")]
        writer.delete_function("base")
        assert reader.stamps() == []
