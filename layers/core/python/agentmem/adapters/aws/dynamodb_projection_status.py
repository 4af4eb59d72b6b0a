"""ProjectionStatusStore on DynamoDB: one item in the log's table, `T#<tenant>#STATUS#projector`,
that the stream projector writes on its failure path and the read function reads. Its own
stream record is not an event, so the projector skips it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.dynamodb_items import Item
from agentmem.adapters.aws.errors import translate_client_error
from agentmem.model.projection import ProjectionStatus

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


def status_key(tenant_id: str) -> Item:
    return {"pk": {"S": f"T#{tenant_id}#STATUS#projector"}, "sk": {"S": "STATUS"}}


class DynamoDbProjectionStatus:
    """`max_age_seconds` > 0 keeps a loaded status that long per container: the read function
    reads it on every context read, and a GetItem each time would add its latency to them all."""

    def __init__(
        self,
        table_name: str,
        tenant_id: str,
        *,
        client: DynamoDBClient | None = None,
        max_age_seconds: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._table = table_name
        self._tenant = tenant_id
        self._max_age = max_age_seconds
        self._clock = clock
        self._cached: tuple[float, ProjectionStatus] | None = None
        self._client: DynamoDBClient = client or boto3.client(
            "dynamodb", config=Config(retries={"mode": "standard"})
        )

    def load(self) -> ProjectionStatus:
        if self._cached is not None and self._clock() - self._cached[0] < self._max_age:
            return self._cached[1]
        try:
            found = self._client.get_item(TableName=self._table, Key=status_key(self._tenant))
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, "read projection status") from exc
        item = found.get("Item")
        status = ProjectionStatus.model_validate_json(item["status"]["S"]) if item else ProjectionStatus()
        self._cached = (self._clock(), status)
        return status

    def save(self, status: ProjectionStatus) -> None:
        item: Item = {
            **status_key(self._tenant),
            "entity": {"S": "projection_status"},
            "status": {"S": status.model_dump_json()},
        }
        try:
            self._client.put_item(TableName=self._table, Item=item)
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, "save projection status") from exc
