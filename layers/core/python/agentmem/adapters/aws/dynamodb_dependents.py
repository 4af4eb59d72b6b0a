"""DependentsIndex on DynamoDB, in the log's table (its stream skips these items: not events).

- use:   pk=`T#{tenant}#DEP#{dependent}`  sk=`USE#{subject}/{key}/{member}`  version, stale, stale_rank
- body:  pk=`T#{tenant}#DEP#{dependent}`  sk=`BODY`                          body
- cited: pk=`T#{tenant}#CITED#{subject}`  sk=`{key}/{member}/{dependent}`     version

The cited item is the use seen from the belief's side: the projector finds a belief's dependents
with one Query on its subject's partition (no Scan, no index), then marks each use with a
conditional UpdateItem, so a mark never lowers another and a use recorded anew meanwhile (another
version) is left alone. No part of a key can hold `/` (ids, fact keys and dependents' names).

A dependent recorded with a ttl carries `expires_at` (epoch seconds), the table's TTL attribute,
on all three kinds of item, so DynamoDB's TTL removes both sides. TTL deletes within days of the
time, not at it: reads and marks skip an item past it already."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.dynamodb_items import Item
from agentmem.adapters.aws.dynamodb_pages import batch_write, query_pages
from agentmem.adapters.aws.errors import translate_client_error
from agentmem.model.dependents import ERASED, BeliefRef, BeliefUse, Staleness, stale_after

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import QueryInputTypeDef, WriteRequestTypeDef

BODY_SK, USE_PREFIX = "BODY", "USE#"


class DynamoDbDependentsIndex:
    def __init__(
        self,
        table_name: str,
        tenant_id: str,
        *,
        client: DynamoDBClient | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._table = table_name
        self._tenant = tenant_id
        self._clock = clock
        self._client: DynamoDBClient = client or boto3.client(
            "dynamodb", config=Config(retries={"mode": "standard"})
        )

    # -- keys ------------------------------------------------------------------------------

    def _dep_pk(self, dependent: str) -> str:
        return f"T#{self._tenant}#DEP#{dependent}"

    def _cited_pk(self, subject_id: str) -> str:
        return f"T#{self._tenant}#CITED#{subject_id}"

    @staticmethod
    def _chain(use: BeliefUse) -> str:
        return f"{use.ref.key}/{use.ref.member or ''}"

    def _use_key(self, dependent: str, use: BeliefUse) -> Item:
        sk = f"{USE_PREFIX}{use.ref.subject_id}/{self._chain(use)}"
        return {"pk": {"S": self._dep_pk(dependent)}, "sk": {"S": sk}}

    def _cited_key(self, dependent: str, use: BeliefUse) -> Item:
        sk = f"{self._chain(use)}/{dependent}"
        return {"pk": {"S": self._cited_pk(use.ref.subject_id)}, "sk": {"S": sk}}

    # -- the port --------------------------------------------------------------------------

    def _live(self, item: Item) -> bool:
        return "expires_at" not in item or int(item["expires_at"]["N"]) > int(self._clock())

    def record(
        self, dependent: str, uses: Sequence[BeliefUse], body: str | None = None, ttl: timedelta | None = None
    ) -> None:
        old = {u.key(): u for u in self.uses_of(dependent)}
        new = {u.key(): u for u in uses}
        expiry: Item = {}
        if ttl is not None:
            expiry["expires_at"] = {"N": str(int(self._clock()) + int(ttl.total_seconds()))}
        writes: list[WriteRequestTypeDef] = []
        for use in new.values():
            item: Item = {
                **self._use_key(dependent, use),
                "entity": {"S": "dependent_use"},
                "version": {"N": str(use.version)},
                **expiry,
            }
            if use.stale is not None:
                item["stale"] = {"S": use.stale.model_dump_json()}
                item["stale_rank"] = {"N": str(use.stale.rank)}
            cited: Item = {
                **self._cited_key(dependent, use),
                "entity": {"S": "dependent_cited"},
                "dependent": {"S": dependent},
                "version": {"N": str(use.version)},
                **expiry,
            }
            writes += [{"PutRequest": {"Item": item}}, {"PutRequest": {"Item": cited}}]
        for key, use in old.items():
            if key not in new:
                writes += [
                    {"DeleteRequest": {"Key": self._use_key(dependent, use)}},
                    {"DeleteRequest": {"Key": self._cited_key(dependent, use)}},
                ]
        body_key: Item = {"pk": {"S": self._dep_pk(dependent)}, "sk": {"S": BODY_SK}}
        if body is not None:
            writes.append(
                {
                    "PutRequest": {
                        "Item": {**body_key, "entity": {"S": "dependent_body"}, "body": {"S": body}, **expiry}
                    }
                }
            )
        else:
            writes.append({"DeleteRequest": {"Key": body_key}})
        self._write(writes, "record dependent")

    def uses_of(self, dependent: str) -> list[BeliefUse]:
        uses = []
        for item in self._query(self._dep_pk(dependent), USE_PREFIX, "read dependent"):
            if not self._live(item):
                continue
            subject, key, member = item["sk"]["S"][len(USE_PREFIX) :].split("/")
            stale = Staleness.model_validate_json(item["stale"]["S"]) if "stale" in item else None
            ref = BeliefRef(subject_id=subject, key=key, member=member or None)
            uses.append(BeliefUse(ref, int(item["version"]["N"]), stale))
        return sorted(uses, key=BeliefUse.key)

    def stale_of(self, dependent: str) -> list[Staleness]:
        marked = [u.stale for u in self.uses_of(dependent) if u.stale is not None]
        return sorted(marked, key=lambda s: s.belief)

    def stale_of_many(self, dependents: Sequence[str]) -> dict[str, list[Staleness]]:
        """One Query per dependent: a use's sort key names its belief, which the caller need not
        know, so BatchGetItem cannot fetch them (the same Query on `DEP#` that `stale_of` makes)."""
        found = {name: self.stale_of(name) for name in sorted(set(dependents))}
        return {name: marks for name, marks in found.items() if marks}

    def body_of(self, dependent: str) -> str | None:
        key: Item = {"pk": {"S": self._dep_pk(dependent)}, "sk": {"S": BODY_SK}}
        try:
            found = self._client.get_item(TableName=self._table, Key=key)
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, "read dependent") from exc
        item = found.get("Item")
        return item["body"]["S"] if item and self._live(item) else None

    def mark_stale(self, ref: BeliefRef, to_version: int, reason: str) -> list[str]:
        prefix = f"{ref.key}/{ref.member or ''}/"
        return self._mark(ref.subject_id, prefix, to_version, reason)

    def mark_erased(self, subject_id: str) -> list[str]:
        return self._mark(subject_id, "", None, ERASED)

    def expire(self) -> int:
        return 0  # the table's TTL removes expired items; reads skip them until it does

    def forget(self, dependent: str) -> bool:
        uses = self.uses_of(dependent)
        had = bool(uses) or self.body_of(dependent) is not None
        if had:
            self.record(dependent, [])
        return had

    # -- helpers ---------------------------------------------------------------------------

    def _mark(self, subject_id: str, prefix: str, to_version: int | None, reason: str) -> list[str]:
        marked: set[str] = set()
        for cited in self._query(self._cited_pk(subject_id), prefix, "find dependents"):
            if not self._live(cited):
                continue
            key, member, _ = cited["sk"]["S"].split("/", 2)
            dependent = cited["dependent"]["S"]
            ref = BeliefRef(subject_id=subject_id, key=key, member=member or None)
            seen = BeliefUse(ref, int(cited["version"]["N"]))
            stale = stale_after(seen, to_version, reason)
            if stale is not None and self._set_stale(dependent, seen, stale):
                marked.add(dependent)
        return sorted(marked)

    def _set_stale(self, dependent: str, use: BeliefUse, stale: Staleness) -> bool:
        """Mark the use unless it was recorded anew at another version, or is stale up to as far."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=self._use_key(dependent, use),
                UpdateExpression="SET stale = :stale, stale_rank = :rank",
                ConditionExpression=(
                    "version = :seen AND (attribute_not_exists(stale_rank) OR stale_rank < :rank)"
                    " AND (attribute_not_exists(expires_at) OR expires_at > :now)"
                ),
                ExpressionAttributeValues={
                    ":stale": {"S": stale.model_dump_json()},
                    ":rank": {"N": str(stale.rank)},
                    ":seen": {"N": str(use.version)},
                    ":now": {"N": str(int(self._clock()))},
                },
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise translate_client_error(exc, "mark dependent stale") from exc
        except BotoCoreError as exc:
            raise translate_client_error(exc, "mark dependent stale") from exc
        return True

    def _query(self, pk: str, prefix: str, action: str) -> Iterator[Item]:
        query: QueryInputTypeDef = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": pk}},
            "ConsistentRead": True,  # a mark right after a record must see the record
        }
        if prefix:
            query["KeyConditionExpression"] += " AND begins_with(sk, :prefix)"
            query["ExpressionAttributeValues"] = {":pk": {"S": pk}, ":prefix": {"S": prefix}}
        return query_pages(self._client, query, action)

    def _write(self, writes: list[WriteRequestTypeDef], action: str) -> None:
        batch_write(self._client, self._table, writes, action)
