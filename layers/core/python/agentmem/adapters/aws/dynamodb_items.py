"""DynamoDB item <-> Event mapping, shared by the log adapter and the stream projector (whose
NEW_IMAGE records use the same attribute-value format)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeAlias

from agentmem.model.beliefs import FactInput
from agentmem.model.events import BlobRef, Event

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import AttributeValueTypeDef

Item: TypeAlias = "dict[str, AttributeValueTypeDef]"

SEQ_WIDTH = 12
MAX_SEQ = 10**SEQ_WIDTH - 1


def _n(value: int) -> AttributeValueTypeDef:
    return {"N": str(value)}


def event_sk(seq: int) -> str:
    return f"E#{seq:0{SEQ_WIDTH}d}"


def _str(item: Item, name: str) -> str:
    return item[name]["S"]


def item_to_event(item: Item) -> Event:
    content = item.get("content_json")
    blob = item.get("blob_json")
    idem = item.get("idempotency_key")
    return Event(
        event_id=_str(item, "event_id"),
        session_id=_str(item, "session_id"),
        seq=int(item["seq"]["N"]),
        subject_id=_str(item, "subject_id"),
        round=int(item["round"]["N"]),
        agent=_str(item, "agent"),
        kind=_str(item, "kind"),
        media_type=_str(item, "media_type"),
        content=json.loads(content["S"]) if content is not None else None,
        blob=BlobRef.model_validate_json(blob["S"]) if blob is not None else None,
        idempotency_key=idem["S"] if idem is not None else None,
        facts=facts_from(item),
        created_at=_str(item, "created_at"),
    )


def event_to_item(tenant_id: str, pk: str, event: Event, request_hash: str) -> Item:
    item: Item = {
        "pk": {"S": pk},
        "sk": {"S": event_sk(event.seq)},
        "entity": {"S": "event"},
        "tenant_id": {"S": tenant_id},
        "session_id": {"S": event.session_id},
        "seq": _n(event.seq),
        "event_id": {"S": event.event_id},
        "subject_id": {"S": event.subject_id},
        "round": _n(event.round),
        "agent": {"S": event.agent},
        "kind": {"S": event.kind},
        "media_type": {"S": event.media_type},
        "request_hash": {"S": request_hash},
        "created_at": {"S": event.created_at},
    }
    # JSON text, not a DynamoDB map: maps turn floats into Decimals and drop key order.
    if event.content is not None:
        item["content_json"] = {"S": json.dumps(event.content, ensure_ascii=False)}
    if event.blob is not None:
        item["blob_json"] = {"S": event.blob.model_dump_json()}
    if event.idempotency_key is not None:
        item["idempotency_key"] = {"S": event.idempotency_key}
    if event.facts:
        item["facts_json"] = {"S": json.dumps([f.model_dump(exclude_none=True) for f in event.facts])}
    return item


def facts_from(item: Item | dict[str, Any]) -> list[FactInput] | None:
    raw = item.get("facts_json")
    return [FactInput.model_validate(f) for f in json.loads(raw["S"])] if raw is not None else None
