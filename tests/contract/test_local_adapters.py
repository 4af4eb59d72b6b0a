"""Local (embedded) adapters against the port contracts."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmem.adapters.local.blob_folder import FolderBlobStore
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.adapters.local.sqlite_shadow_ledger import SqliteShadowLedger
from agentmem.adapters.local.sqlite_vector_cache import SqliteVectorCache
from agentmem.ports.blobs import BlobStore
from tests.contract.blob_store_contract import BlobStoreContract
from tests.contract.checkpoint_store_contract import CheckpointFactory, CheckpointStoreContract
from tests.contract.event_log_contract import EventLogContract, LogFactory
from tests.contract.log_tail_contract import LogTailContract, TailedLogFactory
from tests.contract.shadow_ledger_contract import LedgerFactory, ShadowLedgerContract
from tests.contract.vector_cache_contract import CacheFactory, VectorCacheContract


class TestSqliteEventLog(EventLogContract):
    @pytest.fixture
    def make_log(self, tmp_path: Path) -> LogFactory:
        db = SqliteDatabase(tmp_path / "agentmem.db")
        return lambda tenant: SqliteEventLog(db, tenant)


class TestSqliteLogTail(LogTailContract):
    @pytest.fixture
    def make_log(self, tmp_path: Path) -> TailedLogFactory:
        db = SqliteDatabase(tmp_path / "agentmem.db")
        return lambda tenant: SqliteEventLog(db, tenant)


class TestSqliteCheckpoints(CheckpointStoreContract):
    @pytest.fixture
    def make_checkpoints(self, tmp_path: Path) -> CheckpointFactory:
        db = SqliteDatabase(tmp_path / "agentmem.db")
        return lambda tenant: SqliteCheckpoints(db, tenant)


class TestSqliteShadowLedger(ShadowLedgerContract):
    @pytest.fixture
    def make_ledger(self, tmp_path: Path) -> LedgerFactory:
        db = SqliteDatabase(tmp_path / "agentmem.db")
        return lambda tenant: SqliteShadowLedger(db, tenant)


class TestSqliteVectorCache(VectorCacheContract):
    @pytest.fixture
    def make_cache(self, tmp_path: Path) -> CacheFactory:
        db = SqliteDatabase(tmp_path / "agentmem.db")
        return lambda tenant: SqliteVectorCache(db, tenant)


class TestFolderBlobStore(BlobStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> BlobStore:
        return FolderBlobStore(tmp_path / "blobs")
