"""Both dependents indexes against the DependentsIndex contract: SQLite in the data dir's database,
DynamoDB in the stack's log table (in-process moto, real boto3 calls)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agentmem.adapters.aws.dynamodb_dependents import DynamoDbDependentsIndex
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_dependents import SCHEMA as SQLITE_SCHEMA
from agentmem.adapters.local.sqlite_dependents import SqliteDependentsIndex
from agentmem.model.dependents import BeliefUse
from tests.aws_fixtures import fake_log_table
from tests.contract.dependents_index_contract import RISK, Clock, DependentsIndexContract, IndexFactory

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

TABLE = "agentmem-log"


class TestSqliteDependentsIndex(DependentsIndexContract):
    @pytest.fixture
    def make_index(self, tmp_path: Path, clock: Clock) -> IndexFactory:
        db = tmp_path / "agentmem.db"
        return lambda tenant: SqliteDependentsIndex(SqliteDatabase(db), tenant, clock=clock)


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoDBClient]:
    yield from fake_log_table(monkeypatch, TABLE)


class TestDynamoDbDependentsIndex(DependentsIndexContract):
    @pytest.fixture
    def make_index(self, dynamodb: DynamoDBClient, clock: Clock) -> IndexFactory:
        return lambda tenant: DynamoDbDependentsIndex(TABLE, tenant, client=dynamodb, clock=clock)


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


def test_a_kept_report_carries_the_tables_ttl_attribute_on_both_sides(dynamodb: DynamoDBClient) -> None:
    # `expires_at` is the table's TTL attribute (infra/constructs/storage.py): DynamoDB removes the
    # report's body, its uses and the cited items seen from the belief, so neither side piles up.
    index = DynamoDbDependentsIndex(TABLE, "acme", client=dynamodb, clock=lambda: 1_800_000_000)
    index.record("report:r", [BeliefUse(RISK, 1)], "{}", ttl=timedelta(days=7))
    index.record("guidance:g", [BeliefUse(RISK, 1)], "v1")
    expiry = {
        (i["pk"]["S"], i["sk"]["S"]): i.get("expires_at", {}).get("N")
        for i in dynamodb.scan(TableName=TABLE)["Items"]
    }
    week = str(1_800_000_000 + 7 * 86_400)
    assert expiry == {
        ("T#acme#DEP#report:r", "BODY"): week,
        ("T#acme#DEP#report:r", "USE#priya/risk_tolerance/"): week,
        ("T#acme#CITED#priya", "risk_tolerance//report:r"): week,
        ("T#acme#DEP#guidance:g", "BODY"): None,
        ("T#acme#DEP#guidance:g", "USE#priya/risk_tolerance/"): None,
        ("T#acme#CITED#priya", "risk_tolerance//guidance:g"): None,
    }
    assert index.expire() == 0  # the table's TTL does it


def test_the_local_sweep_deletes_what_expired_and_nothing_else(tmp_path: Path) -> None:
    clock = Clock()
    db = SqliteDatabase(tmp_path / "agentmem.db")
    index = SqliteDependentsIndex(db, "acme", clock=clock)
    index.record("report:r", [BeliefUse(RISK, 1)], "{}", ttl=timedelta(days=7))
    index.record("cache:c", [BeliefUse(RISK, 1)], ttl=timedelta(days=7))
    index.record("guidance:g", [BeliefUse(RISK, 1)], "v1")
    assert index.expire() == 0
    clock.now += 7 * 86_400
    assert index.expire() == 2
    for table in ("dependent_uses", "dependent_bodies"):
        rows = db.connection().execute(f"SELECT DISTINCT dependent FROM {table}").fetchall()
        assert [row[0] for row in rows] == ["guidance:g"]


def test_an_index_made_before_expiry_existed_is_migrated(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "agentmem.db")
    db.apply_schema(SQLITE_SCHEMA)  # the tables as the first release made them, with a row
    with db.write() as conn:
        conn.execute("INSERT INTO dependent_bodies VALUES ('acme', 'guidance:g', 'v1')")
    index = SqliteDependentsIndex(db, "acme")
    assert index.body_of("guidance:g") == "v1"
    index.record("report:r", [BeliefUse(RISK, 1)], "{}", ttl=timedelta(days=7))
    assert index.body_of("report:r") == "{}"
