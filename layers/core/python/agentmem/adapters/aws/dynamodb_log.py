"""EventLog on DynamoDB: seq and idempotency are decided by one TransactWriteItems per append.

One partition per (tenant, session) holds three kinds of item, told apart by `entity`:
- `E#<seq:012d>`: an event (`entity="event"`); stream consumers ignore every other entity;
- `HEAD`: the session head, `last_seq`, and `last_subject`, the subject of the session's last event;
- `IDEM#<key>`: an idempotency record pointing at its event's sort key.

One partition per (tenant, subject), `T#<tenant>#SUBJECT#<subject>`, holds `SUBJECT`
(`entity="subject"`): the subject has events. The append that gives a session an event of another
subject than its last one puts it in the same transaction, so it exists from the subject's first
event on and costs one more write per session, not per event.
"""

from __future__ import annotations

import logging
import time
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
from agentmem.adapters.aws.dynamodb_transact import CONTENTION_CODES, THROTTLE_CODES, pause
from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import AgentMemError, BackendUnavailableError, ContentionError
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
SUBJECT_SK = "SUBJECT"
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
    ) -> None:
        self._table = table_name
        self._tenant = tenant_id
        self._client: DynamoDBClient = client or boto3.client(
            "dynamodb", config=Config(retries={"mode": "standard"})
        )
        # Bounded by time, not by a count: a loaded machine loses more races per second, and a
        # count it exhausts sooner would turn ordinary contention into errors.
        self._retry_budget = retry_budget_seconds

    def _pk(self, session_id: str) -> str:
        return f"T#{self._tenant}#S#{session_id}"

    def _subject_pk(self, subject_id: str) -> str:
        return f"T#{self._tenant}#SUBJECT#{subject_id}"

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
        last, last_subject = self._head(pk)
        event = Event.from_draft(draft, seq=last + 1)
        items = self._transaction(pk, last, event, draft)
        if last_subject != event.subject_id:
            items.append(self._subject_marker(event.subject_id))  # after IDEM_POSITION: it stays put
        try:
            self._client.transact_write_items(TransactItems=items)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise translate_client_error(exc, "append event") from exc
            reasons = [r.get("Code", "None") for r in exc.response.get("CancellationReasons", [])]
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
        head: PutTypeDef = {
            "TableName": self._table,
            "Item": {
                "pk": {"S": pk},
                "sk": {"S": HEAD_SK},
                "entity": {"S": "head"},
                "last_seq": _n(event.seq),
                "last_subject": {"S": event.subject_id},
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
                    "Item": event_to_item(self._tenant, pk, event, draft.request_hash),
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

    def _subject_marker(self, subject_id: str) -> TransactWriteItemTypeDef:
        # No condition: the marker may already exist (another session wrote it), and rewriting it
        # is harmless, where a failed condition would cancel the append.
        return {
            "Put": {
                "TableName": self._table,
                "Item": {
                    "pk": {"S": self._subject_pk(subject_id)},
                    "sk": {"S": SUBJECT_SK},
                    "entity": {"S": "subject"},
                    "tenant_id": {"S": self._tenant},
                    "subject_id": {"S": subject_id},
                },
            }
        }

    def _get(self, pk: str, sk: str) -> Item | None:
        try:
            response = self._client.get_item(
                TableName=self._table, Key={"pk": {"S": pk}, "sk": {"S": sk}}, ConsistentRead=True
            )
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, "read event log") from exc
        return response.get("Item")

    def _head(self, pk: str) -> tuple[int, str | None]:
        """(last seq, subject of the last event); a head written before heads named their
        subject gives None, so the next append writes the marker again."""
        head = self._get(pk, HEAD_SK)
        if head is None:
            return 0, None
        subject = head.get("last_subject")
        return int(head["last_seq"]["N"]), subject["S"] if subject is not None else None

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

    def recent_events(self, session_id: str, *, before: int | None = None, limit: int = 100) -> list[Event]:
        upper = MAX_SEQ if before is None else min(before - 1, MAX_SEQ)
        if limit <= 0 or upper < 1:
            return []
        query: QueryInputTypeDef = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :lo AND :hi",
            "ExpressionAttributeValues": {
                ":pk": {"S": self._pk(session_id)},
                ":lo": {"S": event_sk(1)},
                ":hi": {"S": event_sk(upper)},
            },
            "ConsistentRead": True,
            "ScanIndexForward": False,  # newest first: the sort key is the zero-padded seq
        }
        events: list[Event] = []
        while len(events) < limit:
            query["Limit"] = limit - len(events)
            try:
                page = self._client.query(**query)
            except (ClientError, BotoCoreError) as exc:
                raise translate_client_error(exc, "list recent events") from exc
            events.extend(item_to_event(item) for item in page.get("Items", []))
            start = page.get("LastEvaluatedKey")
            if start is None:
                break
            query["ExclusiveStartKey"] = start
        return events[:limit]

    def last_seq(self, session_id: str) -> int:
        return self._head(self._pk(session_id))[0]

    def has_subject(self, subject_id: str) -> bool:
        return self._get(self._subject_pk(subject_id), SUBJECT_SK) is not None


def _code_at(reasons: list[str], index: int) -> str:
    return reasons[index] if index < len(reasons) else "None"
