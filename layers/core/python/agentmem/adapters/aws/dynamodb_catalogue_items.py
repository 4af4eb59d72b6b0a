"""How the DynamoDB catalogue lays out its items in the event-log table (`pk` S + `sk` S), and the
reads and writes it makes there.

Partition `CATALOGUE#<tenant>`, told apart by `sk` (and `entity`, which stream consumers read):
- `A#<asset_id>` (`entity=asset`): the header fields as attributes, so `headers()` can project
  them; `body` and `updated_at` as strings; the payload as zlib-compressed JSON in `payload_z`;
- `REV` (`entity=catalogue_revision`): the revision head, `revision`;
- `S#<skill_id>#V<version:06d>` (`entity=composer_skill`): one version of a skill, in `skill_json`;
  zero-padded so the last in sk order is the latest (good for 999,999 versions).
Partition `CONV#<tenant>#<conversation_id>`, sk `SENT` (`entity=conversation_sent`): the map
`sent` (asset_id -> content hash) and `expires_at` (epoch seconds), which the stack has to name as
the table's TTL attribute for old conversations to be removed.

Ids match ID_PATTERN, so they never hold `#`: `S#<id>#V` prefixes one skill's versions only.

Size: DynamoDB refuses items over 400 KB and transactions over 4 MB. The shared payload cap
(MAX_PAYLOAD_BYTES of JSON) keeps every asset item under MAX_ITEM_BYTES even uncompressed, so the
item check is a backstop; the transaction check is real: a full batch of large, poorly
compressing payloads is refused (InvalidInputError, field `assets`) and has to be split.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.dynamodb_pages import batch_get
from agentmem.adapters.aws.dynamodb_transact import transact
from agentmem.adapters.aws.errors import translate_client_error
from agentmem.compose.model import Asset, ComposerSkill, StoredAsset
from agentmem.errors import InvalidInputError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import (
        AttributeValueTypeDef,
        QueryInputTypeDef,
        TransactWriteItemTypeDef,
    )

Item: TypeAlias = "dict[str, AttributeValueTypeDef]"

ASSET_PREFIX, SKILL_PREFIX = "A#", "S#"
REVISION_SK, SENT_SK = "REV", "SENT"
VERSION_WIDTH = 6
MAX_ITEM_BYTES = 350_000
"""Under DynamoDB's 400 KB item limit with room to spare for its own accounting."""
MAX_TRANSACTION_BYTES = 4_000_000
"""DynamoDB's limit on the items of one TransactWriteItems (4 MB), rounded down."""
ITEM_OVERHEAD = 256
"""Attribute names, numbers and list framing of an asset item, generously."""
BATCH_GET_KEYS = 100  # BatchGetItem's limit
HEADER_FIELDS = ("asset_id", "path", "kind", "title", "principals", "deprecated", "change_seq", "cites")


def catalogue_pk(tenant_id: str) -> str:
    return f"CATALOGUE#{tenant_id}"


def asset_id_of(pk: str, sk: str, tenant_id: str) -> str | None:
    """The asset a stream record's keys name (of `tenant_id`'s catalogue), else None. Keys are all
    a REMOVE record carries, so they alone must do."""
    if pk != catalogue_pk(tenant_id) or not sk.startswith(ASSET_PREFIX):
        return None
    return sk[len(ASSET_PREFIX) :]


def conversation_pk(tenant_id: str, conversation_id: str) -> str:
    return f"CONV#{tenant_id}#{conversation_id}"


def asset_sk(asset_id: str) -> str:
    return f"{ASSET_PREFIX}{asset_id}"


def skill_prefix(skill_id: str) -> str:
    return f"{SKILL_PREFIX}{skill_id}#V"


def skill_sk(skill_id: str, version: int) -> str:
    return f"{skill_prefix(skill_id)}{version:0{VERSION_WIDTH}d}"


