"""Both projection status stores against the ProjectionStatusStore contract: SQLite in the data
dir's database, DynamoDB in the stack's table (in-process moto)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import boto3
import pytest
from moto import mock_aws

from agentmem.adapters.aws.dynamodb_projection_status import DynamoDbProjectionStatus
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_projection_status import SqliteProjectionStatus
from tests.aws_fixtures import create_log_table, use_fake_aws_environment
from tests.contract.projection_status_contract import FAILING, ProjectionStatusContract, StatusFactory

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

TABLE = "agentmem-log"


class TestSqliteProjectionStatus(ProjectionStatusContract):
    @pytest.fixture
    def make_status(self, tmp_path: Path) -> StatusFactory:
        return lambda tenant: SqliteProjectionStatus(SqliteDatabase(tmp_path / "agentmem.db"), tenant)


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoDBClient]:
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        client = boto3.client("dynamodb")
        create_log_table(client, TABLE)
        yield client


class TestDynamoDbProjectionStatus(ProjectionStatusContract):
    @pytest.fixture
    def make_status(self, dynamodb: DynamoDBClient) -> StatusFactory:
        return lambda tenant: DynamoDbProjectionStatus(TABLE, tenant, client=dynamodb)


def test_the_dynamodb_status_is_one_item_in_the_tenants_status_partition(dynamodb: DynamoDBClient) -> None:
    # The stack grants the projector and the read function this partition only (infra/constructs/storage.py).
    DynamoDbProjectionStatus(TABLE, "acme", client=dynamodb).save(FAILING)
    (item,) = dynamodb.scan(TableName=TABLE)["Items"]
    assert item["pk"] == {"S": "T#acme#STATUS#projector"}
    assert item["entity"] == {"S": "projection_status"}


def test_a_read_function_reads_the_status_at_most_once_per_max_age(dynamodb: DynamoDBClient) -> None:
    now = [100.0]
    reader = DynamoDbProjectionStatus(
        TABLE, "acme", client=dynamodb, max_age_seconds=5.0, clock=lambda: now[0]
    )
    writer = DynamoDbProjectionStatus(TABLE, "acme", client=dynamodb)
    assert reader.load().state == "ok"
    writer.save(FAILING)
    now[0] += 4.9
    assert reader.load().state == "ok"  # trusted for 5 s: a GetItem per read would slow every read
    now[0] += 0.2
    assert reader.load() == FAILING
