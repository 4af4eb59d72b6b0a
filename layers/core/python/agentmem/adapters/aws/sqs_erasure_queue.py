"""Hands an accepted erasure to the erasure function through its SQS queue, so the API answers
at once while the tiers run (and are retried, then dead-lettered) in the function's own time.

The message carries the subject id, which the work needs; the queue is encrypted, a message is
deleted once its erasure is done, and the dead-letter queue keeps a failed one for an operator."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.errors import translate_client_error

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient


class SqsErasureScheduler:
    def __init__(self, queue_url: str, *, client: SQSClient | None = None, region: str | None = None) -> None:
        self._queue_url = queue_url
        self._client: SQSClient = client or boto3.client(
            "sqs", region_name=region, config=Config(retries={"mode": "standard"})
        )

    def schedule(self, erasure_id: str, subject_id: str) -> None:
        try:
            self._client.send_message(
                QueueUrl=self._queue_url,
                MessageBody=json.dumps({"erasure_id": erasure_id, "subject_id": subject_id}),
            )
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, "schedule erasure") from exc
