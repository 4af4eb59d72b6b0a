"""Where the inspector runs: inside `agentmem serve` at `/ui`, reading through the server's own
resolver; or `agentmem inspect --url ...`, a loopback server of its own that reads a deployed
tenant (or another server) over HTTP with `MemoryClient`, as the credentials it is given."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from starlette.routing import BaseRoute, Router

from agentmem.client import MemoryClient
from agentmem.entrypoints.server.api_keys import ApiKeys
from agentmem.inspector.app import inspector_routes
from agentmem.inspector.saved_reads import SAVED_READS_FILE
from agentmem.inspector.transports import ClientTransport, ResolverTransport
from agentmem.inspector.web import InspectorConfig


def local_inspector(
    resolver_factory: Callable[[], APIGatewayRestResolver], data_dir: Path, keys: ApiKeys | None
) -> list[BaseRoute]:
    """The routes `agentmem serve` mounts: the inspector over its own resolver, with the saved
    reads of `<data dir>/saved-reads.json` when there is one."""
    config = InspectorConfig(
        transport=ResolverTransport(resolver_factory),
        keys=keys,
        source_label=f"this server (data dir {data_dir.resolve()})",
        saved_reads_path=data_dir / SAVED_READS_FILE,
        claims_honoured=keys is None,
    )
    return inspector_routes(config)


def remote_inspector(
    url: str,
    *,
    sigv4_region: str | None,
    api_key: str | None,
    saved_reads: Path | None,
    timeout_seconds: float = 30.0,
) -> Router:
    """The inspector app over a remote API. Claimed principals reach only a keyless loopback
    server (the development header); a deployed API reads the caller from SigV4 alone."""

    def make_client(claimed: str | None) -> MemoryClient:
        return MemoryClient(
            url,
            sigv4_region=sigv4_region,
            api_key=api_key,
            local_principals=claimed,
            timeout_seconds=timeout_seconds,
            retries=1,
        )

    config = InspectorConfig(
        transport=ClientTransport(make_client),
        keys=None,
        source_label=url + (" (SigV4)" if sigv4_region else " (API key)" if api_key else ""),
        saved_reads_path=saved_reads,
        claims_honoured=sigv4_region is None and api_key is None,
    )
    return Router(routes=inspector_routes(config), redirect_slashes=False)


def serve_remote(app: Router, host: str, port: int, announce: Callable[[str], None]) -> None:
    """Serve `app` on loopback until interrupted. It reads with the operator's credentials, so
    it never listens anywhere else."""
    import uvicorn

    from agentmem.entrypoints.server import UnsafeBindError, is_loopback_host

    if not is_loopback_host(host):
        raise UnsafeBindError(f"agentmem inspect serves on loopback only, not {host}: it reads as you")
    config = uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    announce(f"http://{host}:{port}/ui/")
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
