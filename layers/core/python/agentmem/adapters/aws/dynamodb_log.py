"""EventLog on DynamoDB: seq and idempotency are decided by one TransactWriteItems per append.

One partition per (tenant, session) holds three kinds of item, told apart by `entity`:
- `E#<seq:012d>`: an event (`entity="event"`); stream consumers ignore every other entity;
- `HEAD`: the session head, `last_seq`;
- `IDEM#<key>`: an idempotency record pointing at its event's sort key.
"""

from __future__ import annotations

import json
import logging
import random
import time
from typing import TYPE_CHECKING, TypeAlias

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import AgentMemError, BackendUnavailableError, ContentionError
from agentmem.model.events import AppendOutcome, BlobRef, Event, EventDraft

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import (
        AttributeValueTypeDef,
        PutTypeDef,
        QueryInputTypeDef,
        TransactWriteItemTypeDef,
    )

Item: TypeAlias = "dict[str, AttributeValueTypeDef]"

logger = logging.getLogger(__name__)

HEAD_SK = "HEAD"
SEQ_WIDTH = 12
MAX_SEQ = 10**SEQ_WIDTH - 1
CONTENTION_CODES = frozenset({"ConditionalCheckFailed", "TransactionConflict"})
THROTTLE_CODES = frozenset({"ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded"})
# Positions in the TransactItems list built by `_transaction`.
EVENT, HEAD, IDEM = 0, 1, 2


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
        created_at=_str(item, "created_at"),
    )


