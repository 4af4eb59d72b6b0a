"""Table access of the DynamoDB skill library: consistent reads, paginated queries, batch gets
that retry unprocessed keys, and the conditional actions one write's transaction is made of.
The item layout itself is in dynamodb_skill_items."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.dynamodb_pages import batch_get
from agentmem.adapters.aws.dynamodb_skill_items import (
    EXISTS,
    NEW,
    Item,
    function_sk,
    link_items,
    link_sk,
    mirror_sk,
    revision_item,
    skills_pk,
)
from agentmem.adapters.aws.dynamodb_transact import transact
from agentmem.adapters.aws.errors import translate_client_error

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import (
        QueryInputTypeDef,
        TransactWriteItemTypeDef,
    )


class SkillTable:
    """Reads, transaction actions and the commit over one tenant's skill items. Every read is
    ConsistentRead; every botocore fault leaves as a domain error."""

    def __init__(self, client: DynamoDBClient, table: str, tenant_id: str) -> None:
        self.client = client
        self.table = table
        self.tenant = tenant_id

    def key(self, sk: str) -> Item:
        return {"pk": {"S": skills_pk(self.tenant)}, "sk": {"S": sk}}

    def get(self, sk: str) -> Item | None:
        try:
            response = self.client.get_item(TableName=self.table, Key=self.key(sk), ConsistentRead=True)
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, "read skill library") from exc
        return response.get("Item")

    def query(self, prefix: str, *fields: str) -> Iterator[Item]:
        """Every item whose sk starts with `prefix`, in sk order, projected to `fields`, page by page."""
        names = {f"#f{i}": field for i, field in enumerate(fields)}  # `status` is a reserved word
        query: QueryInputTypeDef = {
            "TableName": self.table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": skills_pk(self.tenant)}, ":prefix": {"S": prefix}},
            "ProjectionExpression": ", ".join(names),
            "ExpressionAttributeNames": names,
            "ConsistentRead": True,
        }
        while True:
            try:
                page = self.client.query(**query)
            except (ClientError, BotoCoreError) as exc:
                raise translate_client_error(exc, "query skill library") from exc
            yield from page.get("Items", [])
            if "LastEvaluatedKey" not in page:
                return
            query["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def batch_get(self, sks: list[str], *fields: str) -> dict[str, Item]:
        """The items that exist among `sks`, by sk, projected to `fields` (and sk) if given; keys
        left unprocessed are asked for again."""
        keys = [self.key(sk) for sk in dict.fromkeys(sks)]
        names = {f"#f{i}": field for i, field in enumerate(dict.fromkeys(("sk", *fields)))} if fields else {}
        projection = ", ".join(names) or None
        found = batch_get(
            self.client, self.table, keys, "read skill library", projection=projection, names=names
        )
        return {item["sk"]["S"]: item for item in found}

    def commit(self, action: str, actions: list[TransactWriteItemTypeDef]) -> bool:
        """True once committed; False when a condition failed or a concurrent transaction won."""
        return transact(self.client, action, actions) is None

    # Transaction actions, each with the condition it needs.

    def put(self, item: Item, seen: int | None, counter: str = "version") -> TransactWriteItemTypeDef:
        """Put `item` if the stored one's `counter` is still `seen` (None: if there is none yet)."""
        if seen is None:
            return {"Put": {"TableName": self.table, "Item": item, "ConditionExpression": NEW}}
        return {
            "Put": {
                "TableName": self.table,
                "Item": item,
                "ConditionExpression": f"{counter} = :seen",
                "ExpressionAttributeValues": {":seen": {"N": str(seen)}},
            }
        }

    def bump(self, revision: int) -> TransactWriteItemTypeDef:
        """Move REV on from `revision`: the condition that serialises the tenant's writers."""
        return self.put(revision_item(self.tenant, revision + 1), revision or None, "revision")

    def delete(self, sk: str, seen: int) -> TransactWriteItemTypeDef:
        return {
            "Delete": {
                "TableName": self.table,
                "Key": self.key(sk),
                "ConditionExpression": "version = :seen",
                "ExpressionAttributeValues": {":seen": {"N": str(seen)}},
            }
        }

    def link(self, guidance_id: str, function_id: str) -> list[TransactWriteItemTypeDef]:
        """A new link and its mirror, conditioned on the function still being there (the guidance
        is put in the same transaction)."""
        exists: TransactWriteItemTypeDef = {
            "ConditionCheck": {
                "TableName": self.table,
                "Key": self.key(function_sk(function_id)),
                "ConditionExpression": EXISTS,
            }
        }
        return [exists, *(self.put(item, None) for item in link_items(self.tenant, guidance_id, function_id))]

    def unlink(self, guidance_id: str, function_id: str) -> list[TransactWriteItemTypeDef]:
        return [
            {"Delete": {"TableName": self.table, "Key": self.key(sk), "ConditionExpression": EXISTS}}
            for sk in (link_sk(guidance_id, function_id), mirror_sk(function_id, guidance_id))
        ]

    def review(self, guidance_id: str, function_id: str, flag: bool) -> TransactWriteItemTypeDef:
        """Set needs_review; conditioned on the link existing, so it never makes a half link."""
        return {
            "Update": {
                "TableName": self.table,
                "Key": self.key(link_sk(guidance_id, function_id)),
                "UpdateExpression": "SET needs_review = :flag",
                "ConditionExpression": EXISTS,
                "ExpressionAttributeValues": {":flag": {"BOOL": flag}},
            }
        }
