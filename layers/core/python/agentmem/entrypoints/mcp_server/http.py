"""`/mcp` on `agentmem serve`: the same MCP server over streamable HTTP, beside the API.

Behind the server's API-key gate like every route; each request's caller is its key's grant (or,
on loopback without keys, its `X-Agentmem-Principals` header), so one endpoint serves readers and
writers with their own tool sets. The session manager runs in the local server's lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.routing import BaseRoute, Route

if TYPE_CHECKING:
    from agentmem.wiring import Services

MCP_PATH = "/mcp"


@dataclass(frozen=True)
class McpMount:
    route: BaseRoute
    lifespan: Callable[[Any], AbstractAsyncContextManager[None]]


def mcp_mount(services: Services, *, loopback: bool) -> McpMount:
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
    from mcp.server.transport_security import TransportSecuritySettings

    from agentmem.api.principals import CallerRules
    from agentmem.entrypoints.mcp_server.backend import LocalBackend
    from agentmem.entrypoints.mcp_server.identity import HttpIdentity
    from agentmem.entrypoints.mcp_server.server import ServerOptions, build_server

    settings = services.settings
    server = build_server(
        LocalBackend(services),
        HttpIdentity(CallerRules.from_settings(settings)),
        ServerOptions(search_gate=settings.mcp_search_gate),
    )
    # On loopback the SDK's DNS-rebinding guard (Host and Origin must be local) stays on; off
    # loopback every request already needs an API key, and the Host is the deployment's own name.
    security = None if loopback else TransportSecuritySettings(enable_dns_rebinding_protection=False)
    server.streamable_http_app(streamable_http_path=MCP_PATH, host=settings.host, transport_security=security)
    manager = server.session_manager

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return McpMount(Route(MCP_PATH, endpoint=StreamableHTTPASGIApp(manager)), lifespan)
