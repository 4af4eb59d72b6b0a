"""Redrive of the projector's on-failure queue: the stream records Lambda gave up on, projected again.

Lambda's on-failure message for a DynamoDB stream carries no record, only where the failed batch was:
`DDBStreamBatchInfo` with the stream ARN, the shard id, the first and last sequence numbers and the
arrival times. The redrive reads that range back from the stream (GetShardIterator AT_SEQUENCE_NUMBER,
then GetRecords up to the last number), re-reads each event by its keys from the table (the item, not
a stale image), and hands it to the projector's own `project_record`. A message is deleted only once
every record of its range is projected; projection is idempotent, so a redrive run twice, or a range
the projector had partly applied, changes nothing more.

DynamoDB Streams keeps records 24 hours. A message whose range has been trimmed is kept and reported
as expired: its events are still in the log, and `agentmem catch-up --session` projects a session
from the table (agentmem.semantic.catch_up). A whole replay on AWS runs in the stack's replay state
machine (`agentmem replay --backend aws`, infra/constructs/replay.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from botocore.exceptions import ClientError

from agentmem.entrypoints.stream import project_record
from agentmem.errors import InvalidInputError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodbstreams.client import DynamoDBStreamsClient
    from mypy_boto3_sqs.client import SQSClient

    from agentmem.wiring import Services

# The stream no longer holds the range (older than 24 h) or the shard.
EXPIRED_CODES = frozenset({"TrimmedDataAccessException", "ResourceNotFoundException"})
# GetRecords may answer empty pages before it reaches records; an open shard never ends, so the read
# stops after this many empty pages in a row and the message is kept (reported incomplete).
MAX_EMPTY_PAGES = 20


@dataclass(frozen=True)
class BatchInfo:
    """The failed batch's place in the stream, from an on-failure message."""

    stream_arn: str
    shard_id: str
    start: str
    end: str
    first_arrival: str
    last_arrival: str

    @classmethod
    def from_message(cls, body: str) -> BatchInfo:
        try:
            info = json.loads(body)["DDBStreamBatchInfo"]
            return cls(
                stream_arn=info["streamArn"],
                shard_id=info["shardId"],
                start=info["startSequenceNumber"],
                end=info["endSequenceNumber"],
                first_arrival=info.get("approximateArrivalOfFirstRecord", ""),
                last_arrival=info.get("approximateArrivalOfLastRecord", ""),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInputError(
                f"not a DynamoDB stream on-failure message: {exc!r}", field="DDBStreamBatchInfo"
            ) from exc


@dataclass
class RedriveReport:
    messages: int = 0
    redriven: int = 0  # messages whose whole range was projected, then deleted
    records: int = 0  # every record of the ranges: events, and the heads and indexes written beside them
    events: int = 0  # inserted events projected
    gone: int = 0  # events no longer in the table (erased or expired): nothing to project
    expired: list[BatchInfo] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (where, why), message kept


class RangeIncompleteError(RuntimeError):
    """GetRecords kept answering empty pages before the range's last sequence number."""


def range_records(streams: DynamoDBStreamsClient, info: BatchInfo) -> Iterator[dict[str, Any]]:
    """The stream records with start <= sequence number <= end, in order."""
    iterator: str | None = streams.get_shard_iterator(
        StreamArn=info.stream_arn,
        ShardId=info.shard_id,
        ShardIteratorType="AT_SEQUENCE_NUMBER",
        SequenceNumber=info.start,
    ).get("ShardIterator")
    end, empty = int(info.end), 0
    while iterator:
        page = streams.get_records(ShardIterator=iterator, Limit=1000)
        records = page.get("Records", [])
        empty = 0 if records else empty + 1
        for record in records:
            sequence = int(record.get("dynamodb", {}).get("SequenceNumber", "0"))
            if sequence > end:
                return
            yield dict(record)
            if sequence == end:
                return
        if empty >= MAX_EMPTY_PAGES:
            raise RangeIncompleteError(f"no record up to {info.end} after {empty} empty pages")
        iterator = page.get("NextShardIterator")


def _is_event_insert(record: dict[str, Any]) -> bool:
    sort_key = record.get("dynamodb", {}).get("Keys", {}).get("sk", {}).get("S", "")
    return record.get("eventName") == "INSERT" and str(sort_key).startswith("E#")


def _fresh(dynamodb: DynamoDBClient, table: str, record: dict[str, Any]) -> dict[str, Any] | None:
    """The record with its image re-read from the table by its keys; None when the item is gone.

    Only inserted events are re-read: library and catalogue records are re-read by the projector
    itself, and removals carry keys only."""
    stream = record.get("dynamodb", {})
    if not _is_event_insert(record):
        return record
    item = dynamodb.get_item(TableName=table, Key=stream["Keys"], ConsistentRead=True).get("Item")
    if item is None:
        return None
    return {**record, "dynamodb": {**stream, "NewImage": item}}


def redrive(
    services: Services,
    *,
    queue_url: str,
    sqs: SQSClient,
    streams: DynamoDBStreamsClient,
    dynamodb: DynamoDBClient,
    max_messages: int = 100,
) -> RedriveReport:
    """Project the ranges named by up to `max_messages` messages of the on-failure queue."""
    report = RedriveReport()
    table = services.settings.table_name
    while report.messages < max_messages:
        batch = sqs.receive_message(
            QueueUrl=queue_url, MaxNumberOfMessages=min(10, max_messages - report.messages), WaitTimeSeconds=0
        ).get("Messages", [])
        if not batch:
            break
        for message in batch:
            report.messages += 1
            try:
                info = BatchInfo.from_message(message.get("Body", ""))
            except InvalidInputError as exc:
                report.failed.append((f"message {message.get('MessageId', '?')}", str(exc)))
                continue
            where = f"shard {info.shard_id} {info.start}..{info.end}"
            try:
                for record in range_records(streams, info):
                    report.records += 1
                    fresh = _fresh(dynamodb, table, record)
                    if fresh is None:
                        report.gone += 1
                        continue
                    project_record(services, DynamoDBRecord(fresh))
                    report.events += _is_event_insert(record)
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") in EXPIRED_CODES:
                    report.expired.append(info)
                else:
                    report.failed.append((where, str(exc)))
                continue
            except Exception as exc:  # any failure: the message is kept and the failure reported
                report.failed.append((where, f"{type(exc).__name__}: {exc}"))
                continue
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
            report.redriven += 1
    return report
