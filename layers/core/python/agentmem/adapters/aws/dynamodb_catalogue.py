"""The composer's Catalogue and ConversationMemory on DynamoDB, in the event-log table (item layout
and table access: dynamodb_catalogue_items).

Every asset write is ONE TransactWriteItems: the asset puts (or the delete) and the move of the
tenant's revision head from the value read, n, to n + 1, with the condition `revision = n`. The
assets are stamped with n + 1 in the same transaction, so `change_seq` is always the revision that
write produced. A transaction cancelled by that condition or a conflict lost a race with another
writer: it is re-read and retried a bounded number of times, then ContentionError; a throttled one
raises BackendUnavailableError, as the event log does.

Reads are ConsistentRead. `headers()` is one paginated Query projecting the header attributes: it
is not a snapshot, and DynamoDB still reads (and bills) whole items, payloads included, 1 MB a page.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config
from pydantic import TypeAdapter

from agentmem.adapters.aws import dynamodb_catalogue_items as layout
from agentmem.adapters.aws.dynamodb_catalogue_items import CatalogueTable, Item
from agentmem.adapters.aws.dynamodb_transact import pause
from agentmem.compose.catalogue_rules import encode_payloads, next_version
from agentmem.compose.model import Asset, AssetHeader, ComposerSkill, ComposerSkillSpec, StoredAsset
from agentmem.errors import ContentionError, InvalidInputError, NotFoundError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import (
        AttributeValueTypeDef,
        QueryInputTypeDef,
        TransactWriteItemTypeDef,
    )

logger = logging.getLogger(__name__)

_HEADERS: TypeAdapter[list[AssetHeader]] = TypeAdapter(list[AssetHeader])


def _table(client: DynamoDBClient | None, table_name: str) -> CatalogueTable:
    return CatalogueTable(
        client or boto3.client("dynamodb", config=Config(retries={"mode": "standard"})), table_name
    )


class DynamoDbCatalogue:
    """One tenant's catalogue in a table with key schema `pk` (S) + `sk` (S)."""

    def __init__(
        self,
        table_name: str,
        tenant_id: str,
        *,
        client: DynamoDBClient | None = None,
        max_attempts: int = 25,
        retry_budget_seconds: float = 10.0,
    ) -> None:
        self._db = _table(client, table_name)
        self._tenant = tenant_id
        self._pk = layout.catalogue_pk(tenant_id)
        self._max_attempts = max_attempts
        self._retry_budget = retry_budget_seconds

    def _key(self, sk: str) -> Item:
        return {"pk": {"S": self._pk}, "sk": {"S": sk}}

    def _prefix_query(self, prefix: str) -> QueryInputTypeDef:
        return {
            "TableName": self._db.table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": self._pk}, ":prefix": {"S": prefix}},
            "ConsistentRead": True,
        }

    # -- assets ------------------------------------------------------------------------------

    def put_assets(self, assets: Sequence[Asset]) -> int:
        sized = [
            layout.asset_item(self._tenant, asset, payload)
            for asset, payload in zip(assets, encode_payloads(assets), strict=True)
        ]
        total = sum(size for _, size in sized)
        if total > layout.MAX_TRANSACTION_BYTES:
            raise InvalidInputError(
                f"these {len(assets)} assets take {total} bytes stored, over DynamoDB's limit of "
                f"{layout.MAX_TRANSACTION_BYTES} for one write; put them in smaller batches",
                field="assets",
            )
        return self._write(
            "put assets",
            lambda revision: [
                {"Put": {"TableName": self._db.table, "Item": layout.stamped(item, revision)}}
                for item, _ in sized
            ],
        )

    def delete_asset(self, asset_id: str) -> int:
        def not_found(reasons: list[str]) -> None:
            # The delete is first in the transaction; its condition failing means the asset is gone.
            if reasons and reasons[0] == "ConditionalCheckFailed":
                raise NotFoundError(f"no asset {asset_id!r}", field="asset_id")

        delete: TransactWriteItemTypeDef = {
            "Delete": {
                "TableName": self._db.table,
                "Key": self._key(layout.asset_sk(asset_id)),
                "ConditionExpression": "attribute_exists(pk)",
            }
        }
        return self._write("delete asset", lambda _: [delete], on_cancel=not_found)

    def _write(
        self,
        action: str,
        actions_at: Callable[[int], list[TransactWriteItemTypeDef]],
        on_cancel: Callable[[list[str]], None] | None = None,
    ) -> int:
        """Commit `actions_at(n + 1)` with the move of the head from n to n + 1; returns n + 1.
        `on_cancel` sees the reasons a round was cancelled and may raise instead of retrying."""
        deadline = time.monotonic() + self._retry_budget
        attempts = 0
        while True:
            attempts += 1
            current = self.revision()
            head: TransactWriteItemTypeDef = {
                "Put": {
                    "TableName": self._db.table,
                    "Item": layout.revision_item(self._tenant, current + 1),
                    # The condition that serialises the tenant's writers: one wins each revision.
                    "ConditionExpression": "attribute_not_exists(pk)" if current == 0 else "revision = :seen",
                }
            }
            if current:
                head["Put"]["ExpressionAttributeValues"] = {":seen": {"N": str(current)}}
            reasons = self._db.transact(action, [*actions_at(current + 1), head])
            if reasons is None:
                return current + 1
            if on_cancel is not None:
                on_cancel(reasons)
            wait = pause(attempts)
            if attempts >= self._max_attempts or time.monotonic() + wait > deadline:
                break
            time.sleep(wait)
        logger.warning(
            "catalogue write gave up under contention", extra={"action": action, "attempts": attempts}
        )
        raise ContentionError(f"{action}: the catalogue is too contended, retry later")

    def get_assets(self, asset_ids: Collection[str]) -> dict[str, StoredAsset]:
        keys = [self._key(layout.asset_sk(aid)) for aid in dict.fromkeys(asset_ids)]
        found: dict[str, StoredAsset] = {}
        for start in range(0, len(keys), layout.BATCH_GET_KEYS):
            for item in self._db.batch_get(keys[start : start + layout.BATCH_GET_KEYS], "read assets"):
                asset = layout.asset_from(item)
                found[asset.asset_id] = asset
        return found

    def headers(self) -> list[AssetHeader]:
        query = self._prefix_query(layout.ASSET_PREFIX)
        names = {f"#f{i}": field for i, field in enumerate(layout.HEADER_FIELDS)}  # `path` is reserved
        query["ProjectionExpression"] = ", ".join(names)
        query["ExpressionAttributeNames"] = names
        rows = [layout.header_of(item) for item in self._db.query(query, "list asset headers")]
        # The items come back in sk order, that is by id; the port orders by path first.
        rows.sort(key=lambda row: (row["path"], row["asset_id"]))
        return _HEADERS.validate_python(rows)

    def revision(self) -> int:
        head = self._db.get(self._key(layout.REVISION_SK), "read catalogue revision")
        return int(head["revision"]["N"]) if head is not None else 0

    # -- skills ------------------------------------------------------------------------------

    def put_skill(self, skill_id: str, spec: ComposerSkillSpec) -> ComposerSkill:
        for attempt in range(1, self._max_attempts + 1):
            stored = self._skill(skill_id)
            skill = next_version(skill_id, stored, spec)
            if skill is None:
                assert stored is not None
                return stored
            if self._put_version(layout.skill_item(self._tenant, skill)):
                return skill
            time.sleep(pause(attempt))
        raise ContentionError(f"put skill: skill {skill_id!r} is too contended, retry later")

    def _put_version(self, item: Item) -> bool:
        """Write one skill version, once: False when a concurrent writer took that version."""
        return self._db.conditional(
            "put skill",
            lambda: self._db.client.put_item(
                TableName=self._db.table, Item=item, ConditionExpression="attribute_not_exists(pk)"
            ),
        )

    def get_skill(self, skill_id: str) -> ComposerSkill:
        skill = self._skill(skill_id)
        if skill is None:
            raise NotFoundError(f"no skill {skill_id!r}", field="skill_id")
        return skill

    def _skill(self, skill_id: str) -> ComposerSkill | None:
        """The highest version: versions are zero-padded, so the last sk in order is the latest."""
        query = self._prefix_query(layout.skill_prefix(skill_id))
        query["ScanIndexForward"] = False
        query["Limit"] = 1
        items = self._db.query(query, "read skill")
        return layout.skill_from(items[0]) if items else None


