"""The erasure ledger on DynamoDB: the tombstone and the record are put by one transaction; the
tombstone is what every append's transaction checks (dynamodb_subject_items)."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.dynamodb_items import Item
from agentmem.adapters.aws.dynamodb_pages import batch_get
from agentmem.adapters.aws.dynamodb_subject_items import TOMBSTONE_SK, erasure_key, tombstone_key
from agentmem.adapters.aws.dynamodb_transact import transact
from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import AgentMemError, NotFoundError
from agentmem.subjects.model import ErasureRecord

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef


class DynamoDbErasureLedger:
    def __init__(self, table_name: str, tenant_id: str, *, client: DynamoDBClient | None = None) -> None:
        self._table = table_name
        self._tenant = tenant_id
        self._client: DynamoDBClient = client or boto3.client(
            "dynamodb", config=Config(retries={"mode": "standard"})
        )

    def open(self, subject_id: str, record: ErasureRecord) -> ErasureRecord:
        tombstone: Item = {
            **tombstone_key(self._tenant, subject_id),
            "entity": {"S": "tombstone"},
            "erasure_id": {"S": record.erasure_id},
            "erased_at": {"S": record.requested_at},
        }
        entry: Item = {
            **erasure_key(self._tenant, record.erasure_id),
            "entity": {"S": "erasure"},
            "record": {"S": record.model_dump_json()},
        }
        puts: list[TransactWriteItemTypeDef] = [
            {
                "Put": {
                    "TableName": self._table,
                    "Item": item,
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            }
            for item in (tombstone, entry)
        ]
        for _ in range(3):
            refused = transact(self._client, "open erasure", puts)
            if refused is None:
                return record
            existing = self._get(tombstone_key(self._tenant, subject_id), "read erasure tombstone")
            if existing is not None:  # erased before: the repeat answers that erasure
                return self.get(existing["erasure_id"]["S"])
        raise AgentMemError("open erasure: the tombstone kept changing; retry")

    def _get(self, key: Item, action: str) -> Item | None:
        try:
            found = self._client.get_item(TableName=self._table, Key=key, ConsistentRead=True)
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, action) from exc
        return found.get("Item")

    def get(self, erasure_id: str) -> ErasureRecord:
        item = self._get(erasure_key(self._tenant, erasure_id), "read erasure")
        if item is None:
            raise NotFoundError(f"no erasure {erasure_id}", field="erasure_id")
        return ErasureRecord.model_validate_json(item["record"]["S"])

    def save(self, record: ErasureRecord) -> None:
        try:
            self._client.update_item(
                TableName=self._table,
                Key=erasure_key(self._tenant, record.erasure_id),
                UpdateExpression="SET #record = :record",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#record": "record"},
                ExpressionAttributeValues={":record": {"S": record.model_dump_json()}},
            )
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, "save erasure") from exc

    def erased(self, subject_ids: Collection[str]) -> set[str]:
        by_pk = {tombstone_key(self._tenant, s)["pk"]["S"]: s for s in set(subject_ids)}
        keys: list[Item] = [{"pk": {"S": pk}, "sk": {"S": TOMBSTONE_SK}} for pk in sorted(by_pk)]
        found = batch_get(self._client, self._table, keys, "read erasure tombstones", projection="pk")
        return {by_pk[item["pk"]["S"]] for item in found}
