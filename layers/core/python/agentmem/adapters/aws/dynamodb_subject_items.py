"""Items of the log table that keep the log findable by subject, and the erasure ledger's items.

All live in the tenant's own `T#{tenant}#...` partitions, beside the sessions:
- `T#{t}#SUBJ#{subject}` / `S#{session}`: the subject wrote in the session (written by every
  append, in its transaction), so an erasure or export finds every session by one Query;
- `T#{t}#BLOB#{sha256}` / `R#{session}#{seq}`: an event points at the blob (same transaction),
  so a blob is deleted only once no event of anyone else does;
- `T#{t}#ERASED#{subject hash}` / `TOMBSTONE`: the subject was erased. Every append's
  transaction checks it is absent, so an append after an erasure cannot commit;
- `T#{t}#ERASURE#{erasure id}` / `RECORD`: the erasure's progress, without personal content.

With retention, registry and reference items expire with their event (`expires_at`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentmem.adapters.aws.dynamodb_items import Item, event_sk
from agentmem.model.events import Event
from agentmem.subjects.identity import subject_hash

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

TOMBSTONE_SK, RECORD_SK = "TOMBSTONE", "RECORD"


def session_pk(tenant_id: str, session_id: str) -> str:
    """The log's own partition: one per session (DynamoDbEventLog)."""
    return f"T#{tenant_id}#S#{session_id}"


def subject_pk(tenant_id: str, subject_id: str) -> str:
    return f"T#{tenant_id}#SUBJ#{subject_id}"


def blob_pk(tenant_id: str, sha256: str) -> str:
    return f"T#{tenant_id}#BLOB#{sha256}"


def blob_ref_sk(session_id: str, seq: int) -> str:
    return f"R#{session_id}#{event_sk(seq)}"


def tombstone_key(tenant_id: str, subject_id: str) -> Item:
    return {
        "pk": {"S": f"T#{tenant_id}#ERASED#{subject_hash(tenant_id, subject_id)}"},
        "sk": {"S": TOMBSTONE_SK},
    }


def erasure_key(tenant_id: str, erasure_id: str) -> Item:
    return {"pk": {"S": f"T#{tenant_id}#ERASURE#{erasure_id}"}, "sk": {"S": RECORD_SK}}


def append_items(
    table: str, tenant_id: str, event: Event, expires_at: int | None
) -> list[TransactWriteItemTypeDef]:
    """What every append's transaction adds to the event, head and idempotency items: the
    subject registry, the blob reference, and last the tombstone check (see TOMBSTONE_POSITION)."""
    expiry: Item = {"expires_at": {"N": str(expires_at)}} if expires_at is not None else {}
    registry: Item = {
        "pk": {"S": subject_pk(tenant_id, event.subject_id)},
        "sk": {"S": f"S#{event.session_id}"},
        "entity": {"S": "subject_session"},
        "session_id": {"S": event.session_id},
        **expiry,
    }
    items: list[TransactWriteItemTypeDef] = [{"Put": {"TableName": table, "Item": registry}}]
    if event.blob is not None:
        reference: Item = {
            "pk": {"S": blob_pk(tenant_id, event.blob.sha256)},
            "sk": {"S": blob_ref_sk(event.session_id, event.seq)},
            "entity": {"S": "blob_ref"},
            "subject_id": {"S": event.subject_id},
            **expiry,
        }
        items.append({"Put": {"TableName": table, "Item": reference}})
    items.append(
        {
            "ConditionCheck": {
                "TableName": table,
                "Key": tombstone_key(tenant_id, event.subject_id),
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        }
    )
    return items
