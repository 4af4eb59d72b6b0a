"""How DynamoDbSkillLibrary stores skills: the item layout (which the stream projector reads) and
the mapping between items and models. The reads, actions and commit are in dynamodb_skill_table.

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

from datetime import UTC, datetime
from typing import TYPE_CHECKING, TypeAlias

from agentmem.errors import InvalidInputError
from agentmem.procedural.model import Function, FunctionSpec, Guidance, GuidanceSpec, Link, SkillKind

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import (
        AttributeValueTypeDef,
    )

Item: TypeAlias = "dict[str, AttributeValueTypeDef]"

FUNCTION_PREFIX, GUIDANCE_PREFIX = "FN#", "GD#"
LINK_PREFIX, MIRROR_PREFIX = "LG#", "LF#"
REVISION_SK = "REV"
NEW, EXISTS = "attribute_not_exists(pk)", "attribute_exists(pk)"
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
