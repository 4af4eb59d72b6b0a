"""Typed clients for the agentmem HTTP API: `MemoryClient` (blocking) and `AsyncMemoryClient`
(asyncio), with the same methods, types and retries, and one error class per kind of answer.

Against API Gateway they sign each request with SigV4 (service `execute-api`), with credentials
resolved once per client and refreshed by botocore; against `agentmem serve` they send plain
requests. docs/sdk.md says more."""

from agentmem.client._async import AsyncMemoryClient
from agentmem.client._errors import (
    Conflict,
    Forbidden,
    Gone,
    Invalid,
    MemoryApiError,
    NoCredentials,
    NotFound,
    PayloadTooLarge,
    ServerError,
    Throttled,
    TransportFailed,
    Unauthorized,
)
from agentmem.client._retry import RETRYABLE, RetryPolicy
from agentmem.client._sync import MemoryClient

__all__ = [
    "RETRYABLE",
    "AsyncMemoryClient",
    "Conflict",
    "Forbidden",
    "Gone",
    "Invalid",
    "MemoryApiError",
    "MemoryClient",
    "NoCredentials",
    "NotFound",
    "PayloadTooLarge",
    "RetryPolicy",
    "ServerError",
    "Throttled",
    "TransportFailed",
    "Unauthorized",
]
