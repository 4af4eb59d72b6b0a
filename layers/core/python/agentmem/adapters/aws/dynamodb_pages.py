"""The DynamoDB loops several adapters need: a Query read to its last page, and a BatchWriteItem
retried until DynamoDB has taken every request it handed back (and a BatchGetItem until it has
answered every key it left unprocessed)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, cast

from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.dynamodb_items import Item
from agentmem.adapters.aws.dynamodb_transact import pause
from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import BackendUnavailableError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import KeysAndAttributesTypeDef, QueryInputTypeDef, WriteRequestTypeDef

BATCH_WRITE = 25  # BatchWriteItem's limit
BATCH_GET = 100  # BatchGetItem's limit
MAX_BATCH_ATTEMPTS = 8


def query_pages(client: DynamoDBClient, query: QueryInputTypeDef, action: str) -> Iterator[Item]:
    """Every item `query` matches, page after page; an error names `action`."""
    query = {**query}
    while True:
        try:
            page = client.query(**query)
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, action) from exc
        yield from page.get("Items", [])
        start = page.get("LastEvaluatedKey")
        if start is None:
            return
        query["ExclusiveStartKey"] = start


def batch_write(
    client: DynamoDBClient, table: str, writes: Sequence[WriteRequestTypeDef], action: str
) -> None:
    """`writes` in batches of 25, each retried with backoff while DynamoDB hands items back."""
    for begin in range(0, len(writes), BATCH_WRITE):
        requests = list(writes[begin : begin + BATCH_WRITE])
        for attempt in range(MAX_BATCH_ATTEMPTS):
            if attempt:
                time.sleep(pause(attempt))
            try:
                answer = client.batch_write_item(RequestItems={table: requests})
            except (ClientError, BotoCoreError) as exc:
                raise translate_client_error(exc, action) from exc
            handed_back = answer.get("UnprocessedItems", {}).get(table, [])
            requests = cast("list[WriteRequestTypeDef]", list(handed_back))
            if not requests:
                break
        else:
            raise BackendUnavailableError(f"{action}: DynamoDB kept handing items back")


def batch_get(
    client: DynamoDBClient,
    table: str,
    keys: Sequence[Item],
    action: str,
    *,
    projection: str | None = None,
    names: Mapping[str, str] | None = None,
    consistent: bool = True,
) -> Iterator[Item]:
    """The items of `keys` that exist, in batches of 100. Keys DynamoDB leaves unprocessed
    (throttling, or 16 MB of answer) are asked again with backoff; only rounds that bring
    nothing count against the limit. `names` are the projection's attribute names, if it uses any."""
    for begin in range(0, len(keys), BATCH_GET):
        left = list(keys[begin : begin + BATCH_GET])
        idle = 0
        while left:
            request: KeysAndAttributesTypeDef = {"Keys": left, "ConsistentRead": consistent}
            if projection is not None:
                request["ProjectionExpression"] = projection
            if names:
                request["ExpressionAttributeNames"] = dict(names)
            try:
                answer = client.batch_get_item(RequestItems={table: request})
            except (ClientError, BotoCoreError) as exc:
                raise translate_client_error(exc, action) from exc
            got = answer.get("Responses", {}).get(table, [])
            yield from got
            unprocessed = answer.get("UnprocessedKeys", {}).get(table)
            left = cast("list[Item]", list(unprocessed["Keys"])) if unprocessed is not None else []
            if left:
                idle = 0 if got else idle + 1
                if idle >= MAX_BATCH_ATTEMPTS:
                    raise BackendUnavailableError(f"{action}: DynamoDB kept leaving keys unprocessed")
                time.sleep(pause(idle))