class DynamoDbEventLog:
    """The table has key schema `pk` (S) + `sk` (S); the tenant is part of every partition key."""

    def __init__(
        self,
        table_name: str,
        tenant_id: str,
        *,
        client: DynamoDBClient | None = None,
        max_attempts: int = 50,
        retry_budget_seconds: float = 10.0,
    ) -> None:
        self._table = table_name
        self._tenant = tenant_id
        self._client: DynamoDBClient = client or boto3.client(
            "dynamodb", config=Config(retries={"mode": "standard"})
        )
        self._max_attempts = max_attempts
        self._retry_budget = retry_budget_seconds

    def _pk(self, session_id: str) -> str:
        return f"T#{self._tenant}#S#{session_id}"

    def append(self, draft: EventDraft) -> AppendOutcome:
        pk = self._pk(draft.session_id)
        if draft.idempotency_key is not None:
            stored = self._stored_for_key(pk, draft.idempotency_key)
            if stored is not None:
                return stored
        deadline = time.monotonic() + self._retry_budget
        for attempt in range(self._max_attempts):
            last = self._head(pk)
            event = Event.from_draft(draft, seq=last + 1)
            try:
                self._client.transact_write_items(TransactItems=self._transaction(pk, last, event, draft))
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                    raise translate_client_error(exc, "append event") from exc
                reasons = [r.get("Code", "None") for r in exc.response.get("CancellationReasons", [])]
                if draft.idempotency_key is not None and _code_at(reasons, IDEM) == "ConditionalCheckFailed":
                    # A concurrent request with the same key won; answer with what it stored.
                    stored = self._stored_for_key(pk, draft.idempotency_key)
                    if stored is not None:
                        return stored
                if any(code in THROTTLE_CODES for code in reasons):
                    raise BackendUnavailableError("append event: DynamoDB is throttling") from exc
                if not any(code in CONTENTION_CODES for code in reasons):
                    raise translate_client_error(exc, "append event") from exc
                # Full jitter spreads writers that lost the same race, so they do not collide again.
                pause = random.uniform(0, min(0.5, 0.01 * 2**attempt))  # noqa: S311 (not crypto)
                if time.monotonic() + pause > deadline:
                    break
                time.sleep(pause)
                continue
            except BotoCoreError as exc:
                raise translate_client_error(exc, "append event") from exc
            return AppendOutcome(event=event, created=True, request_hash=draft.request_hash)
        logger.warning(
            "append gave up under contention",
            extra={"session_id": draft.session_id, "attempts": attempt + 1},
        )
        raise ContentionError(f"append event: session {draft.session_id} is too contended, retry later")

    def _transaction(
        self, pk: str, last: int, event: Event, draft: EventDraft
    ) -> list[TransactWriteItemTypeDef]:
        # The head's condition is what serialises writers: exactly one transaction can move it
        # from `last`, and the event rides in the same transaction, so no seq is ever skipped.
        head: PutTypeDef = {
            "TableName": self._table,
            "Item": {
                "pk": {"S": pk},
                "sk": {"S": HEAD_SK},
                "entity": {"S": "head"},
                "last_seq": _n(event.seq),
            },
            "ConditionExpression": "attribute_not_exists(pk)",
        }
        if last > 0:
            head["ConditionExpression"] = "last_seq = :last"
            head["ExpressionAttributeValues"] = {":last": _n(last)}
        items: list[TransactWriteItemTypeDef] = [
            {
                "Put": {
                    "TableName": self._table,
                    "Item": self._event_item(pk, event, draft),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            {"Put": head},
        ]
        if draft.idempotency_key is not None:
            items.append(
                {
                    "Put": {
                        "TableName": self._table,
                        "Item": {
                            "pk": {"S": pk},
                            "sk": {"S": f"IDEM#{draft.idempotency_key}"},
                            "entity": {"S": "idem"},
                            "event_sk": {"S": event_sk(event.seq)},
                            "request_hash": {"S": draft.request_hash},
                        },
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                }
            )
        return items

    def _event_item(self, pk: str, event: Event, draft: EventDraft) -> Item:
        item: Item = {
            "pk": {"S": pk},
            "sk": {"S": event_sk(event.seq)},
            "entity": {"S": "event"},
            "tenant_id": {"S": self._tenant},
            "session_id": {"S": event.session_id},
            "seq": _n(event.seq),
            "event_id": {"S": event.event_id},
            "subject_id": {"S": event.subject_id},
            "round": _n(event.round),
            "agent": {"S": event.agent},
            "kind": {"S": event.kind},
            "media_type": {"S": event.media_type},
            "request_hash": {"S": draft.request_hash},
            "created_at": {"S": event.created_at},
        }
        # JSON text, not a DynamoDB map: maps turn floats into Decimals and drop key order.
        if event.content is not None:
            item["content_json"] = {"S": json.dumps(event.content, ensure_ascii=False)}
        if event.blob is not None:
            item["blob_json"] = {"S": event.blob.model_dump_json()}
        if event.idempotency_key is not None:
            item["idempotency_key"] = {"S": event.idempotency_key}
        return item

    def _get(self, pk: str, sk: str) -> Item | None:
        try:
            response = self._client.get_item(
                TableName=self._table, Key={"pk": {"S": pk}, "sk": {"S": sk}}, ConsistentRead=True
            )
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, "read event log") from exc
        return response.get("Item")

    def _head(self, pk: str) -> int:
        head = self._get(pk, HEAD_SK)
        return int(head["last_seq"]["N"]) if head is not None else 0

    def _stored_for_key(self, pk: str, key: str) -> AppendOutcome | None:
        record = self._get(pk, f"IDEM#{key}")
        if record is None:
            return None
        # The record and its event were written by one transaction, so the event must exist.
        stored = self._get(pk, _str(record, "event_sk"))
        if stored is None:
            raise AgentMemError(f"idempotency key {key} points at a missing event")
        return AppendOutcome(
            event=item_to_event(stored), created=False, request_hash=_str(record, "request_hash")
        )

    def list_events(
        self,
        session_id: str,
        *,
        after: int = 0,
        limit: int = 100,
        agent: str | None = None,
        round: int | None = None,
    ) -> list[Event]:
        if limit <= 0 or after >= MAX_SEQ:
            return []
        values: Item = {
            ":pk": {"S": self._pk(session_id)},
            ":lo": {"S": event_sk(max(after, 0) + 1)},
            ":hi": {"S": event_sk(MAX_SEQ)},
        }
        names: dict[str, str] = {}
        if agent is not None:
            names["#agent"], values[":agent"] = "agent", {"S": agent}
        if round is not None:
            names["#round"], values[":round"] = "round", _n(round)
        query: QueryInputTypeDef = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :lo AND :hi",
            "ExpressionAttributeValues": values,
            "ConsistentRead": True,
        }
        if names:
            query["FilterExpression"] = " AND ".join(f"{name} = :{name[1:]}" for name in names)
            query["ExpressionAttributeNames"] = names
        events: list[Event] = []
        while len(events) < limit:
            # Limit caps the items read before the filter applies, so a filtered read asks for
            # bigger pages and keeps going until it has enough matches or the session ends.
            wanted = limit - len(events)
            query["Limit"] = max(wanted, 100) if names else wanted
            try:
                page = self._client.query(**query)
            except (ClientError, BotoCoreError) as exc:
                raise translate_client_error(exc, "list events") from exc
            events.extend(item_to_event(item) for item in page.get("Items", []))
            start = page.get("LastEvaluatedKey")
            if start is None:
                break
            query["ExclusiveStartKey"] = start
        return events[:limit]

    def last_seq(self, session_id: str) -> int:
        return self._head(self._pk(session_id))


def _n(value: int) -> AttributeValueTypeDef:
    return {"N": str(value)}


def _code_at(reasons: list[str], index: int) -> str:
    return reasons[index] if index < len(reasons) else "None"
