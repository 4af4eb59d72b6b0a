"""The ErasureScheduler contract for the SQS scheduler on moto. What the queue delivers is run by
the erasure function's own entry point (entrypoints/erasure.py), so the contract checks what the
function reads, not a copy of the message format; a recording erasure service stands in for the
tiers. (Locally there is no scheduler: ErasureService runs an accepted erasure in the request.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from moto import mock_aws

from agentmem.adapters.aws.sqs_erasure_queue import SqsErasureScheduler
from agentmem.entrypoints.erasure import Handler, erasure_handler
from agentmem.ports.subjects import ErasureScheduler
from agentmem.settings import Settings
from agentmem.subjects.model import ErasureRecord
from agentmem.wiring import bootstrap
from tests.aws_fixtures import use_fake_aws_environment
from tests.conftest import FakeLambdaContext
from tests.contract.erasure_scheduler_contract import ErasureSchedulerContract, Scheduling

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient

# The recording erasure publishes none of the metrics the entry point flushes.
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


class RecordingErasure:
    """The erasure function's `services.erasure`: records what it is asked to run."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, str]] = []

    def run(self, erasure_id: str, subject_id: str) -> ErasureRecord:
        self.ran.append((erasure_id, subject_id))
        return ErasureRecord(
            erasure_id=erasure_id, subject_hash="h", state="done", requested_at="t", updated_at="t", tiers={}
        )


def lambda_event(messages: list[Any]) -> dict[str, Any]:
    """What the SQS event source hands the function for `messages`."""
    return {
        "Records": [
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": {},
                "messageAttributes": {},
                "md5OfBody": m["MD5OfBody"],
                "eventSource": "aws:sqs",
                "awsRegion": "us-east-1",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:erasures",
            }
            for m in messages
        ]
    }


def run_queue(
    sqs: SQSClient, queue_url: str, function: Handler, erasure: RecordingErasure
) -> list[tuple[str, str]]:
    """Deliver every waiting message to the function, deleting each it ran, as the event source does."""
    while messages := sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10).get("Messages", []):
        answer = function(lambda_event(messages), FakeLambdaContext())  # type: ignore[arg-type]
        assert answer == {"batchItemFailures": []}
        for message in messages:
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
    ran, erasure.ran = erasure.ran, []
    return ran


@pytest.fixture
def sqs(monkeypatch: pytest.MonkeyPatch) -> Iterator[SQSClient]:
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        yield boto3.client("sqs")


@pytest.fixture
def erasure_function(tmp_path: Path) -> tuple[Handler, RecordingErasure]:
    services = bootstrap(Settings(data_dir=tmp_path / "data"))
    erasure = RecordingErasure()
    services.__dict__["erasure"] = erasure  # the cached property the entry point reads
    return erasure_handler(services), erasure


class TestSqsErasureScheduler(ErasureSchedulerContract):
    @pytest.fixture
    def scheduling(self, sqs: SQSClient, erasure_function: tuple[Handler, RecordingErasure]) -> Scheduling:
        queue = sqs.create_queue(QueueName="erasures")["QueueUrl"]
        return Scheduling(
            SqsErasureScheduler(queue, client=sqs), lambda: run_queue(sqs, queue, *erasure_function)
        )

    @pytest.fixture
    def unreachable(self, sqs: SQSClient) -> ErasureScheduler:
        return SqsErasureScheduler("https://sqs.us-east-1.amazonaws.com/123456789012/gone", client=sqs)
