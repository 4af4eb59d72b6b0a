"""What both clients are configured with, and the `Connection` it makes."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypedDict

import httpx2

from agentmem.client._program import Connection
from agentmem.client._retry import RetryPolicy
from agentmem.client._sigv4 import SigV4Signer

if TYPE_CHECKING:
    import botocore.session

DEFAULT_TIMEOUT_SECONDS = 10.0
MAX_CONNECTIONS = 16  # one per concurrent caller, reused (keep-alive)


class ClientOptions(TypedDict, total=False):
    sigv4_region: str | None
    """Sign every request with SigV4 for API Gateway (service `execute-api`) in this region."""
    botocore_session: botocore.session.Session | None
    """The session whose credential chain is walked (once per client), e.g. for a profile."""
    timeout_seconds: float
    retries: int
    """Further attempts after the first on 429/502/503/504 or no answer (default 3)."""
    retry_policy: RetryPolicy | None
    """The whole policy, for finer control than `retries`."""
    local_principals: str | None
    """`agentmem serve` only: the caller's principals, e.g. "writer,analyst" (docs/access.md)."""
    api_key: str | None
    """`agentmem serve` with AGENTMEM_API_KEYS set: sent as a bearer token."""
    gateway_api_key: str | None
    """A tenant stack with a usage plan (TenantConfig.usage_plan) wants an API Gateway key in
    `x-api-key` on top of SigV4; it is signed with the rest of the request."""


def connection_from(base_url: str, options: ClientOptions) -> Connection:
    region = options.get("sigv4_region")
    signer = SigV4Signer(region, session=options.get("botocore_session")) if region else None
    policy = options.get("retry_policy") or RetryPolicy(retries=options.get("retries", 3))
    return Connection(
        base_url=base_url.rstrip("/"),
        principals=options.get("local_principals"),
        api_key=options.get("api_key"),
        gateway_api_key=options.get("gateway_api_key"),
        signer=signer,
        policy=policy,
    )


def http_settings(options: ClientOptions) -> dict[str, Any]:
    """The httpx2 client settings both clients open their connection pool with."""
    return {
        "timeout": options.get("timeout_seconds", DEFAULT_TIMEOUT_SECONDS),
        "limits": httpx2.Limits(max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_CONNECTIONS),
    }


def as_method(build: Callable[..., Any], method: Callable[..., Any]) -> None:
    """Give `method` (a client's wrapper of the program `build`) the program's name, docstring
    and signature with `self` in front, so help() and editors show the real parameters."""
    method.__name__ = method.__qualname__ = build.__name__
    method.__doc__ = build.__doc__
    signature = inspect.signature(build)
    own = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    method.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[own, *signature.parameters.values()], return_annotation=inspect.Signature.empty
    )
