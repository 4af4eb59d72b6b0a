"""VectorCache on DynamoDB, in a table of its own (the stack's VectorTable): `pk` + `sk` strings.

- vector: pk=`T#{tenant}#V#{model}#{digest}`  sk=`VECTOR`            vector (Binary)
- owner:  pk=`T#{tenant}#V#{model}#{digest}`  sk=`OWNER#{subject}`   the subject said the text
- owns:   pk=`T#{tenant}#OWNS#{subject}`      sk=`{model}#{digest}`  the same, seen from the subject

Not the log's table: its stream would carry every vector to the projector's filters, and its
point-in-time recovery would keep an erased subject's vectors restorable for 35 days. A vector is
float32 bytes where that keeps every float, else float64 (agentmem.adapters.vector_bytes), so a
hit is exactly what `put` got. One partition per vector spreads a replay's writes over the table.

Erasure needs no Scan and no index: `forget_subject` Queries the subject's OWNS partition, deletes
its owner items, then reads each vector's partition for an owner left (a strongly consistent
Query): of two subjects forgetting the same vector at once, the later read sees neither, so the
last owner always takes the vector with it. The OWNS items go last, so an erasure cut short
finds its entries again when it is repeated. `put` writes the owners before the vectors: a put
cut short leaves owners of nothing, never a vector nobody owns."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config

from agentmem.adapters.aws.dynamodb_items import Item
from agentmem.adapters.aws.dynamodb_pages import batch_get, batch_write, query_pages
from agentmem.adapters.vector_bytes import decode, encode
from agentmem.ports.vectors import VectorKey

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import QueryInputTypeDef, WriteRequestTypeDef

logger = logging.getLogger(__name__)

VECTOR_SK, OWNER_PREFIX = "VECTOR", "OWNER#"
FORGET_CHUNK = 200  # entries an erasure finishes before it takes the next: a repeat resumes there
OWNER_READS = 8  # concurrent owner Queries while forgetting (a boto3 client is thread-safe)


class DynamoDbVectorCache:
    def __init__(self, table_name: str, tenant_id: str, *, client: DynamoDBClient | None = None) -> None:
        self._table = table_name
        self._tenant = tenant_id
        self._client: DynamoDBClient = client or boto3.client(
            "dynamodb", config=Config(retries={"mode": "standard"})
        )

    # -- keys ------------------------------------------------------------------------------

    def _vector_pk(self, entry: str) -> str:
        """The partition of the vector named `entry` (`{model}#{digest}`, an OWNS item's sort key)."""
        return f"T#{self._tenant}#V#{entry}"

    def _owns_pk(self, subject_id: str) -> str:
        return f"T#{self._tenant}#OWNS#{subject_id}"

    @staticmethod
    def _key(pk: str, sk: str) -> Item:
        return {"pk": {"S": pk}, "sk": {"S": sk}}

    # -- the port --------------------------------------------------------------------------

    def get(self, model: str, digests: Sequence[str]) -> dict[str, list[float]]:
        by_pk = {self._vector_pk(f"{model}#{digest}"): digest for digest in dict.fromkeys(digests)}
        keys = [self._key(pk, VECTOR_SK) for pk in by_pk]
        found = batch_get(self._client, self._table, keys, "read cached vectors", projection="pk, vector")
        return {by_pk[item["pk"]["S"]]: decode(item["vector"]["B"]) for item in found}

    def put(self, model: str, vectors: Mapping[VectorKey, Sequence[float]]) -> int:
        if not vectors:
            return 0
        # BatchWriteItem refuses two requests for one key: each item once, the last vector winning.
        owners: dict[tuple[str, str], Item] = {}
        held: dict[str, Item] = {}
        for (subject, digest), vector in vectors.items():
            entry = f"{model}#{digest}"
            vector_pk = self._vector_pk(entry)
            owners[(self._owns_pk(subject), entry)] = {"entity": {"S": "vector_owns"}}
            owners[(vector_pk, OWNER_PREFIX + subject)] = {"entity": {"S": "vector_owner"}}
            held[vector_pk] = {"entity": {"S": "vector"}, "vector": {"B": encode(vector)}}
        # Every owner is written before any vector: a put cut short leaves no vector unowned.
        self._put([{**self._key(pk, sk), **rest} for (pk, sk), rest in owners.items()])
        self._put([{**self._key(pk, VECTOR_SK), **rest} for pk, rest in held.items()])
        return len(vectors)

    def forget_subject(self, subject_id: str) -> int:
        query: QueryInputTypeDef = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": self._owns_pk(subject_id)}},
            "ProjectionExpression": "sk",
            "ConsistentRead": True,  # a put just before the erasure must be found
        }
        entries = (item["sk"]["S"] for item in query_pages(self._client, query, "find cached vectors"))
        removed = 0
        with ThreadPoolExecutor(max_workers=OWNER_READS) as pool:
            while chunk := list(islice(entries, FORGET_CHUNK)):
                removed += self._forget(subject_id, chunk, pool)
        if removed:
            logger.info("cached vectors forgotten", extra={"entries": removed})
        return removed

    # -- helpers ---------------------------------------------------------------------------

    def _forget(self, subject_id: str, entries: list[str], pool: ThreadPoolExecutor) -> int:
        """Drop the subject's ownership of `entries`, and each vector nobody else owns now."""
        vector_pks = [self._vector_pk(entry) for entry in entries]
        self._delete([self._key(pk, OWNER_PREFIX + subject_id) for pk in vector_pks], "forget vector owners")
        unowned = [
            pk for pk, owned in zip(vector_pks, pool.map(self._owned, vector_pks), strict=True) if not owned
        ]
        self._delete([self._key(pk, VECTOR_SK) for pk in unowned], "forget cached vectors")
        self._delete(
            [self._key(self._owns_pk(subject_id), entry) for entry in entries], "forget cached vectors"
        )
        return len(entries)

    def _owned(self, vector_pk: str) -> bool:
        query: QueryInputTypeDef = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :owner)",
            "ExpressionAttributeValues": {":pk": {"S": vector_pk}, ":owner": {"S": OWNER_PREFIX}},
            "ProjectionExpression": "sk",
            "ConsistentRead": True,  # an owner deleted a moment ago must not keep the vector
            "Limit": 1,
        }
        return next(query_pages(self._client, query, "read vector owners"), None) is not None

    def _put(self, items: list[Item]) -> None:
        writes: list[WriteRequestTypeDef] = [{"PutRequest": {"Item": item}} for item in items]
        batch_write(self._client, self._table, writes, "cache vectors")

    def _delete(self, keys: list[Item], action: str) -> None:
        writes: list[WriteRequestTypeDef] = [{"DeleteRequest": {"Key": key}} for key in keys]
        batch_write(self._client, self._table, writes, action)
