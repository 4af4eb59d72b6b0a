"""The erasure ports' contracts on SQLite and on moto (the stack's table)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from agentmem.adapters.aws.dynamodb_erasures import DynamoDbErasureLedger
from agentmem.adapters.aws.dynamodb_log import DynamoDbEventLog
from agentmem.adapters.aws.dynamodb_subject_log import DynamoDbSubjectLog
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_erasures import SqliteErasureLedger
from agentmem.adapters.local.sqlite_log import SqliteEventLog
from agentmem.adapters.local.sqlite_subject_log import SqliteSubjectLog
from tests.aws_fixtures import create_log_table, use_fake_aws_environment
from tests.contract.subject_erasure_contract import (
    Backend,
    ErasedSubjectsContract,
    ErasureLedgerContract,
    Factory,
    SubjectLogContract,
)

TABLE = "agentmem-log"


@pytest.fixture
def sqlite(tmp_path: Path) -> Factory:
    db = SqliteDatabase(tmp_path / "agentmem.db")
    return lambda tenant: Backend(
        SqliteEventLog(db, tenant), SqliteSubjectLog(db, tenant), SqliteErasureLedger(db, tenant)
    )


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[Factory]:
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        client = boto3.client("dynamodb")
        create_log_table(client, TABLE)
        yield lambda tenant: Backend(
            DynamoDbEventLog(TABLE, tenant, client=client),
            DynamoDbSubjectLog(TABLE, tenant, client=client),
            DynamoDbErasureLedger(TABLE, tenant, client=client),
        )


class TestSqliteErasureLedger(ErasureLedgerContract):
    @pytest.fixture
    def make(self, sqlite: Factory) -> Factory:
        return sqlite


class TestSqliteErasedSubjects(ErasedSubjectsContract):
    @pytest.fixture
    def make(self, sqlite: Factory) -> Factory:
        return sqlite


class TestSqliteSubjectLog(SubjectLogContract):
    @pytest.fixture
    def make(self, sqlite: Factory) -> Factory:
        return sqlite


class TestDynamoDbErasureLedger(ErasureLedgerContract):
    @pytest.fixture
    def make(self, dynamodb: Factory) -> Factory:
        return dynamodb


class TestDynamoDbErasedSubjects(ErasedSubjectsContract):
    @pytest.fixture
    def make(self, dynamodb: Factory) -> Factory:
        return dynamodb


class TestDynamoDbSubjectLog(SubjectLogContract):
    @pytest.fixture
    def make(self, dynamodb: Factory) -> Factory:
        return dynamodb
