"""AWS adapters against the port contracts, on in-process moto with the stack's table and bucket."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import boto3
import pytest
from moto import mock_aws

from agentmem.adapters.aws import dynamodb_vector_cache
from agentmem.adapters.aws.dynamodb_log import DynamoDbEventLog
from agentmem.adapters.aws.dynamodb_vector_cache import DynamoDbVectorCache
from agentmem.adapters.aws.s3_blobs import S3BlobStore
from agentmem.errors import ContentionError, NotFoundError
from agentmem.ports.blobs import BlobStore
from agentmem.ports.log import EventLog
from tests.aws_fixtures import (
    create_blob_bucket,
    create_log_table,
    create_vector_table,
    serialize_moto_requests,
    use_fake_aws_environment,
)
from tests.contract.blob_store_contract import BlobStoreContract
from tests.contract.event_log_contract import EventLogContract, LogFactory, draft
from tests.contract.vector_cache_contract import MODEL, SINGLE, CacheFactory, VectorCacheContract, digest

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_s3.client import S3Client

TABLE = "agentmem-log"
VECTOR_TABLE = "agentmem-vectors"
BUCKET = "agentmem-blobs"


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    use_fake_aws_environment(monkeypatch)
    serialize_moto_requests(monkeypatch)
    with mock_aws():
        yield


@pytest.fixture
def dynamodb(aws: None) -> DynamoDBClient:
    client = boto3.client("dynamodb")
    create_log_table(client, TABLE)
    return client


@pytest.fixture
def s3(aws: None) -> S3Client:
    client = boto3.client("s3")
    create_blob_bucket(client, BUCKET)
    return client


@pytest.fixture
def vector_table(aws: None) -> DynamoDBClient:
    client = boto3.client("dynamodb")
    create_vector_table(client, VECTOR_TABLE)
    return client


class TestDynamoDbVectorCache(VectorCacheContract):
    @pytest.fixture
    def make_cache(self, vector_table: DynamoDBClient) -> CacheFactory:
        return lambda tenant: DynamoDbVectorCache(VECTOR_TABLE, tenant, client=vector_table)

    def test_items_follow_the_stack_layout(self, vector_table: DynamoDBClient) -> None:
        cache = DynamoDbVectorCache(VECTOR_TABLE, "acme", client=vector_table)
        a = digest("a")
        cache.put(MODEL, {("priya", a): SINGLE})
        items = {(i["pk"]["S"], i["sk"]["S"]): i for i in vector_table.scan(TableName=VECTOR_TABLE)["Items"]}
        vector_pk = f"T#acme#V#{MODEL}#{a}"
        assert set(items) == {
            (vector_pk, "VECTOR"),
            (vector_pk, "OWNER#priya"),
            ("T#acme#OWNS#priya", f"{MODEL}#{a}"),
        }
        # float32 bytes behind a one-byte tag: 4 floats in 17 bytes, not a list of numbers
        assert len(items[(vector_pk, "VECTOR")]["vector"]["B"]) == 1 + 4 * len(SINGLE)

    def test_forgetting_the_last_owner_leaves_no_item_of_the_subject(
        self, vector_table: DynamoDBClient, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # More entries than one forget chunk, each its own vector, one of them also sam's.
        monkeypatch.setattr(dynamodb_vector_cache, "FORGET_CHUNK", 4)
        cache = DynamoDbVectorCache(VECTOR_TABLE, "acme", client=vector_table)
        held = {("priya", digest(f"t{i}")): SINGLE for i in range(10)}
        cache.put(MODEL, {**held, ("sam", digest("t0")): SINGLE})
        assert cache.forget_subject("priya") == 10
        left = {(i["pk"]["S"], i["sk"]["S"]) for i in vector_table.scan(TableName=VECTOR_TABLE)["Items"]}
        entry = f"{MODEL}#{digest('t0')}"
        assert left == {
            (f"T#acme#V#{entry}", "VECTOR"),
            (f"T#acme#V#{entry}", "OWNER#sam"),
            ("T#acme#OWNS#sam", entry),
        }


class TestDynamoDbEventLog(EventLogContract):
    @pytest.fixture
    def make_log(self, dynamodb: DynamoDBClient) -> LogFactory:
        # moto copies the whole table for every transaction, so under contention it is orders of
        # magnitude slower than DynamoDB: a longer retry budget keeps the test about correctness.
        return lambda tenant: DynamoDbEventLog(TABLE, tenant, client=dynamodb, retry_budget_seconds=120)

    @pytest.mark.slow
    @pytest.mark.skipif(
        not os.environ.get("AGENTMEM_MOTO_FULL_CONCURRENCY"),
        reason="moto 5.2 is not atomic under threads, and once serialised it deep-copies the whole table "
        "and its stream records on every transact_write_items: 8 x 50 contended appends take 75 s and "
        "4 GB, so 8 x 200 needs far more memory than this machine has. "
        "AGENTMEM_MOTO_FULL_CONCURRENCY=1 runs it anyway; the 8 x 15 test below pins the same invariant.",
    )
    def test_concurrent_writers_get_unique_gap_free_seqs(self, log: EventLog) -> None:
        super().test_concurrent_writers_get_unique_gap_free_seqs(log)

    @pytest.mark.slow
    def test_concurrent_writers_on_moto_get_gap_free_seqs(self, log: EventLog) -> None:
        """The contract's invariant at a size moto can hold: every writer still races every other.
        What the API promises is that every append is acknowledged once its client retries the
        503 that contention gives (as `agentmem.client` does), and that the seqs are gap-free."""
        writers, per_writer = 8, 15

        def append_as_a_client_would() -> int:
            deadline = time.monotonic() + 300  # a bound on a wedged test, far above any real run
            while True:
                try:
                    return log.append(draft("hot")).event.seq
                except ContentionError:
                    if time.monotonic() > deadline:
                        raise

        def write_many(_: int) -> list[int]:
            return [append_as_a_client_would() for _ in range(per_writer)]

        with ThreadPoolExecutor(max_workers=writers) as pool:
            seqs = [s for batch in pool.map(write_many, range(writers)) for s in batch]
        expected = list(range(1, writers * per_writer + 1))
        assert sorted(seqs) == expected
        assert [e.seq for e in log.list_events("hot", limit=5000)] == expected
        assert log.last_seq("hot") == writers * per_writer

    def test_items_follow_the_stack_layout(self, log: EventLog, dynamodb: DynamoDBClient) -> None:
        log.append(draft(idem="k1", request_hash="rh"))
        items = dynamodb.scan(TableName=TABLE)["Items"]
        # The subject registry rides in the same transaction: erasure and export find sessions by it.
        (registry,) = [item for item in items if item["pk"]["S"] == "T#acme#SUBJ#priya"]
        assert (registry["sk"]["S"], registry["session_id"]["S"]) == ("S#s1", "s1")
        items = [item for item in items if item is not registry]
        by_sk = {item["sk"]["S"]: item for item in items}
        assert set(by_sk) == {"E#000000000001", "HEAD", "IDEM#k1"}
        assert {item["pk"]["S"] for item in items} == {"T#acme#S#s1"}
        assert not any("expires_at" in item for item in items)  # no retention: the log never expires
        event = by_sk["E#000000000001"]
        assert (event["entity"]["S"], event["tenant_id"]["S"], event["seq"]["N"]) == ("event", "acme", "1")
        assert event["content_json"]["S"] == '"hello"'
        assert "blob_json" not in event
        assert by_sk["HEAD"]["last_seq"] == {"N": "1"}
        assert by_sk["IDEM#k1"]["event_sk"] == {"S": "E#000000000001"}
        assert by_sk["IDEM#k1"]["request_hash"] == {"S": "rh"}

    def test_a_subject_is_known_by_its_registry_item_from_its_first_event(
        self, log: EventLog, dynamodb: DynamoDBClient
    ) -> None:
        """has_subject reads the registry the append transaction writes (erasure enumerates
        sessions by it); without that item the subject is unknown, whatever its sessions hold."""
        log.append(draft("s1"))
        assert log.has_subject("priya") is True
        dynamodb.delete_item(TableName=TABLE, Key={"pk": {"S": "T#acme#SUBJ#priya"}, "sk": {"S": "S#s1"}})
        assert log.has_subject("priya") is False

    def test_json_content_with_floats_round_trips_exactly(self, log: EventLog) -> None:
        content = {"ratio": 0.1, "tiny": 1e-300, "big": 1.7976931348623157e308, "n": [1, 2.5, -0.0]}
        log.append(draft(content=content))
        (read,) = log.list_events("s1")
        assert read.content == content
        assert isinstance(read.content, dict)
        assert type(read.content["ratio"]) is float


class TestS3BlobStore(BlobStoreContract):
    @pytest.fixture
    def store(self, s3: S3Client) -> BlobStore:
        return S3BlobStore(BUCKET, client=s3)

    def test_object_is_keyed_by_hash_and_typed(self, store: BlobStore, s3: S3Client) -> None:
        data = b"a,b\n1,2\n"
        digest = hashlib.sha256(data).hexdigest()
        uri = store.put(data, sha256=digest, media_type="text/csv")
        key = f"blobs/sha256/{digest[:2]}/{digest}"
        assert uri == f"s3://{BUCKET}/{key}"
        assert s3.head_object(Bucket=BUCKET, Key=key)["ContentType"] == "text/csv"

    def test_delete_removes_every_version_of_a_versioned_bucket(self, store: BlobStore, s3: S3Client) -> None:
        # The stack versions the blob bucket: an erased blob must not survive as a noncurrent version.
        s3.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Enabled"})
        data = b"erase every copy" * 50
        digest = hashlib.sha256(data).hexdigest()
        key = f"blobs/sha256/{digest[:2]}/{digest}"
        store.put(data, sha256=digest, media_type="text/plain")
        s3.put_object(Bucket=BUCKET, Key=key, Body=data)  # a second version, as a retention renewal writes
        s3.delete_object(Bucket=BUCKET, Key=key)  # a stray delete: a marker over two versions
        assert store.delete(digest) is True
        left = s3.list_object_versions(Bucket=BUCKET, Prefix=key)
        assert left.get("Versions", []) == [] and left.get("DeleteMarkers", []) == []
        assert store.delete(digest) is False

    def test_uris_outside_the_bucket_are_not_found(self, store: BlobStore) -> None:
        digest = "ab" * 32
        for uri in (f"s3://other-bucket/blobs/sha256/ab/{digest}", f"file:///blobs/sha256/ab/{digest}"):
            with pytest.raises(NotFoundError):
                store.get(uri)