class DynamoDbConversationMemory:
    """What each conversation was sent: one item per conversation whose map grows with every
    record and expires `ttl_days` after the last one. An item past `expires_at` counts as absent
    even before DynamoDB's TTL removes it (that can lag by days)."""

    RECORD_CHUNK = 100
    """Entries per UpdateItem, whose expression is capped at 4 KB."""

    def __init__(
        self, table_name: str, tenant_id: str, *, client: DynamoDBClient | None = None, ttl_days: int = 7
    ) -> None:
        self._db = _table(client, table_name)
        self._tenant = tenant_id
        self._ttl_seconds = ttl_days * 86_400

    def _key(self, conversation_id: str) -> Item:
        return {
            "pk": {"S": layout.conversation_pk(self._tenant, conversation_id)},
            "sk": {"S": layout.SENT_SK},
        }

    def sent(self, conversation_id: str) -> dict[str, str]:
        item = self._db.get(self._key(conversation_id), "read conversation memory")
        if item is None or int(item["expires_at"]["N"]) <= int(time.time()):
            return {}
        return {asset_id: value["S"] for asset_id, value in item["sent"]["M"].items()}

    def record(self, conversation_id: str, sent: dict[str, str]) -> None:
        entries = list(sent.items())
        for start in range(0, len(entries), self.RECORD_CHUNK):
            self._merge(conversation_id, dict(entries[start : start + self.RECORD_CHUNK]))

    def forget(self, conversation_ids: Collection[str]) -> int:
        """Delete each conversation's item; returns how many existed (an erasure's tier)."""
        client, table, removed = self._db.client, self._db.table, 0
        for conversation_id in sorted(set(conversation_ids)):
            key = self._key(conversation_id)
            removed += self._db.conditional(
                "forget conversation",
                lambda key=key: client.delete_item(  # type: ignore[misc]
                    TableName=table, Key=key, ConditionExpression="attribute_exists(pk)"
                ),
            )
        return removed

    def _merge(self, conversation_id: str, sent: dict[str, str]) -> None:
        """Set each entry in the live item's map, or start the item when there is none (or it has
        expired). The two conditions exclude each other, so a concurrent start is merged into."""
        action, key, now = "record conversation memory", self._key(conversation_id), int(time.time())
        expires: AttributeValueTypeDef = {"N": str(now + self._ttl_seconds)}
        values: Item = {":now": {"N": str(now)}, ":expires": expires}
        names = {"#sent": "sent"}
        for i, (asset_id, digest) in enumerate(sent.items()):
            names[f"#a{i}"], values[f":h{i}"] = asset_id, {"S": digest}
        merge = "SET expires_at = :expires, " + ", ".join(f"#sent.#a{i} = :h{i}" for i in range(len(sent)))
        fresh: Item = {
            **key,
            "entity": {"S": "conversation_sent"},
            "tenant_id": {"S": self._tenant},
            "sent": {"M": {asset_id: {"S": digest} for asset_id, digest in sent.items()}},
            "expires_at": expires,
        }
        client, table = self._db.client, self._db.table
        for _ in range(4):
            if self._db.conditional(
                action,
                lambda: client.update_item(
                    TableName=table,
                    Key=key,
                    UpdateExpression=merge,
                    ConditionExpression="attribute_exists(#sent) AND expires_at > :now",
                    ExpressionAttributeNames=names,
                    ExpressionAttributeValues=values,
                ),
            ) or self._db.conditional(
                action,
                lambda: client.put_item(
                    TableName=table,
                    Item=fresh,
                    ConditionExpression="attribute_not_exists(#sent) OR expires_at <= :now",
                    ExpressionAttributeNames={"#sent": "sent"},
                    ExpressionAttributeValues={":now": values[":now"]},
                ),
            ):
                return
        raise ContentionError(f"{action}: conversation {conversation_id!r} is too contended, retry later")
