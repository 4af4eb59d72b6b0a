"""The retention contracts on SQLite. AWS has neither port: DynamoDB TTL and an S3 lifecycle rule
expire events and blobs, and the observation index, never expired, is the snapshot there
(the local factory's retention_sweeper and observation_snapshot; docs/erasure.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmem.adapters.local.blob_folder import FolderBlobStore
from agentmem.adapters.local.sqlite_belief_store import SqliteBeliefStore
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_log import SqliteEventLog
from agentmem.adapters.local.sqlite_retention import SqliteObservationSnapshot, SqliteRetention
from tests.contract.retention_contract import (
    NOW,
    RETENTION_DAYS,
    Factory,
    ObservationSnapshotContract,
    RetentionBackend,
    RetentionSweeperContract,
)


@pytest.fixture
def sqlite(tmp_path: Path) -> Factory:
    db, blobs = SqliteDatabase(tmp_path / "agentmem.db"), FolderBlobStore(tmp_path / "blobs")
    return lambda tenant: RetentionBackend(
        log=SqliteEventLog(db, tenant),
        store=SqliteBeliefStore(db, tenant),
        blobs=blobs,
        snapshot=SqliteObservationSnapshot(db, tenant),
        sweeper=SqliteRetention(db, tenant, blobs, retention_days=RETENTION_DAYS, now=lambda: NOW),
    )


class TestSqliteRetention(RetentionSweeperContract):
    @pytest.fixture
    def make(self, sqlite: Factory) -> Factory:
        return sqlite


class TestSqliteObservationSnapshot(ObservationSnapshotContract):
    @pytest.fixture
    def make(self, sqlite: Factory) -> Factory:
        return sqlite
