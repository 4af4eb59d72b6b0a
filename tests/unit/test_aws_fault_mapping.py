"""Fault paths of the AWS adapters that moto cannot produce, pinned with botocore's Stubber.

The Stubber answers from a queue, so a call the adapter should not make fails the test, and the
real client still validates every request against the service model.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from botocore.exceptions import BotoCoreError, ClientError, EndpointConnectionError, ReadTimeoutError
from botocore.stub import ANY, Stubber

from agentmem.adapters.aws.dynamodb_log import DynamoDbEventLog
from agentmem.adapters.aws.errors import translate_client_error
from agentmem.adapters.aws.s3_blobs import S3BlobStore
from agentmem.errors import (
    AgentMemError,
    BackendUnavailableError,
    ContentionError,
    NotFoundError,
    SubjectErasedError,
)
from tests.aws_fixtures import use_fake_aws_environment
from tests.contract.event_log_contract import draft

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

TABLE = "agentmem-log"
PK = "T#acme#S#s1"
FIRST_HEAD = {"ConditionExpression": "attribute_not_exists(pk)"}


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[DynamoDBClient, Stubber]]:
    use_fake_aws_environment(monkeypatch)
    client = boto3.client("dynamodb")
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


def get_params(sk: str) -> dict[str, Any]:
    return {"TableName": TABLE, "Key": {"pk": {"S": PK}, "sk": {"S": sk}}, "ConsistentRead": True}


def expect_head(stubber: Stubber, last_seq: int | None) -> None:
    item = {"pk": {"S": PK}, "sk": {"S": "HEAD"}, "last_seq": {"N": str(last_seq)}}
    stubber.add_response("get_item", {"Item": item} if last_seq else {}, get_params("HEAD"))


def transaction(head_condition: dict[str, Any], *, idem: bool = False) -> dict[str, Any]:
    items: list[dict[str, Any]] = [
        {"Put": {"TableName": TABLE, "Item": ANY, "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Put": {"TableName": TABLE, "Item": ANY, **head_condition}},
    ]
    if idem:
        items.append(
            {"Put": {"TableName": TABLE, "Item": ANY, "ConditionExpression": "attribute_not_exists(pk)"}}
        )
    # The subject registry, then the check that the subject has no erasure tombstone.
    items.append({"Put": {"TableName": TABLE, "Item": ANY}})
    items.append(
        {
            "ConditionCheck": {
                "TableName": TABLE,
                "Key": ANY,
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        }
    )
    return {"TransactItems": items}


def after(last: int) -> dict[str, Any]:
    return {
        "ConditionExpression": "last_seq = :last",
        "ExpressionAttributeValues": {":last": {"N": str(last)}},
    }


def cancelled(stubber: Stubber, codes: list[str], expected: dict[str, Any]) -> None:
    stubber.add_client_error(
        "transact_write_items",
        service_error_code="TransactionCanceledException",
        service_message="Transaction cancelled",
        expected_params=expected,
        modeled_fields={"CancellationReasons": [{"Code": code} for code in codes]},
    )


def stored_event_item(seq: int, *, idem: str) -> dict[str, Any]:
    return {
        "pk": {"S": PK},
        "sk": {"S": f"E#{seq:012d}"},
        "entity": {"S": "event"},
        "tenant_id": {"S": "acme"},
        "session_id": {"S": "s1"},
        "seq": {"N": str(seq)},
        "event_id": {"S": "ev_original"},
        "subject_id": {"S": "priya"},
        "round": {"N": "0"},
        "agent": {"S": "intake"},
        "kind": {"S": "note"},
        "media_type": {"S": "text/plain"},
        "content_json": {"S": '"first"'},
        "idempotency_key": {"S": idem},
        "request_hash": {"S": "original"},
        "created_at": {"S": "2026-11-30T00:00:00.000Z"},
    }


@pytest.mark.parametrize(
    ("code", "reasons"),
    [
        ("ProvisionedThroughputExceededException", None),
        ("ThrottlingException", None),
        ("TransactionCanceledException", ["ThrottlingError", "None"]),
    ],
)
def test_throttled_append_is_retryable_and_writes_nothing_else(
    dynamodb: tuple[DynamoDBClient, Stubber], code: str, reasons: list[str] | None
) -> None:
    client, stubber = dynamodb
    expect_head(stubber, 3)
    stubber.add_client_error(
        "transact_write_items",
        service_error_code=code,
        expected_params=transaction(after(3)),
        modeled_fields={"CancellationReasons": [{"Code": c} for c in reasons]} if reasons else None,
    )
    with pytest.raises(BackendUnavailableError) as raised:
        DynamoDbEventLog(TABLE, "acme", client=client).append(draft())
    assert not isinstance(raised.value, ContentionError)
    assert raised.value.retry_after_seconds == 1


def test_head_conflict_rereads_the_head_and_retries_at_the_next_seq(
    dynamodb: tuple[DynamoDBClient, Stubber],
) -> None:
    client, stubber = dynamodb
    expect_head(stubber, None)
    cancelled(stubber, ["ConditionalCheckFailed", "ConditionalCheckFailed"], transaction(FIRST_HEAD))
    expect_head(stubber, 1)
    stubber.add_response("transact_write_items", {}, transaction(after(1)))
    outcome = DynamoDbEventLog(TABLE, "acme", client=client).append(draft())
    assert (outcome.created, outcome.event.seq) == (True, 2)


def test_contention_that_outlasts_the_time_budget_gives_up_with_contention_error(
    dynamodb: tuple[DynamoDBClient, Stubber],
) -> None:
    client, stubber = dynamodb
    expect_head(stubber, 5)
    cancelled(stubber, ["None", "TransactionConflict"], transaction(after(5)))
    # A budget shorter than any back-off: the first lost race is also the last attempt.
    log = DynamoDbEventLog(TABLE, "acme", client=client, retry_budget_seconds=0.0)
    with pytest.raises(ContentionError):
        log.append(draft())


def test_contention_is_retried_for_as_long_as_the_budget_lasts_however_many_rounds(
    dynamodb: tuple[DynamoDBClient, Stubber], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slow, loaded machine loses many more races within the same seconds; the retries are
    bounded by time, so 80 lost rounds (more than any fixed count used to allow) still end in an
    acknowledged append."""
    monkeypatch.setattr("agentmem.adapters.aws.dynamodb_log.pause", lambda attempt: 0.0)
    client, stubber = dynamodb
    rounds = 80
    for last in range(1, rounds + 1):
        expect_head(stubber, last)
        cancelled(stubber, ["None", "ConditionalCheckFailed"], transaction(after(last)))
    expect_head(stubber, rounds + 1)
    stubber.add_response("transact_write_items", {}, transaction(after(rounds + 1)))
    outcome = DynamoDbEventLog(TABLE, "acme", client=client, retry_budget_seconds=60.0).append(draft())
    assert (outcome.created, outcome.event.seq) == (True, rounds + 2)


