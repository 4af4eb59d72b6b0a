"""Shared moto setup: the log table, vector table and blob bucket exactly as the CDK stack defines them."""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from botocore.awsrequest import AWSPreparedRequest
from moto import mock_aws
from moto.core.botocore_stubber import BotocoreStubber
from moto.dynamodb import models
from moto.dynamodb.models import DynamoDBBackend

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_s3.client import S3Client

REGION = "us-east-1"


def use_fake_aws_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials and a fixed region, so no test can reach, or bill, a real account."""
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    # moto 5.2 needs this for DynamoDB Streams to work in-process.
    monkeypatch.setenv("AWS_ACCOUNT_ID_ENDPOINT_MODE", "disabled")


def _create_pk_sk_table(client: DynamoDBClient, name: str, **extra: Any) -> dict[str, Any]:
    """An on-demand table keyed by `pk` + `sk` strings, as the stack's tables are."""
    response = client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
        **extra,
    )
    client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 10})
    return dict(response["TableDescription"])


def create_log_table(client: DynamoDBClient, name: str) -> str:
    """The event log table, streaming new images. Returns its stream ARN."""
    stream = {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    return str(_create_pk_sk_table(client, name, StreamSpecification=stream).get("LatestStreamArn", ""))


def create_vector_table(client: DynamoDBClient, name: str) -> None:
    """The vector cache table: no stream (infra/constructs/storage.py)."""
    _create_pk_sk_table(client, name)


def fake_log_table(monkeypatch: pytest.MonkeyPatch, name: str) -> Iterator[DynamoDBClient]:
    """A moto DynamoDB client with the log table `name` in it, for a fixture to `yield from`."""
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        client = boto3.client("dynamodb")
        create_log_table(client, name)
        yield client


def fake_vector_table(monkeypatch: pytest.MonkeyPatch, name: str) -> Iterator[DynamoDBClient]:
    """The same with the vector cache table `name` in it."""
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        client = boto3.client("dynamodb")
        create_vector_table(client, name)
        yield client


def create_blob_bucket(client: S3Client, name: str) -> str:
    """The blob bucket; outside us-east-1 S3 needs the location spelled out. Returns its name."""
    region = client.meta.region_name
    if region and region != REGION:
        client.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": region})  # type: ignore[typeddict-item]
    else:
        client.create_bucket(Bucket=name)
    return name


_moto_lock = threading.Lock()
_copy_lock = threading.Lock()


def serialize_moto_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make in-process moto answer one request at a time, as atomically as DynamoDB does.

    moto 5.2's transact_write_items is not atomic under threads: it snapshots the whole table,
    applies the writes one by one and, on a failed condition, puts the snapshot back, undoing any
    transaction another thread committed in between. The lock is per request, not per append, so
    the adapter's own read-head / conditional-write / retry race is still fully exercised.
    """
    original = BotocoreStubber.process_request

    def serialized(self: BotocoreStubber, request: AWSPreparedRequest) -> object:
        with _moto_lock:
            return original(self, request)

    monkeypatch.setattr(BotocoreStubber, "process_request", serialized)
    copy_each_table_once(monkeypatch)


class _CopyOncePerCall:
    """moto 5.2's transact_write_items deep-copies the whole table once per item in the
    transaction (to undo a cancelled one), though the copies are identical: an append of four
    items copies the table four times. Handing back the first copy of an object for the rest of
    the same call keeps the rollback exactly as it was, for a quarter of the cost."""

    def __init__(self) -> None:
        self._copies: dict[int, object] = {}

    def deepcopy(self, value: object, memo: dict[int, object] | None = None) -> object:
        if id(value) not in self._copies:
            self._copies[id(value)] = copy.deepcopy(value, memo)
        return self._copies[id(value)]


def copy_each_table_once(monkeypatch: pytest.MonkeyPatch) -> None:
    original = DynamoDBBackend.transact_write_items

    def transact(self: DynamoDBBackend, transact_items: list[dict[str, object]]) -> None:
        with _copy_lock:  # the module attribute is shared; one transaction at a time sets it
            models.copy = _CopyOncePerCall()  # type: ignore[assignment]
            try:
                original(self, transact_items)  # type: ignore[arg-type]
            finally:
                models.copy = copy  # type: ignore[assignment]

    monkeypatch.setattr(DynamoDBBackend, "transact_write_items", transact)
