"""How DynamoDbSkillLibrary stores skills: the item layout (which the stream projector reads),
the mapping between items and models, and the reads, actions and commit over one tenant's items.

Every skill-library item of a tenant has `pk = SKILLS#<tenant>` and lives in the event-log table;
`sk` tells the items apart:

- `FN#<function_id>`: a function (`entity=skill_function`, `skill_kind=function`, `skill_id`);
- `GD#<guidance_id>`: guidance (`entity=skill_guidance`, `skill_kind=guidance`, `skill_id`);
- `LG#<guidance_id>#<function_id>`: a link, the one that carries `needs_review` (`entity=skill_link`);
- `LF#<function_id>#<guidance_id>`: its mirror, so a function's links are one Query as well;
- `REV`: the tenant's write revision (`entity=skill_revision`), bumped by every write.

Ids match ID_PATTERN, so they never contain `#` and every id character sorts after it: the sk alone
(all a REMOVE record carries) names the item, and `LG#` items come back by guidance then function id.
Bodies are JSON strings (maps would turn numbers into Decimals); a few fields are copied to top-level
attributes so that stamps, the dependency graph and the projector can read them with a projection.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TypeAlias

from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.dynamodb_log import BASE_PAUSE, CONTENTION_CODES, MAX_PAUSE, THROTTLE_CODES
from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import BackendUnavailableError, InvalidInputError
from agentmem.procedural.model import Function, FunctionSpec, Guidance, GuidanceSpec, Link, SkillKind

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import (
        AttributeValueTypeDef,
        KeysAndAttributesTypeDef,
        QueryInputTypeDef,
        TransactWriteItemTypeDef,
    )

Item: TypeAlias = "dict[str, AttributeValueTypeDef]"

FUNCTION_PREFIX, GUIDANCE_PREFIX = "FN#", "GD#"
LINK_PREFIX, MIRROR_PREFIX = "LG#", "LF#"
REVISION_SK = "REV"
NEW, EXISTS = "attribute_not_exists(pk)", "attribute_exists(pk)"
BATCH_GET_KEYS, BATCH_GET_ROUNDS = 100, 8
MAX_BODY_BYTES = 380 * 1024
"""DynamoDB refuses items over 400 KB; the rest of the item's attributes fit in what is left."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def skills_pk(tenant_id: str) -> str:
    return f"SKILLS#{tenant_id}"


def function_sk(function_id: str) -> str:
    return f"{FUNCTION_PREFIX}{function_id}"


def guidance_sk(guidance_id: str) -> str:
    return f"{GUIDANCE_PREFIX}{guidance_id}"


def link_sk(guidance_id: str, function_id: str) -> str:
    return f"{LINK_PREFIX}{guidance_id}#{function_id}"


def mirror_sk(function_id: str, guidance_id: str) -> str:
    return f"{MIRROR_PREFIX}{function_id}#{guidance_id}"


def _skill_item(tenant_id: str, skill: Function | Guidance, body: str) -> Item:
    kind, skill_id, sk = (
        ("function", skill.function_id, function_sk(skill.function_id))
        if isinstance(skill, Function)
        else ("guidance", skill.guidance_id, guidance_sk(skill.guidance_id))
    )
    size = len(body.encode("utf-8"))
    if size > MAX_BODY_BYTES:
        raise InvalidInputError(
            f"{kind} {skill_id!r} is {size} bytes stored, over the limit of {MAX_BODY_BYTES}; "
            "store large content in the blob store",
            field="content" if kind == "guidance" else None,
        )
    return {
        "pk": {"S": skills_pk(tenant_id)},
        "sk": {"S": sk},
        "entity": {"S": f"skill_{kind}"},
        "skill_kind": {"S": kind},
        "skill_id": {"S": skill_id},
        "tenant_id": {"S": tenant_id},
        "status": {"S": skill.status.value},
        "version": {"N": str(skill.version)},
        "created_at": {"S": skill.created_at},
        "updated_at": {"S": skill.updated_at},
        "body_json": {"S": body},
    }


def skill_item(tenant_id: str, skill: Function | Guidance) -> Item:
    if isinstance(skill, Function):
        return function_item(tenant_id, skill)
    return guidance_item(tenant_id, skill)


def function_item(tenant_id: str, function: Function) -> Item:
    """`guidance_ids` is left out: it is read from the link mirrors, so it cannot go stale."""
    item = _skill_item(tenant_id, function, function.model_dump_json(exclude={"guidance_ids"}))
    item["impl_hash"] = {"S": function.impl_hash}
    # A list attribute, so the dependency graph is one Query projecting just the ids.
    item["depends_on"] = {"L": [{"S": dep} for dep in function.depends_on]}
    return item


def guidance_item(tenant_id: str, guidance: Guidance) -> Item:
    """The body keeps `function_ids` as written, for their order; the links say which still stand."""
    return _skill_item(tenant_id, guidance, guidance.model_dump_json())


