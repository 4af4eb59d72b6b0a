"""What every optimistic DynamoDB writer here shares: jittered back-off between attempts, and one
TransactWriteItems whose cancellation is read by its reasons (the event log has its own, because
an idempotency hit there is an answer, not a conflict)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import BackendUnavailableError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

BASE_PAUSE, MAX_PAUSE = 0.01, 0.5
CONTENTION_CODES = frozenset({"ConditionalCheckFailed", "TransactionConflict"})
THROTTLE_CODES = frozenset({"ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded"})


def pause(attempt: int) -> float:
    """Seconds to wait before the next attempt. Full jitter spreads writers that lost the same
    race, so they do not collide again."""
    return random.uniform(0, min(MAX_PAUSE, BASE_PAUSE * 2**attempt))  # noqa: S311 (not crypto)


def transact(
    client: DynamoDBClient, action: str, actions: list[TransactWriteItemTypeDef]
) -> list[str] | None:
    """None once committed; the cancellation reasons when a condition or a concurrent transaction
    stopped it (the caller re-reads and retries). Throttling and every other fault raise."""
    try:
        client.transact_write_items(TransactItems=actions)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
            raise translate_client_error(exc, action) from exc
        reasons = [r.get("Code", "None") for r in exc.response.get("CancellationReasons", [])]
        if any(code in THROTTLE_CODES for code in reasons):
            raise BackendUnavailableError(f"{action}: DynamoDB is throttling") from exc
        if any(code in CONTENTION_CODES for code in reasons):
            return reasons
        raise translate_client_error(exc, action) from exc
    except BotoCoreError as exc:
        # botocore's own retries reuse the ClientRequestToken, so DynamoDB applies it at most once.
        raise translate_client_error(exc, action) from exc
    return None