@pytest.mark.parametrize("head", ["None", "ConditionalCheckFailed"])
def test_an_erased_subject_is_refused_at_once_even_when_the_head_moved_too(
    dynamodb: tuple[DynamoDBClient, Stubber], head: str
) -> None:
    client, stubber = dynamodb
    expect_head(stubber, 3)
    # One reason per item: event, head, registry, tombstone check. No retry: it would fail alike.
    cancelled(stubber, ["None", head, "None", "ConditionalCheckFailed"], transaction(after(3)))
    with pytest.raises(SubjectErasedError) as refused:
        DynamoDbEventLog(TABLE, "acme", client=client).append(draft())
    assert refused.value.field == "subject_id"


def test_idempotency_conflict_returns_the_event_the_winner_stored(
    dynamodb: tuple[DynamoDBClient, Stubber],
) -> None:
    client, stubber = dynamodb
    stubber.add_response("get_item", {}, get_params("IDEM#retry-1"))
    expect_head(stubber, 2)
    cancelled(
        stubber,
        ["ConditionalCheckFailed", "ConditionalCheckFailed", "ConditionalCheckFailed"],
        transaction(after(2), idem=True),
    )
    record = {"event_sk": {"S": "E#000000000003"}, "request_hash": {"S": "original"}}
    stubber.add_response("get_item", {"Item": record}, get_params("IDEM#retry-1"))
    stubber.add_response(
        "get_item", {"Item": stored_event_item(3, idem="retry-1")}, get_params("E#000000000003")
    )
    outcome = DynamoDbEventLog(TABLE, "acme", client=client).append(
        draft(idem="retry-1", request_hash="mine", content="second")
    )
    assert outcome.created is False
    assert outcome.request_hash == "original"
    assert (outcome.event.seq, outcome.event.event_id, outcome.event.content) == (3, "ev_original", "first")


