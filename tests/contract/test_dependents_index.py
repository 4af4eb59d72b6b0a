"""Both dependents indexes against the DependentsIndex contract: SQLite in the data dir's database,
DynamoDB in the stack's log table (in-process moto, real boto3 calls)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import boto3
import pytest
from moto import mock_aws

from agentmem.adapters.aws.dynamodb_dependents import DynamoDbDependentsIndex
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_dependents import SqliteDependentsIndex
from agentmem.model.dependents import BeliefUse
from tests.aws_fixtures import create_log_table, use_fake_aws_environment
from tests.contract.dependents_index_contract import RISK, DependentsIndexContract, IndexFactory

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

TABLE = "agentmem-log"


class TestSqliteDependentsIndex(DependentsIndexContract):
    @pytest.fixture
    def make_index(self, tmp_path: Path) -> IndexFactory:
        return lambda tenant: SqliteDependentsIndex(SqliteDatabase(tmp_path / "agentmem.db"), tenant)


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoDBClient]:
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        client = boto3.client("dynamodb")
        create_log_table(client, TABLE)
        yield client


class TestDynamoDbDependentsIndex(DependentsIndexContract):
    @pytest.fixture
    def make_index(self, dynamodb: DynamoDBClient) -> IndexFactory:
        return lambda tenant: DynamoDbDependentsIndex(TABLE, tenant, client=dynamodb)


def test_the_dynamodb_items_live_in_the_dependents_and_cited_partitions(dynamodb: DynamoDBClient) -> None:
    # The stack grants these partitions only (infra/constructs/storage.py); none is an event.
    DynamoDbDependentsIndex(TABLE, "acme", client=dynamodb).record("guidance:g", [BeliefUse(RISK, 1)], "v1")
    items = dynamodb.scan(TableName=TABLE)["Items"]
    assert sorted((i["pk"]["S"], i["sk"]["S"]) for i in items) == [
        ("T#acme#CITED#priya", "risk_tolerance//guidance:g"),
        ("T#acme#DEP#guidance:g", "BODY"),
        ("T#acme#DEP#guidance:g", "USE#priya/risk_tolerance/"),
    ]
    assert all(i["entity"]["S"].startswith("dependent_") for i in items)
