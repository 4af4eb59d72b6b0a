"""Redrive of the projector's on-failure queue and catch-up of a session, on moto through boto3.

Events are appended by the real DynamoDB log adapter into a moto table with a stream; the on-failure
message is built as Lambda writes it (DDBStreamBatchInfo: stream ARN, shard, sequence range). The
semantic tier is the local one, so what was projected can be read back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

from agentmem.adapters.aws.dynamodb_log import DynamoDbEventLog
from agentmem.entrypoints.cli import main
from agentmem.entrypoints.redrive import BatchInfo, redrive
from agentmem.errors import InvalidInputError
from agentmem.model.beliefs import FactInput
from agentmem.model.events import AppendEventRequest
from agentmem.semantic.catch_up import catch_up
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.aws_fixtures import create_log_table, use_fake_aws_environment

TABLE = "agentmem-acme-log"


@pytest.fixture
def aws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        dynamodb = boto3.client("dynamodb")
        stream_arn = create_log_table(dynamodb, TABLE)
        sqs = boto3.client("sqs")
        # Visible again at once, so a kept message can be seen in the queue by the test.
        queue_url = sqs.create_queue(QueueName="dead-letters", Attributes={"VisibilityTimeout": "0"})[
            "QueueUrl"
        ]
        log = DynamoDbEventLog(TABLE, "acme", client=dynamodb)
        settings = Settings(backend="local", tenant_id="acme", table_name=TABLE, data_dir=tmp_path / "data")
        services = bootstrap(settings, event_log=log)
        yield {
            "services": services,
            "dynamodb": dynamodb,
            "streams": boto3.client("dynamodbstreams"),
            "sqs": sqs,
            "queue_url": queue_url,
            "stream_arn": stream_arn,
        }


def append(services: Services, session: str, value: str) -> None:
    fact = FactInput(key="risk_tolerance", text=f"Priya's risk tolerance is {value}.", value=value)
    request = AppendEventRequest(
        subject_id="priya", round=0, agent="intake", kind="profile", content={"risk": value}, facts=[fact]
    )
    services.episodic.append(session, request)


def event_inserts(aws: dict[str, Any]) -> tuple[str, list[str]]:
    """The shard id and the sequence numbers of the stream's event inserts, in order."""
    streams = aws["streams"]
    (shard,) = streams.describe_stream(StreamArn=aws["stream_arn"])["StreamDescription"]["Shards"]
    iterator = streams.get_shard_iterator(
        StreamArn=aws["stream_arn"], ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    records = streams.get_records(ShardIterator=iterator)["Records"]
    return shard["ShardId"], [
        r["dynamodb"]["SequenceNumber"]
        for r in records
        if r["eventName"] == "INSERT" and r["dynamodb"]["Keys"]["sk"]["S"].startswith("E#")
    ]


def send_failure(aws: dict[str, Any], shard: str, start: str, end: str) -> None:
    body = {
        "requestContext": {"condition": "RetryAttemptsExhausted", "approximateInvokeCount": 6},
        "version": "1.0",
        "DDBStreamBatchInfo": {
            "shardId": shard,
            "startSequenceNumber": start,
            "endSequenceNumber": end,
            "approximateArrivalOfFirstRecord": "2026-03-02T09:14:05Z",
            "approximateArrivalOfLastRecord": "2026-03-02T09:14:06Z",
            "batchSize": 2,
            "streamArn": aws["stream_arn"],
        },
    }
    aws["sqs"].send_message(QueueUrl=aws["queue_url"], MessageBody=json.dumps(body))


def run(aws: dict[str, Any], **kwargs: Any) -> Any:
    return redrive(
        aws["services"],
        queue_url=aws["queue_url"],
        sqs=aws["sqs"],
        streams=aws["streams"],
        dynamodb=aws["dynamodb"],
        **kwargs,
    )


def queued(aws: dict[str, Any]) -> int:
    attributes = aws["sqs"].get_queue_attributes(QueueUrl=aws["queue_url"], AttributeNames=["All"])
    return sum(
        int(attributes["Attributes"][name])
        for name in ("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible")
    )


def current(services: Services) -> list[tuple[str, str]]:
    return [(b.key, b.value or "") for b in services.semantic.current("priya")]


def test_redrive_projects_exactly_the_failed_range_and_deletes_its_message(aws: dict[str, Any]) -> None:
    services = aws["services"]
    for session, value in [("s1", "cautious"), ("s2", "bold"), ("s3", "reckless")]:
        append(services, session, value)
    shard, sequences = event_inserts(aws)
    assert len(sequences) == 3
    send_failure(aws, shard, sequences[0], sequences[1])  # the third event is outside the range

    report = run(aws)

    assert (report.messages, report.redriven, report.events, report.gone) == (1, 1, 2, 0)
    (belief,) = services.semantic.current("priya")
    assert belief.value == "bold"  # s2's event, not s3's: the range ends at the second insert
    assert {p.session_id for p in belief.provenance} <= {"s1", "s2"}
    assert queued(aws) == 0


def test_a_redrive_run_twice_changes_nothing_more(aws: dict[str, Any]) -> None:
    services = aws["services"]
    append(services, "s1", "cautious")
    shard, (only,) = event_inserts(aws)
    send_failure(aws, shard, only, only)
    run(aws)
    before = [
        v.model_dump()
        for v in services.semantic.belief("priya", "risk_tolerance", history=True).history or []
    ]
    send_failure(aws, shard, only, only)

    assert run(aws).redriven == 1
    after = [
        v.model_dump()
        for v in services.semantic.belief("priya", "risk_tolerance", history=True).history or []
    ]
    assert after == before


def test_an_event_gone_from_the_table_is_not_projected_from_the_stream_image(aws: dict[str, Any]) -> None:
    append(aws["services"], "s1", "cautious")
    shard, (only,) = event_inserts(aws)
    aws["dynamodb"].delete_item(
        TableName=TABLE, Key={"pk": {"S": "T#acme#S#s1"}, "sk": {"S": "E#000000000001"}}
    )  # as an erasure or the retention TTL would
    send_failure(aws, shard, only, only)

    report = run(aws)

    assert (report.events, report.gone, report.redriven) == (0, 1, 1)
    assert current(aws["services"]) == []


def test_a_range_the_stream_no_longer_holds_is_kept_and_reported_expired(aws: dict[str, Any]) -> None:
    # moto never trims a stream; the error is the one DynamoDB Streams answers after 24 hours.
    append(aws["services"], "s1", "cautious")
    shard, (only,) = event_inserts(aws)
    send_failure(aws, shard, only, only)
    streams = boto3.client("dynamodbstreams")
    with Stubber(streams) as stub:
        stub.add_client_error("get_shard_iterator", "TrimmedDataAccessException", "trimmed")
        report = redrive(
            aws["services"], queue_url=aws["queue_url"], sqs=aws["sqs"], streams=streams,
            dynamodb=aws["dynamodb"], max_messages=1,
        )  # fmt: skip

    assert (report.redriven, [info.shard_id for info in report.expired]) == (0, [shard])
    assert queued(aws) == 1  # kept for a catch-up
    assert current(aws["services"]) == []


def test_a_message_that_is_not_a_stream_failure_is_kept_and_reported(aws: dict[str, Any]) -> None:
    aws["sqs"].send_message(QueueUrl=aws["queue_url"], MessageBody='{"Records": []}')
    report = run(aws, max_messages=1)
    assert report.redriven == 0 and "DDBStreamBatchInfo" in report.failed[0][1]
    assert queued(aws) == 1
    with pytest.raises(InvalidInputError) as caught:
        BatchInfo.from_message("not json")
    assert caught.value.field == "DDBStreamBatchInfo"


def test_catch_up_projects_a_session_from_the_table_and_is_idempotent(aws: dict[str, Any]) -> None:
    services = aws["services"]
    for value in ["cautious", "bold"]:
        append(services, "s1", value)
    append(services, "s2", "reckless")  # another session: not caught up

    result = catch_up(services.ports.event_log, services.semantic, "s1", page=1)

    assert (result.events_read, result.last_seq) == (2, 2)
    assert current(services) == [("risk_tolerance", "bold")]
    history = services.semantic.belief("priya", "risk_tolerance", history=True).history
    again = catch_up(services.ports.event_log, services.semantic, "s1")
    assert again.events_read == 2
    assert services.semantic.belief("priya", "risk_tolerance", history=True).history == history


def test_replay_on_aws_names_the_repairs_that_exist(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AGENTMEM_BACKEND", "aws")
    monkeypatch.setenv("AGENTMEM_OPENSEARCH_URL", "https://search-am-acme.us-east-1.es.amazonaws.com")
    use_fake_aws_environment(monkeypatch)
    with pytest.raises(SystemExit) as exited:
        main(["replay"])
    message = str(exited.value)
    assert "agentmem redrive" in message and "agentmem catch-up" in message
    assert "agentmem replay --backend aws" in message and "README" not in message
