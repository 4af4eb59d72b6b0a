"""Local (embedded) adapters against the port contracts."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmem.adapters.local.blob_folder import FolderBlobStore
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_log import SqliteEventLog
from agentmem.ports.blobs import BlobStore
from tests.contract.blob_store_contract import BlobStoreContract
from tests.contract.event_log_contract import EventLogContract, LogFactory


class TestSqliteEventLog(EventLogContract):
    @pytest.fixture
    def make_log(self, tmp_path: Path) -> LogFactory:
        db = SqliteDatabase(tmp_path / "agentmem.db")
        return lambda tenant: SqliteEventLog(db, tenant)


class TestFolderBlobStore(BlobStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> BlobStore:
        return FolderBlobStore(tmp_path / "blobs")
