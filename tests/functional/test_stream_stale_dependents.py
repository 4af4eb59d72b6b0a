"""The stream projector marks stale dependents in the step that projects the record, with the
dependents index on DynamoDB (in-process moto, real boto3 calls) as on AWS; the beliefs stay in
the local index, since no OpenSearch server runs here (its request shapes are tested offline)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from agentmem.adapters.aws.dynamodb_dependents import DynamoDbDependentsIndex
from agentmem.entrypoints.stream import stream_handler
from agentmem.model.dependents import BeliefRef, BeliefUse
from agentmem.settings import Settings
from agentmem.wiring import bootstrap
from tests.aws_fixtures import fake_log_table
from tests.conftest import FakeLambdaContext, load_event

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

TABLE = "agentmem-log"
RISK = BeliefRef(subject_id="priya", key="risk_tolerance")


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoDBClient]:
    yield from fake_log_table(monkeypatch, TABLE)


def stated(value: str, seq: int) -> dict[str, Any]:
    """The stream sample's insert, as the event of `seq` in its session stating `value`."""
    event = load_event("stream_insert_event.json")
    record = event["Records"][0]
    image = record["dynamodb"]["NewImage"]
    image["seq"], image["sk"] = {"N": str(seq)}, {"S": f"E#{seq:012d}"}
    record["dynamodb"]["Keys"]["sk"] = image["sk"]
    image["event_id"] = {"S": f"ev_stream_{seq}"}
    image["created_at"] = {"S": f"2026-03-02T09:1{seq}:05.120Z"}
    fact = {"key": "risk_tolerance", "text": f"Priya's risk tolerance is {value}.", "value": value}
    image["facts_json"] = {"S": json.dumps([fact])}
    return copy.deepcopy(event)


def test_the_stream_projector_marks_what_cites_a_belief_it_moves(
    tmp_path: Path, dynamodb: DynamoDBClient
) -> None:
    dependents = DynamoDbDependentsIndex(TABLE, "acme", client=dynamodb)
    services = bootstrap(Settings(data_dir=tmp_path / "data", tenant_id="acme"), dependents=dependents)
    handler = stream_handler(services)
    dependents.record("guidance:before", [BeliefUse(RISK, 0)], body="v1")  # cited before stated

    assert handler(stated("cautious", 1), FakeLambdaContext()) == {"batchItemFailures": []}
    dependents.record("guidance:after", [BeliefUse(RISK, 1)], body="v1")
    assert [s.reason for s in dependents.stale_of("guidance:before")] == ["new"]
    assert dependents.stale_of("guidance:after") == []

    handler(stated("aggressive", 2), FakeLambdaContext())
    handler(stated("aggressive", 2), FakeLambdaContext())  # at least once: redelivered

    (stale,) = dependents.stale_of("guidance:after")
    assert (stale.belief, stale.from_version, stale.to_version) == ("priya/risk_tolerance", 1, 2)
    assert dependents.stale_of("guidance:before")[0].to_version == 2
