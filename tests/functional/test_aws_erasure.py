"""Erasure, retention and export on the AWS backend, on in-process moto (the stack's table, bucket
and erasure queue). OpenSearch cannot run here: the belief index answers from the offline fake
of tests/unit/test_opensearch_beliefs, which pins the requests the erasure sends."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError
from moto import mock_aws
from opensearchpy import OpenSearch

from agentmem.adapters.aws.dynamodb_catalogue import DynamoDbConversationMemory
from agentmem.adapters.aws.opensearch_belief_store import OpenSearchBeliefStore
from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.entrypoints.erasure import erasure_handler
from agentmem.episodic.service import EpisodicLimits, EpisodicService
from agentmem.errors import NotFoundError, SubjectErasedError
from agentmem.model.events import AppendEventRequest
from agentmem.procedural.review import ReviewRequest
from agentmem.semantic.fact_types import FactTypeCatalog
from agentmem.semantic.service import SemanticService
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.aws_fixtures import (
    create_blob_bucket,
    create_log_table,
    create_vector_table,
    use_fake_aws_environment,
)
from tests.conftest import FakeLambdaContext
from tests.unit.test_opensearch_beliefs import ACK, FakeConnection

TABLE, BUCKET, VECTORS = "agentmem-acme-log", "agentmem-acme-blobs", "agentmem-acme-vectors"
ALICE, BOB = "zqalicemarkerzq", "zqbobmarkerzq"
SHARED = "A shared market report, long enough for the blob store. " * 20
CODE = f'def alice_budget(rows):\n    """Sum {ALICE} spending."""\n    return sum(rows)\n'


class NoEmbedder:
    model_id, dimensions = "none", 4

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise AssertionError("erasure embeds nothing")


def deleted(count: int) -> tuple[int, dict[str, Any]]:
    return 200, {"deleted": count, "failures": [], "version_conflicts": 0}


def aws_settings(**overrides: Any) -> Settings:
    return Settings(
        backend="aws", tenant_id="acme", table_name=TABLE, bucket_name=BUCKET, inline_max_bytes=256,
        opensearch_url="https://search-am-acme.us-east-1.es.amazonaws.com", embedder="minilm", llm="rules",
        **overrides,
    )  # fmt: skip


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        create_log_table(boto3.client("dynamodb"), TABLE)
        create_blob_bucket(boto3.client("s3"), BUCKET)
        yield


@pytest.fixture
def search() -> FakeConnection:
    client = OpenSearch(
        hosts=[{"host": "fake", "port": 9200}], connection_class=FakeConnection, max_retries=0
    )
    connection = client.transport.get_connection()
    assert isinstance(connection, FakeConnection)
    connection.client = client  # type: ignore[attr-defined]
    return connection


def wire(settings: Settings, search: FakeConnection) -> Services:
    """The AWS services, with the belief index on the offline OpenSearch fake."""
    store = OpenSearchBeliefStore(search.client, "acme", dimensions=4)  # type: ignore[attr-defined]
    services = bootstrap(settings, belief_store=store, llm=RulesLLM(), embedder=NoEmbedder())
    services.__dict__["semantic"] = SemanticService(
        store, RulesLLM(), NoEmbedder(), FactTypeCatalog([]), erasures=services.ports.erasure_ledger
    )
    return services


@pytest.fixture
def services(aws: None, search: FakeConnection) -> Services:
    return wire(aws_settings(), search)


def say(
    services: Services, session: str, subject: str, content: str, kind: str = "note", idem: str | None = None
) -> None:
    request = AppendEventRequest(
        subject_id=subject, round=0, agent="advisor", kind=kind, content=content, idempotency_key=idem
    )
    services.episodic.append(session, request)


@pytest.fixture
def two_subjects(services: Services) -> Services:
    say(services, "alice-s1", "alice", f"Alice {ALICE} earns well.", idem="a1")
    say(services, "alice-s1", "alice", f"{ALICE} statement. " * 40)
    say(services, "alice-s1", "alice", SHARED, idem="a3")
    say(services, "alice-s1", "alice", CODE, kind="code")
    say(services, "joint", "alice", f"{ALICE} in a joint session.")
    say(services, "joint", "bob", f"Bob {BOB} in the joint session.")
    say(services, "bob-s1", "bob", f"{BOB} statement. " * 40)
    say(services, "bob-s1", "bob", SHARED)
    services.skill_review.review(ReviewRequest(session_id="alice-s1"))
    DynamoDbConversationMemory(TABLE, "acme").record("alice-s1", {"asset-1": "h1"})
    return services


def table_dump() -> str:
    return json.dumps(boto3.client("dynamodb").scan(TableName=TABLE)["Items"])


def bucket_bodies() -> dict[str, bytes]:
    s3 = boto3.client("s3")
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])]
    return {key: s3.get_object(Bucket=BUCKET, Key=key)["Body"].read() for key in keys}


def test_erasure_leaves_nothing_of_the_subject_in_the_table_the_bucket_or_the_index(
    two_subjects: Services, search: FakeConnection
) -> None:
    services = two_subjects
    assert ALICE in table_dump()
    search.replies.extend([ACK, deleted(3), ACK, deleted(2)])

    record = services.erasure.erase("alice")

    assert record.state == "done", record
    removed = {name: tier.removed for name, tier in record.tiers.items() if name != "caches"}
    assert removed == {"beliefs": 5, "skill_drafts": 1, "conversations": 1, "blobs": 1, "events": 5}
    dump = table_dump()
    assert ALICE not in dump and BOB in dump
    assert "alice-s1" not in dump  # the session held only her events: its head went too
    assert '"alice"' not in dump  # no item names her: the tombstone holds a keyed hash
    bodies = bucket_bodies()
    assert len(bodies) == 2 and not any(ALICE.encode() in body for body in bodies.values())
    bob = services.episodic.list_events("bob-s1", resolve_blobs=True).items
    assert [e.content for e in bob] == [f"{BOB} statement. " * 40, SHARED]
    assert [e.subject_id for e in services.event_log.list_events("joint")] == ["bob"]
    with pytest.raises(NotFoundError):
        services.skills.get_function("alice_budget.alice-s1")
    # Every generation's indices, chains, archived versions and observations alike.
    erasing = search.requests
    assert [(r.method, r.path) for r in erasing] == [
        ("POST", "/agentmem-beliefs-g*/_refresh"),
        ("POST", "/agentmem-beliefs-g*/_delete_by_query"),
        ("POST", "/agentmem-observations-g*/_refresh"),
        ("POST", "/agentmem-observations-g*/_delete_by_query"),
    ]
    assert erasing[1].params["conflicts"] == "proceed" and erasing[1].params["refresh"] == "true"
    assert erasing[1].body == {
        "query": {"bool": {"filter": [{"term": {"tenant_id": "acme"}}, {"term": {"subject_id": "alice"}}]}}
    }


def test_with_a_vector_table_the_erasure_forgets_what_only_the_subject_said(
    aws: None, search: FakeConnection
) -> None:
    """The erasure function is told the vector table (infra/constructs/erasure.py): its
    cached_vectors tier drops her vectors and keeps the one bob said too."""
    create_vector_table(boto3.client("dynamodb"), VECTORS)
    services = wire(aws_settings(vector_table_name=VECTORS), search)
    cache = services.ports.vector_cache
    assert cache is not None
    store = services.semantic.store
    services.__dict__["semantic"] = SemanticService(
        store, RulesLLM(), NoEmbedder(), FactTypeCatalog([]), erasures=services.ports.erasure_ledger,
        vector_cache=cache,
    )  # fmt: skip
    say(services, "alice-s1", "alice", f"Alice {ALICE} earns well.")
    own, shared = "ab" * 32, "cd" * 32
    cache.put("m@4", {("alice", own): [0.5] * 4, ("alice", shared): [0.25] * 4, ("bob", shared): [0.25] * 4})
    search.replies.extend([ACK, deleted(0), ACK, deleted(0)])

    record = services.erasure.erase("alice")

    assert record.state == "done", record
    assert record.tiers["cached_vectors"].removed == 2
    assert cache.get("m@4", [own, shared]) == {shared: [0.25] * 4}
    items = str(boto3.client("dynamodb").scan(TableName=VECTORS)["Items"])  # vectors are bytes
    assert "alice" not in items and "bob" in items


def test_after_the_erasure_an_append_about_the_subject_cannot_commit(
    two_subjects: Services, search: FakeConnection
) -> None:
    search.replies.extend([ACK, deleted(0), ACK, deleted(0)])
    two_subjects.erasure.erase("alice")

    with pytest.raises(SubjectErasedError):
        say(two_subjects, "alice-s9", "alice", "back again")

    assert two_subjects.event_log.list_events("alice-s9") == []


def test_a_belief_index_that_keeps_changing_fails_the_tier_and_holds_the_events_back(
    two_subjects: Services, search: FakeConnection
) -> None:
    conflicts = (200, {"deleted": 2, "failures": [], "version_conflicts": 1})
    search.replies.extend([ACK, conflicts])

    record = two_subjects.erasure.erase("alice")

    assert record.state == "failed"
    assert (record.tiers["beliefs"].status, record.tiers["beliefs"].note) == ("failed", "backend_unavailable")
    assert (record.tiers["events"].status, record.tiers["events"].note) == (
        "pending",
        "waits_for_earlier_tiers",
    )
    assert ALICE in table_dump()  # a repeat still finds her sessions through her events

    search.replies.extend([ACK, deleted(0), ACK, deleted(0)])
    again = two_subjects.erasure.erase("alice")

    assert (again.erasure_id, again.state, again.runs) == (record.erasure_id, "done", 2)
    assert ALICE not in table_dump()


def api_event(method: str, path: str) -> dict[str, Any]:
    return {
        "resource": path, "path": path, "httpMethod": method, "headers": {}, "multiValueHeaders": {},
        "queryStringParameters": None, "multiValueQueryStringParameters": None, "pathParameters": None,
        "stageVariables": None, "body": None, "isBase64Encoded": False,
        "requestContext": {"httpMethod": method, "path": path, "stage": "prod", "requestId": "r",
                           "authorizer": {"principals": "writer"}},  # erasure is for writers
    }  # fmt: skip


def sqs_event(message: dict[str, Any]) -> dict[str, Any]:
    """The Lambda event for one message as the SQS event source delivers it."""
    record = {
        "messageId": message["MessageId"], "receiptHandle": message["ReceiptHandle"], "body": message["Body"],
        "attributes": {}, "messageAttributes": {}, "md5OfBody": message["MD5OfBody"],
        "eventSource": "aws:sqs", "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:erasures",
        "awsRegion": "us-east-1",
    }  # fmt: skip
    return {"Records": [record]}


def test_the_api_queues_the_erasure_and_the_queue_runs_it(aws: None, search: FakeConnection) -> None:
    sqs = boto3.client("sqs")
    queue = sqs.create_queue(QueueName="erasures")["QueueUrl"]
    services = wire(aws_settings(erasure_queue_url=queue), search)
    say(services, "alice-s1", "alice", f"Alice {ALICE}.")
    handler = erasure_handler(services)

    accepted = handler(api_event("DELETE", "/v1/subjects/alice"), FakeLambdaContext())  # type: ignore[arg-type]

    assert accepted["statusCode"] == 202
    body = json.loads(accepted["body"])
    assert body["state"] == "running" and body["tiers"]["events"]["status"] == "pending"
    assert accepted["multiValueHeaders"]["Location"] == [f"/v1/erasures/{body['erasure_id']}"]
    (message,) = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    assert json.loads(message["Body"]) == {"erasure_id": body["erasure_id"], "subject_id": "alice"}

    search.replies.extend([ACK, deleted(1), ACK, deleted(1)])
    assert handler(sqs_event(message), FakeLambdaContext()) == {"batchItemFailures": []}  # type: ignore[arg-type]

    status = handler(api_event("GET", f"/v1/erasures/{body['erasure_id']}"), FakeLambdaContext())  # type: ignore[arg-type]
    assert json.loads(status["body"])["state"] == "done"
    assert ALICE not in table_dump()


def test_an_unfinished_erasure_goes_back_to_the_queue(aws: None, search: FakeConnection) -> None:
    sqs = boto3.client("sqs")
    queue = sqs.create_queue(QueueName="erasures")["QueueUrl"]
    services = wire(aws_settings(erasure_queue_url=queue), search)
    services.erasure.erase("alice")
    (message,) = sqs.receive_message(QueueUrl=queue)["Messages"]
    search.replies.append((503, {"error": "unavailable"}))
    # A batch whose every record failed fails the invocation (Powertools), so SQS hands it back.
    with pytest.raises(BatchProcessingError, match="not done yet"):
        erasure_handler(services)(sqs_event(message), FakeLambdaContext())  # type: ignore[arg-type]


def test_retention_stamps_each_item_of_an_event_with_its_expiry_and_reads_hide_expired_ones(
    aws: None, search: FakeConnection
) -> None:
    services = wire(aws_settings(retention_days=30), search)
    old = datetime.now(UTC) - timedelta(days=31)
    writer = EpisodicService(
        services.event_log, services.blobs, EpisodicLimits(inline_max_bytes=256, max_request_bytes=1 << 20),
        clock=lambda: old.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    )  # fmt: skip
    request = AppendEventRequest(
        subject_id="p", round=0, agent="a", kind="note", content=SHARED, idempotency_key="k"
    )
    writer.append("s1", request)
    say(services, "s1", "p", "fresh")

    items = boto3.client("dynamodb").scan(TableName=TABLE)["Items"]
    expiring = {
        item["sk"]["S"].split("#")[0]: int(item["expires_at"]["N"]) for item in items if "expires_at" in item
    }
    assert set(expiring) == {"E", "IDEM", "S", "R"}  # event, idempotency, registry, blob reference
    assert expiring["IDEM"] == int((old + timedelta(days=30)).timestamp())
    assert not any("expires_at" in item for item in items if item["sk"]["S"] == "HEAD")
    assert [e.content for e in services.event_log.list_events("s1")] == ["fresh"]


def test_with_retention_a_blob_a_day_old_is_uploaded_again(aws: None, search: FakeConnection) -> None:
    services = wire(aws_settings(retention_days=30), search)
    say(services, "s1", "p", SHARED)
    s3 = services.blobs._client  # type: ignore[attr-defined]
    puts: list[str] = []
    s3.meta.events.register("before-call.s3.PutObject", lambda **kw: puts.append(kw["params"]["url_path"]))
    say(services, "s2", "p", SHARED)
    assert puts == []  # written moments ago: content addressing skips the upload
    services.blobs._refresh_after = 0  # type: ignore[attr-defined]  # as if a day had passed

    say(services, "s3", "p", SHARED)

    assert len(puts) == 1  # renewed, so the lifecycle rule counts its age from now


def test_export_on_aws_walks_every_session_of_the_subject(aws: None, search: FakeConnection) -> None:
    services = wire(aws_settings(), search)
    for session in ("s2", "s1"):
        say(services, session, "p", f"in {session}")
        say(services, session, "q", "someone else")
    no_alias = (404, {"error": "alias missing", "status": 404})
    search.replies.extend([no_alias, (200, {"hits": {"total": {"value": 0}, "hits": []}})])

    page = services.subject_export.page("p", max_bytes=10_000)

    events = [json.loads(line)["event"] for line in page.body.splitlines() if '"type":"event"' in line]
    assert [(e["session_id"], e["content"]) for e in events] == [("s1", "in s1"), ("s2", "in s2")]
