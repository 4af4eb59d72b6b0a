"""The two DynamoDB loops several adapters need: a Query read to its last page, and a
BatchWriteItem retried until DynamoDB has taken every request it handed back."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, cast

from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.dynamodb_items import Item
from agentmem.adapters.aws.dynamodb_transact import pause
from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import BackendUnavailableError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import QueryInputTypeDef, WriteRequestTypeDef

BATCH_WRITE = 25  # BatchWriteItem's limit
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
