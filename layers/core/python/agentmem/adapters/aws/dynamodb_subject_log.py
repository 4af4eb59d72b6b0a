"""The DynamoDB log, read and pruned by subject: sessions come from the subject registry, blob
users from the reference items (dynamodb_subject_items), both read strongly consistent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.dynamodb_items import MAX_SEQ, Item, event_sk, item_to_event
from agentmem.adapters.aws.dynamodb_log import HEAD_SK
from agentmem.adapters.aws.dynamodb_pages import batch_write, query_pages
from agentmem.adapters.aws.dynamodb_subject_items import blob_pk, blob_ref_sk, session_pk, subject_pk
from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import InvalidInputError
from agentmem.model.events import Event

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import QueryInputTypeDef, WriteRequestTypeDef


class DynamoDbSubjectLog:
    def __init__(self, table_name: str, tenant_id: str, *, client: DynamoDBClient | None = None) -> None:
        self._table = table_name
        self._tenant = tenant_id
        self._client: DynamoDBClient = client or boto3.client(
            "dynamodb", config=Config(retries={"mode": "standard"})
        )

    def _query(self, query: QueryInputTypeDef, action: str) -> Iterator[Item]:
        return query_pages(self._client, {**query, "TableName": self._table, "ConsistentRead": True}, action)

    def sessions(self, subject_id: str) -> list[str]:
        items = self._query(
            {
                "TableName": self._table,
                "KeyConditionExpression": "pk = :pk AND begins_with(sk, :s)",
                "ExpressionAttributeValues": {
                    ":pk": {"S": subject_pk(self._tenant, subject_id)},
                    ":s": {"S": "S#"},
                },
            },
            "list subject sessions",
        )
        return sorted(item["session_id"]["S"] for item in items)

    def _session_events(self, session_id: str, subject_id: str, after_seq: int = 0) -> Iterator[Item]:
        """The subject's event items in one session, in seq order (a session may mix subjects)."""
        return self._query(
            {
                "TableName": self._table,
                "KeyConditionExpression": "pk = :pk AND sk BETWEEN :lo AND :hi",
                "FilterExpression": "subject_id = :subject",
                "ExpressionAttributeValues": {
                    ":pk": {"S": session_pk(self._tenant, session_id)},
                    ":lo": {"S": event_sk(after_seq + 1)},
                    ":hi": {"S": event_sk(MAX_SEQ)},
                    ":subject": {"S": subject_id},
                },
            },
            "list subject events",
        )

    def blob_hashes(self, subject_id: str) -> set[str]:
        found: set[str] = set()
        for session in self.sessions(subject_id):
            for item in self._session_events(session, subject_id):
                blob = item_to_event(item).blob
                if blob is not None:
                    found.add(blob.sha256)
        return found

    def blob_used_elsewhere(self, sha256: str, subject_id: str) -> bool:
        users = self._query(
            {
                "TableName": self._table,
                "KeyConditionExpression": "pk = :pk",
                "FilterExpression": "subject_id <> :subject",
                "ExpressionAttributeValues": {
                    ":pk": {"S": blob_pk(self._tenant, sha256)},
                    ":subject": {"S": subject_id},
                },
            },
            "list blob references",
        )
        return next(users, None) is not None

    def forget(self, subject_id: str) -> int:
        """Per event: the event, its idempotency record and its blob reference; then the
        registry; then the head of a session left without any event (its key names the session)."""
        removed = 0
        for session in self.sessions(subject_id):
            pk = session_pk(self._tenant, session)
            doomed: list[Item] = []
            for item in self._session_events(session, subject_id):
                event = item_to_event(item)
                doomed.append({"pk": {"S": pk}, "sk": item["sk"]})
                if event.idempotency_key is not None:
                    doomed.append({"pk": {"S": pk}, "sk": {"S": f"IDEM#{event.idempotency_key}"}})
                if event.blob is not None:
                    ref_sk = blob_ref_sk(session, event.seq)
                    doomed.append(
                        {"pk": {"S": blob_pk(self._tenant, event.blob.sha256)}, "sk": {"S": ref_sk}}
                    )
                removed += 1
            doomed.append({"pk": {"S": subject_pk(self._tenant, subject_id)}, "sk": {"S": f"S#{session}"}})
            self._delete(doomed)
            self._drop_empty_head(pk)
        return removed

    def _drop_empty_head(self, pk: str) -> None:
        """Delete the head of a session that has no event left, unless an append moved it since:
        the condition on the seq read makes a concurrent append win, and the head stay."""
        left = self._query(
            {
                "TableName": self._table,
                "KeyConditionExpression": "pk = :pk AND begins_with(sk, :e)",
                "ExpressionAttributeValues": {":pk": {"S": pk}, ":e": {"S": "E#"}},
                "ProjectionExpression": "sk",
            },
            "check session is empty",
        )
        if next(left, None) is not None:
            return
        head = {"pk": {"S": pk}, "sk": {"S": HEAD_SK}}
        try:
            found = self._client.get_item(TableName=self._table, Key=head, ConsistentRead=True).get("Item")
            if found is None:
                return
            self._client.delete_item(
                TableName=self._table,
                Key=head,
                ConditionExpression="last_seq = :seen",
                ExpressionAttributeValues={":seen": found["last_seq"]},
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise translate_client_error(exc, "drop session head") from exc
        except BotoCoreError as exc:
            raise translate_client_error(exc, "drop session head") from exc

    def _delete(self, keys: list[Item]) -> None:
        deletes: list[WriteRequestTypeDef] = [{"DeleteRequest": {"Key": key}} for key in keys]
        batch_write(self._client, self._table, deletes, "delete subject items")

    def events(self, subject_id: str, after: str | None, limit: int) -> list[tuple[str, Event]]:
        """Cursors are `<session>|<seq>`: sessions in id order, events in seq order within each."""
        after_session, after_seq = "", 0
        if after:
            session, _, seq = after.rpartition("|")
            if not session or not seq.isdigit():
                raise InvalidInputError("cursor is not one this export handed out", field="cursor")
            after_session, after_seq = session, int(seq)
        page: list[tuple[str, Event]] = []
        for session in (s for s in self.sessions(subject_id) if s >= after_session):
            start = after_seq if session == after_session else 0
            for item in self._session_events(session, subject_id, start):
                event = item_to_event(item)
                page.append((f"{session}|{event.seq}", event))
                if len(page) == limit:
                    return page
        return page