def asset_item(tenant_id: str, asset: Asset, payload_json: bytes) -> tuple[Item, int]:
    """The item of `asset` (its `change_seq` is stamped per attempt) and its size in bytes.
    InvalidInputError(field="payload") if it would not fit in a DynamoDB item."""
    payload_z = zlib.compress(payload_json)
    updated_at = asset.updated_at.isoformat()
    item: Item = {
        "pk": {"S": catalogue_pk(tenant_id)},
        "sk": {"S": asset_sk(asset.asset_id)},
        "entity": {"S": "asset"},
        "tenant_id": {"S": tenant_id},
        "asset_id": {"S": asset.asset_id},
        "path": {"S": asset.path},
        "kind": {"S": asset.kind},
        "title": {"S": asset.title},
        "principals": {"L": [{"S": p} for p in asset.principals]},
        "deprecated": {"BOOL": asset.deprecated},
        "body": {"S": asset.body},
        "updated_at": {"S": updated_at},
        "payload_z": {"B": payload_z},
    }
    if asset.cites:  # absent when empty: the items of assets citing nothing are as before
        item["cites"] = {"S": json.dumps([c.model_dump(mode="json", exclude_none=True) for c in asset.cites])}
    texts = (tenant_id, asset.asset_id, asset.path, asset.kind, asset.title, asset.body, updated_at)
    size = (
        ITEM_OVERHEAD
        + len(payload_z)
        + 2 * len(tenant_id) + 2 * len(asset.asset_id) + 20  # pk and sk repeat them
        + sum(len(text.encode("utf-8")) for text in texts)
        + sum(len(p) + 1 for p in asset.principals)
    )  # fmt: skip
    if size > MAX_ITEM_BYTES:
        raise InvalidInputError(
            f"asset {asset.asset_id!r} would take {size} bytes stored, over the limit of {MAX_ITEM_BYTES}; "
            "keep large content in the blob store",
            field="payload",
        )
    return item, size


def stamped(item: Item, change_seq: int) -> Item:
    return {**item, "change_seq": {"N": str(change_seq)}}


def header_of(item: Item) -> dict[str, Any]:
    """The AssetHeader fields of an item projected to HEADER_FIELDS, ready to validate."""
    return {
        "asset_id": item["asset_id"]["S"],
        "path": item["path"]["S"],
        "kind": item["kind"]["S"],
        "title": item["title"]["S"],
        "principals": [p["S"] for p in item["principals"]["L"]],
        "deprecated": item["deprecated"]["BOOL"],
        "change_seq": int(item["change_seq"]["N"]),
        "cites": json.loads(item["cites"]["S"]) if "cites" in item else [],
    }


def asset_from(item: Item) -> StoredAsset:
    payload = item["payload_z"]["B"]
    assert isinstance(payload, bytes)  # botocore hands binary attributes back as bytes
    return StoredAsset(
        **header_of(item),
        body=item["body"]["S"],
        payload=json.loads(zlib.decompress(payload)),
        updated_at=item["updated_at"]["S"],
    )


def revision_item(tenant_id: str, revision: int) -> Item:
    return {
        "pk": {"S": catalogue_pk(tenant_id)},
        "sk": {"S": REVISION_SK},
        "entity": {"S": "catalogue_revision"},
        "tenant_id": {"S": tenant_id},
        "revision": {"N": str(revision)},
    }


def skill_item(tenant_id: str, skill: ComposerSkill) -> Item:
    return {
        "pk": {"S": catalogue_pk(tenant_id)},
        "sk": {"S": skill_sk(skill.skill_id, skill.version)},
        "entity": {"S": "composer_skill"},
        "tenant_id": {"S": tenant_id},
        "skill_id": {"S": skill.skill_id},
        "version": {"N": str(skill.version)},
        "updated_at": {"S": skill.updated_at},
        # JSON text, not a map: maps turn numbers into Decimals and drop key order.
        "skill_json": {"S": skill.model_dump_json()},
    }


def skill_from(item: Item) -> ComposerSkill:
    return ComposerSkill.model_validate_json(item["skill_json"]["S"])


# -- the table -------------------------------------------------------------------------------------


class CatalogueTable:
    """The reads and writes the catalogue adapters make. Reads are ConsistentRead; every botocore
    fault leaves as a domain error naming `action`."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self.client = client
        self.table = table

    def get(self, key: Item, action: str) -> Item | None:
        try:
            response = self.client.get_item(TableName=self.table, Key=key, ConsistentRead=True)
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, action) from exc
        return response.get("Item")

    def query(self, query: QueryInputTypeDef, action: str) -> list[Item]:
        """Every item `query` matches, page by page; only the first page of a query with a Limit."""
        items: list[Item] = []
        while True:
            try:
                page = self.client.query(**query)
            except (ClientError, BotoCoreError) as exc:
                raise translate_client_error(exc, action) from exc
            items.extend(page.get("Items", []))
            if "LastEvaluatedKey" not in page or query.get("Limit"):
                return items
            query["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def batch_get(self, keys: list[Item], action: str) -> list[Item]:
        """Every item among `keys` that exists (dynamodb_pages.batch_get: unprocessed keys asked
        for again)."""
        return list(batch_get(self.client, self.table, keys, action))

    def transact(self, action: str, actions: list[TransactWriteItemTypeDef]) -> list[str] | None:
        """None once committed; the cancellation reasons when a condition or a conflict stopped it."""
        return transact(self.client, action, actions)

    def conditional(self, action: str, write: Callable[[], object]) -> bool:
        """Run a conditional single-item write: True once done, False when its condition failed."""
        try:
            write()
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise translate_client_error(exc, action) from exc
        except BotoCoreError as exc:
            raise translate_client_error(exc, action) from exc
        return True
