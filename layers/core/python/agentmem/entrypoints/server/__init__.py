"""`agentmem serve`: a production HTTP server (uvicorn) on loopback, or off it behind API keys,
that feeds every request, as an API Gateway proxy event, through the same resolver and
validation code as the Lambda handlers."""

from agentmem.entrypoints.server.api_keys import ApiKeyConfigError, ApiKeyGrant, ApiKeys
from agentmem.entrypoints.server.local_server import (
    LocalServer,
    ServerLimits,
    UnsafeBindError,
    is_loopback_host,
)
from agentmem.entrypoints.server.proxy_event import LocalContext, to_proxy_event
from agentmem.entrypoints.server.workers import ResolverPool

__all__ = [
    "ApiKeyConfigError",
    "ApiKeyGrant",
    "ApiKeys",
    "LocalContext",
    "LocalServer",
    "ResolverPool",
    "ServerLimits",
    "UnsafeBindError",
    "is_loopback_host",
    "to_proxy_event",
]
