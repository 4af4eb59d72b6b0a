"""EventLog on DynamoDB: seq and idempotency are decided by one TransactWriteItems per append.

One partition per (tenant, session) holds three kinds of item, told apart by `entity`:
- `E#<seq:012d>`: an event (`entity="event"`); stream consumers ignore every other entity;
- `HEAD`: the session head, `last_seq`;
- `IDEM#<key>`: an idempotency record pointing at its event's sort key.

Each append also writes the subject's registry and blob-reference items and checks the subject
has no erasure tombstone, in the same transaction (dynamodb_subject_items). With a retention,
events and their items carry `expires_at`, the table's TTL attribute.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.dynamodb_items import (
    MAX_SEQ,
    Item,
    _n,
    _str,
    event_sk,
    event_to_item,
    item_to_event,
)
from agentmem.adapters.aws.dynamodb_subject_items import append_items, session_pk, subject_pk
from agentmem.adapters.aws.dynamodb_transact import CONTENTION_CODES, THROTTLE_CODES, pause
from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import AgentMemError, BackendUnavailableError, ContentionError, SubjectErasedError
from agentmem.model.events import AppendOutcome, Event, EventDraft

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import (
        PutTypeDef,
        QueryInputTypeDef,
        TransactWriteItemTypeDef,
    )

logger = logging.getLogger(__name__)

HEAD_SK = "HEAD"
IDEM_POSITION = 2  # in the TransactItems list that `_transaction` builds: event, head, idem


class DynamoDbEventLog:
    """The table has key schema `pk` (S) + `sk` (S); the tenant is part of every partition key."""

    def __init__(
        self,
        table_name: str,
        tenant_id: str,
        *,
        client: DynamoDBClient | None = None,
        retry_budget_seconds: float = 10.0,
        retention_seconds: int | None = None,
    ) -> None:
        self._retention = retention_seconds
        self._table = table_name
        self._tenant = tenant_id
        self._client: DynamoDBClient = client or boto3.client(
            "dynamodb", config=Config(retries={"mode": "standard"})
        )
        # Bounded by time, not by a count: a loaded machine loses more races per second, and a
        # count it exhausts sooner would turn ordinary contention into errors.
        self._retry_budget = retry_budget_seconds

    def _pk(self, session_id: str) -> str:
        return session_pk(self._tenant, session_id)

    def append(self, draft: EventDraft) -> AppendOutcome:
        pk = self._pk(draft.session_id)
        if draft.idempotency_key is not None:
            stored = self._stored_for_key(pk, draft.idempotency_key)
            if stored is not None:
                return stored
        deadline = time.monotonic() + self._retry_budget
        attempts = 0
        while True:
            attempts += 1
            outcome = self._attempt(pk, draft)
            if outcome is not None:
                return outcome
            wait = pause(attempts)
            if time.monotonic() + wait > deadline:
                break
            time.sleep(wait)
        logger.warning(
            "append gave up under contention", extra={"session_id": draft.session_id, "attempts": attempts}
        )
        raise ContentionError(f"append event: session {draft.session_id} is too contended, retry later")

    def _attempt(self, pk: str, draft: EventDraft) -> AppendOutcome | None:
        """One read-head-then-transact round; None when another writer moved the head first."""
        last = self._head(pk)
        event = Event.from_draft(draft, seq=last + 1)
        items = self._transaction(pk, last, event, draft)
        tombstone_at = len(items) - 1  # the subject's tombstone check comes last
        try:
            self._client.transact_write_items(TransactItems=items)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise translate_client_error(exc, "append event") from exc
            reasons = [r.get("Code", "None") for r in exc.response.get("CancellationReasons", [])]
            if _code_at(reasons, tombstone_at) == "ConditionalCheckFailed":
                raise SubjectErasedError(
                    f"subject {draft.subject_id} was erased; write about a new subject id instead"
                ) from exc
            if (
                draft.idempotency_key is not None
                and _code_at(reasons, IDEM_POSITION) == "ConditionalCheckFailed"
            ):
                # A concurrent request with the same key won; answer with what it stored.
                stored = self._stored_for_key(pk, draft.idempotency_key)
                if stored is not None:
                    return stored
            if any(code in THROTTLE_CODES for code in reasons):
                raise BackendUnavailableError("append event: DynamoDB is throttling") from exc
            if any(code in CONTENTION_CODES for code in reasons):
                return None
            raise translate_client_error(exc, "append event") from exc
        except BotoCoreError as exc:
            # Raised once botocore's own retries are spent. Those retries reuse the transaction's
            # ClientRequestToken, so DynamoDB applies it at most once.
            raise translate_client_error(exc, "append event") from exc
        return AppendOutcome(event=event, created=True, request_hash=draft.request_hash)

    def _transaction(
        self, pk: str, last: int, event: Event, draft: EventDraft
    ) -> list[TransactWriteItemTypeDef]:
        # The head's condition is what serialises writers: exactly one transaction can move it
        # from `last`, and the event rides in the same transaction, so no seq is ever skipped.
        # The subject's items ride along too, the tombstone check last: an erasure is either
        # committed first (and this append refused) or finds this event when it enumerates.
        expires = self._expires_at(event)
        expiry: Item = {"expires_at": _n(expires)} if expires is not None else {}
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
                    "Item": {**event_to_item(self._tenant, pk, event, draft.request_hash), **expiry},
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
                            **expiry,
                        },
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                }
            )
        return items + append_items(self._table, self._tenant, event, expires)

    def _expires_at(self, event: Event) -> int | None:
        """Epoch seconds at which DynamoDB's TTL may delete the event: `retention` after it was written."""
        if self._retention is None:
            return None
        return int(datetime.fromisoformat(event.created_at).timestamp()) + self._retention

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
        if self._retention is not None:
            # TTL deletes within days of expiry, not at it: an expired event reads as gone already.
            names["#expires_at"], values[":now"] = "expires_at", _n(int(time.time()))
        query: QueryInputTypeDef = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :lo AND :hi",
            "ExpressionAttributeValues": values,
            "ConsistentRead": True,
        }
        if names:
            query["FilterExpression"] = " AND ".join(
                "(attribute_not_exists(#expires_at) OR #expires_at > :now)"
                if name == "#expires_at"
                else f"{name} = :{name[1:]}"
                for name in names
            )
            query["ExpressionAttributeNames"] = names
        return self._events(query, limit, filtered=bool(names), action="list events")

    def recent_events(self, session_id: str, *, before: int | None = None, limit: int = 100) -> list[Event]:
        upper = MAX_SEQ if before is None else min(before - 1, MAX_SEQ)
        if limit <= 0 or upper < 1:
            return []
        values: Item = {
            ":pk": {"S": self._pk(session_id)},
            ":lo": {"S": event_sk(1)},
            ":hi": {"S": event_sk(upper)},
        }
        query: QueryInputTypeDef = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :lo AND :hi",
            "ExpressionAttributeValues": values,
            "ConsistentRead": True,
            "ScanIndexForward": False,  # newest first: the sort key is the zero-padded seq
        }
        if self._retention is not None:
            # As in list_events: an expired event reads as gone before TTL gets to it.
            query["FilterExpression"] = "attribute_not_exists(#expires_at) OR #expires_at > :now"
            query["ExpressionAttributeNames"] = {"#expires_at": "expires_at"}
            values[":now"] = _n(int(time.time()))
        return self._events(query, limit, filtered=self._retention is not None, action="list recent events")

    def _events(self, query: QueryInputTypeDef, limit: int, *, filtered: bool, action: str) -> list[Event]:
        """Up to `limit` events of `query`, page after page. Limit caps the items read before a
        filter applies, so a filtered read asks for bigger pages and keeps going until it has
        enough matches or the session ends."""
        events: list[Event] = []
        while len(events) < limit:
            wanted = limit - len(events)
            query["Limit"] = max(wanted, 100) if filtered else wanted
            try:
                page = self._client.query(**query)
            except (ClientError, BotoCoreError) as exc:
                raise translate_client_error(exc, action) from exc
            events.extend(item_to_event(item) for item in page.get("Items", []))
            start = page.get("LastEvaluatedKey")
            if start is None:
                break
            query["ExclusiveStartKey"] = start
        return events[:limit]

    def last_seq(self, session_id: str) -> int:
        return self._head(self._pk(session_id))

    def has_subject(self, subject_id: str) -> bool:
        """Known from its first event: every append puts the subject's registry item (the one
        erasure enumerates sessions by) in its transaction, so one item read answers."""
        try:
            found = self._client.query(
                TableName=self._table,
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues={":pk": {"S": subject_pk(self._tenant, subject_id)}},
                Limit=1,
                ConsistentRead=True,
            )
        except ClientError as exc:
            raise translate_client_error(exc, "find subject") from exc
        return bool(found.get("Items"))


def _code_at(reasons: list[str], index: int) -> str:
    return reasons[index] if index < len(reasons) else "None"