def function_from(item: Item, guidance_ids: list[str]) -> Function:
    return Function.model_validate_json(item["body_json"]["S"]).model_copy(
        update={"guidance_ids": guidance_ids}
    )


def guidance_from(item: Item, linked: set[str]) -> Guidance:
    guidance = Guidance.model_validate_json(item["body_json"]["S"])
    kept = [fid for fid in guidance.function_ids if fid in linked]
    return guidance.model_copy(update={"function_ids": kept})


def link_items(tenant_id: str, guidance_id: str, function_id: str) -> tuple[Item, Item]:
    """The link (with needs_review cleared) and its mirror."""
    common: Item = {
        "pk": {"S": skills_pk(tenant_id)},
        "entity": {"S": "skill_link"},
        "tenant_id": {"S": tenant_id},
        "guidance_id": {"S": guidance_id},
        "function_id": {"S": function_id},
    }
    link: Item = {**common, "sk": {"S": link_sk(guidance_id, function_id)}, "needs_review": {"BOOL": False}}
    return link, {**common, "sk": {"S": mirror_sk(function_id, guidance_id)}}


def revision_item(tenant_id: str, revision: int) -> Item:
    return {
        "pk": {"S": skills_pk(tenant_id)},
        "sk": {"S": REVISION_SK},
        "entity": {"S": "skill_revision"},
        "tenant_id": {"S": tenant_id},
        "revision": {"N": str(revision)},
    }


def depends_on(item: Item) -> list[str]:
    return [dep["S"] for dep in item.get("depends_on", {}).get("L", [])]


def link_from(item: Item) -> Link:
    return Link(
        guidance_id=item["guidance_id"]["S"],
        function_id=item["function_id"]["S"],
        needs_review=item["needs_review"]["BOOL"],
    )


STAMP_FIELDS = ("skill_kind", "skill_id", "status", "version", "updated_at")


def stamp_from(item: Item) -> tuple[SkillKind, str, str, str]:
    """(kind, id, status, `{version}|{updated_at}`) from an item projected to STAMP_FIELDS."""
    kind: SkillKind = "function" if item["skill_kind"]["S"] == "function" else "guidance"
    stamp = f"{item['version']['N']}|{item['updated_at']['S']}"
    return kind, item["skill_id"]["S"], item["status"]["S"], stamp


def spec_of(stored: Function | Guidance) -> FunctionSpec | GuidanceSpec:
    """The spec a stored skill was written from, to tell a restatement from a new version."""
    spec_type = FunctionSpec if isinstance(stored, Function) else GuidanceSpec
    return spec_type.model_validate(stored.model_dump(include=set(spec_type.model_fields)))


# -- the tenant's slice of the table -------------------------------------------------------------


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
        found: dict[str, Item] = {}
        unique = list(dict.fromkeys(sks))
        for start in range(0, len(unique), BATCH_GET_KEYS):
            keys = [self.key(sk) for sk in unique[start : start + BATCH_GET_KEYS]]
            request: KeysAndAttributesTypeDef = {"Keys": keys, "ConsistentRead": True}
            if fields:
                names = {f"#f{i}": field for i, field in enumerate(dict.fromkeys(("sk", *fields)))}
                request["ProjectionExpression"] = ", ".join(names)
                request["ExpressionAttributeNames"] = names
            for attempt in range(BATCH_GET_ROUNDS):
                try:
                    response = self.client.batch_get_item(RequestItems={self.table: request})
                except (ClientError, BotoCoreError) as exc:
                    raise translate_client_error(exc, "read skill library") from exc
                found.update((item["sk"]["S"], item) for item in response["Responses"].get(self.table, []))
                left = response.get("UnprocessedKeys", {}).get(self.table)
                if left is None or not left["Keys"]:
                    break
                request["Keys"] = list(left["Keys"])
                time.sleep(pause(attempt))
            else:
                raise BackendUnavailableError("read skill library: DynamoDB is throttling")
        return found

    def commit(self, action: str, actions: list[TransactWriteItemTypeDef]) -> bool:
        """True once committed; False when a condition failed or a concurrent transaction won."""
        try:
            self.client.transact_write_items(TransactItems=actions)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise translate_client_error(exc, action) from exc
            reasons = [r.get("Code", "None") for r in exc.response.get("CancellationReasons", [])]
            if any(code in THROTTLE_CODES for code in reasons):
                raise BackendUnavailableError(f"{action}: DynamoDB is throttling") from exc
            if any(code in CONTENTION_CODES for code in reasons):
                return False
            raise translate_client_error(exc, action) from exc
        except BotoCoreError as exc:
            # botocore's own retries reuse the ClientRequestToken, so DynamoDB applies it at most once.
            raise translate_client_error(exc, action) from exc
        return True

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


def pause(attempt: int) -> float:
    # Full jitter spreads writers that lost the same race, so they do not collide again.
    return random.uniform(0, min(MAX_PAUSE, BASE_PAUSE * 2**attempt))  # noqa: S311 (not crypto)