def test_s3_put_sends_the_hash_for_s3_to_verify_and_skips_existing_objects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_fake_aws_environment(monkeypatch)
    client = boto3.client("s3")
    data = b"payload"
    digest = hashlib.sha256(data).hexdigest()
    key = f"blobs/sha256/{digest[:2]}/{digest}"
    with Stubber(client) as stubber:
        stubber.add_client_error("head_object", "404", http_status_code=404)
        stubber.add_response(
            "put_object",
            {},
            {
                "Bucket": "b",
                "Key": key,
                "Body": data,
                "ContentType": "text/plain",
                "ChecksumSHA256": base64.b64encode(hashlib.sha256(data).digest()).decode(),
            },
        )
        stubber.add_response("head_object", {}, {"Bucket": "b", "Key": key})
        store = S3BlobStore("b", client=client)
        assert store.put(data, sha256=digest, media_type="text/plain") == f"s3://b/{key}"
        assert store.put(data, sha256=digest, media_type="text/plain") == f"s3://b/{key}"
        stubber.assert_no_pending_responses()


def test_s3_slowdown_is_retryable_and_missing_key_is_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    use_fake_aws_environment(monkeypatch)
    client = boto3.client("s3")
    with Stubber(client) as stubber:
        stubber.add_client_error("head_object", "SlowDown", http_status_code=503)
        stubber.add_client_error("get_object", "NoSuchKey", http_status_code=404)
        store = S3BlobStore("b", client=client)
        with pytest.raises(BackendUnavailableError):
            store.exists("ab" * 32)
        with pytest.raises(NotFoundError):
            store.get(f"s3://b/blobs/sha256/ab/{'ab' * 32}")


def client_error(code: str, status: int) -> ClientError:
    response: Any = {"Error": {"Code": code, "Message": "m"}, "ResponseMetadata": {"HTTPStatusCode": status}}
    return ClientError(response, "Op")


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (client_error("RequestLimitExceeded", 400), BackendUnavailableError),
        (client_error("InternalServerError", 500), BackendUnavailableError),
        (client_error("SomethingNew", 503), BackendUnavailableError),
        (client_error("TransactionInProgressException", 400), BackendUnavailableError),
        (client_error("NoSuchKey", 404), NotFoundError),
        (EndpointConnectionError(endpoint_url="https://dynamodb"), BackendUnavailableError),
        (ReadTimeoutError(endpoint_url="https://dynamodb"), BackendUnavailableError),
    ],
)
def test_translation_of_retryable_and_missing(
    exc: ClientError | BotoCoreError, expected: type[AgentMemError]
) -> None:
    assert type(translate_client_error(exc, "op")) is expected


@pytest.mark.parametrize(
    "code", ["AccessDeniedException", "ValidationException", "ResourceNotFoundException"]
)
def test_faults_a_retry_cannot_fix_are_not_reported_as_retryable(code: str) -> None:
    error = translate_client_error(client_error(code, 400), "append event")
    assert type(error) is AgentMemError
    assert code in error.message
