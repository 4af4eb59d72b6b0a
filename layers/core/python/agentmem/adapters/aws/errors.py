"""Translate botocore faults into domain errors, in one place for every AWS adapter."""

from __future__ import annotations

import logging

from botocore.exceptions import BotoCoreError, ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError

from agentmem.errors import AgentMemError, BackendUnavailableError, NotFoundError

logger = logging.getLogger(__name__)

RETRYABLE_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "Throttling",
        "ThrottledException",
        "RequestThrottled",
        "RequestThrottledException",
        "TooManyRequestsException",
        "RequestLimitExceeded",
        "SlowDown",
        "ServiceUnavailable",
        "InternalServerError",
        "InternalError",
        "RequestTimeout",
        "RequestTimeoutException",
        "TransactionInProgressException",
        # Bedrock, when a model is busy or cold; ModelTimeoutException is a 408, neither 429 nor 5xx.
        "ModelTimeoutException",
        "ModelNotReadyException",
        "ServiceUnavailableException",
        "500",
        "503",
    }
)
NOT_FOUND_CODES = frozenset({"NoSuchKey", "NotFound", "404"})


def translate_client_error(exc: ClientError | BotoCoreError, action: str) -> AgentMemError:
    """The domain error for a botocore fault raised while doing `action`; raise it `from exc`.

    - Throttling, 5xx answers and transport failures become BackendUnavailableError: the same
      request can succeed later, so the API answers 503 with Retry-After.
    - A missing object becomes NotFoundError. NoSuchBucket and a missing table do not: they mean
      the deployment is broken, not that the caller asked for something absent.
    - Everything else (AccessDenied, ValidationException, a missing table, bad credentials)
      becomes the plain AgentMemError, answered with 500. Those fail the same way on every retry,
      so a 503 would send clients into a retry loop and hide a deployment fault.

    The botocore exception stays attached as `__cause__` for the logs. Its message is kept out of
    the domain message, so account ids and ARNs do not reach API callers.
    """
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        code = str(error.get("Code", "Unknown"))
        status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0))
        if code in NOT_FOUND_CODES:
            return NotFoundError(f"{action}: not found")
        if code in RETRYABLE_CODES or status >= 500 or status == 429:
            logger.warning(
                "aws backend unavailable", extra={"action": action, "aws_code": code, "status": status}
            )
            return BackendUnavailableError(f"{action}: backend throttled or unavailable ({code})")
        logger.error("aws request failed", extra={"action": action, "aws_code": code, "status": status})
        return AgentMemError(f"{action} failed ({code})")
    if isinstance(exc, BotoConnectionError | HTTPClientError):
        # Covers EndpointConnectionError, ConnectTimeoutError, ReadTimeoutError and
        # ConnectionClosedError, raised once botocore's own retries are spent. A read timeout on a
        # write is ambiguous (it may have committed); idempotency keys make the caller's retry safe.
        logger.warning("aws transport failure", extra={"action": action, "aws_code": type(exc).__name__})
        return BackendUnavailableError(f"{action}: backend unreachable ({type(exc).__name__})")
    logger.error("aws client failure", extra={"action": action, "aws_code": type(exc).__name__})
    return AgentMemError(f"{action} failed ({type(exc).__name__})")
