"""The in-memory fakes of tests/fakes.py against the same contracts as the adapters they stand in for."""

from __future__ import annotations

import pytest

from tests.contract.checkpoint_store_contract import CheckpointFactory, CheckpointStoreContract
from tests.contract.event_log_contract import EventLogContract, LogFactory
from tests.contract.log_tail_contract import LogTailContract, TailedLogFactory
from tests.fakes import CheckpointData, InMemoryCheckpoints, InMemoryEventLog, LogStore


class TestInMemoryEventLog(EventLogContract):
    @pytest.fixture
    def make_log(self) -> LogFactory:
        store = LogStore()
        return lambda tenant: InMemoryEventLog(store, tenant)


class TestInMemoryLogTail(LogTailContract):
    @pytest.fixture
    def make_log(self) -> TailedLogFactory:
        store = LogStore()
        return lambda tenant: InMemoryEventLog(store, tenant)


class TestInMemoryCheckpoints(CheckpointStoreContract):
    @pytest.fixture
    def make_checkpoints(self) -> CheckpointFactory:
        data = CheckpointData()
        return lambda tenant: InMemoryCheckpoints(data, tenant)
