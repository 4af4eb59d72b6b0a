"""`agentmem serve`: the HTTP API on loopback (or behind API keys), with the MCP endpoint at /mcp,
the memory inspector at /ui, and the projector worker that keeps every index current."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from pathlib import Path
from typing import Any

from agentmem.entrypoints.cli_support import load_settings, local_worker


def add_serve_verb(verbs: Any) -> None:
    serve = verbs.add_parser("serve", help="run the HTTP API on loopback")
    serve.add_argument(
        "--host", default=None, help="bind address (default 127.0.0.1; off loopback needs AGENTMEM_API_KEYS)"
    )
    serve.add_argument("--port", type=int, default=None, help="port (default 8787, AGENTMEM_PORT)")
    serve.add_argument("--data-dir", type=Path, default=None, help="default ./.agentmem (AGENTMEM_DATA_DIR)")
    serve.set_defaults(run=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from agentmem.entrypoints.server import (
        ApiKeyConfigError,
        ApiKeys,
        LocalServer,
        ServerLimits,
        is_loopback_host,
    )

    settings = load_settings(args)
    try:
        keys = ApiKeys.from_setting(settings.api_keys.get_secret_value()) if settings.api_keys else None
    except ApiKeyConfigError as exc:
        print(f"agentmem serve: AGENTMEM_API_KEYS: {exc}", file=sys.stderr)
        return 2
    if keys is None and not is_loopback_host(settings.host):
        print(
            f"agentmem serve: refusing --host {settings.host}: off loopback every caller needs an API key;"
            " set AGENTMEM_API_KEYS (see docs/local-server.md)",
            file=sys.stderr,
        )
        return 2
    from agentmem.api.app import build_resolver
    from agentmem.entrypoints.observability import configure
    from agentmem.wiring import bootstrap

    configure()
    services = bootstrap(settings)
    from agentmem.entrypoints.mcp_server.http import mcp_mount

    mcp = mcp_mount(services, loopback=keys is None)
    from agentmem.inspector.serve import local_inspector

    server = LocalServer(
        lambda: build_resolver(services),
        host=settings.host,
        port=settings.port,
        max_request_bytes=settings.max_request_bytes,
        limits=ServerLimits(
            read_timeout_seconds=settings.http_read_timeout_seconds,
            max_connections=settings.http_max_connections,
        ),
        api_keys=keys,
        mounts=[mcp.route, *local_inspector(lambda: build_resolver(services), settings.data_dir, keys)],
        lifespan=mcp.lifespan,
    )
    worker = local_worker(services).start()
    # uvicorn shuts down gracefully on SIGTERM/SIGINT, then re-raises the signal: exit 0 on it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    auth = f"{len(keys)} API key(s) required" if keys else "loopback development mode, no API keys"
    print(f"agentmem serving {server.url} ({auth}; data dir {settings.data_dir.resolve()})", flush=True)
    print(f"MCP (streamable HTTP) at {server.url}/mcp", flush=True)
    print(f"memory inspector at {server.url}/ui/", flush=True)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()
    finally:
        worker.stop()
    return 0
