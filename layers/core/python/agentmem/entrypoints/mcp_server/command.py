"""`agentmem mcp`: the MCP server over stdio, for desktop hosts and agent runtimes.

Against the embedded backend (the default, over `--data-dir`) it also runs the projector worker,
as `agentmem serve` does, so what an agent appends becomes beliefs. With `--url` it serves a
deployed tenant instead, every call signed with SigV4 (`--sigv4-region`) or carrying an API key:
the local stdio proxy a hosted agent reaches a tenant through (docs/mcp.md)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from agentmem.semantic.worker import ProjectorWorker
    from agentmem.settings import Settings

API_KEY_ENV = "AGENTMEM_API_KEY"


def add_parser(verbs: Any) -> None:
    """Register the `mcp` verb on the CLI's subparsers."""
    mcp = verbs.add_parser("mcp", help="serve the MCP tools over stdio (local data, or a tenant with --url)")
    mcp.add_argument("--data-dir", type=Path, default=None, help="default ./.agentmem (AGENTMEM_DATA_DIR)")
    mcp.add_argument("--read-only", action="store_true", help="expose no tool that writes")
    mcp.add_argument(
        "--no-gate",
        action="store_true",
        help="list every tool from the start, skill libraries or not (AGENTMEM_MCP_SEARCH_GATE=off)",
    )
    mcp.add_argument(
        "--principals",
        default=None,
        help="loopback development only (no AGENTMEM_API_KEYS): the principals this server acts as",
    )
    mcp.add_argument(
        "--api-key", default=None, help=f"the key this server presents (prefer the {API_KEY_ENV} variable)"
    )
    mcp.add_argument("--url", default=None, help="a deployed tenant's API (or a remote agentmem serve)")
    mcp.add_argument("--sigv4-region", default=None, help="sign calls to --url with SigV4 for this region")
    mcp.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from agentmem.entrypoints.cli_support import load_settings
    from agentmem.entrypoints.mcp_server.identity import IdentityError

    settings = load_settings(args)
    search_gate = settings.mcp_search_gate and not args.no_gate
    api_key = args.api_key or os.environ.get(API_KEY_ENV)
    worker: ProjectorWorker | None = None
    try:
        if args.url:
            server = _remote_server(args, api_key, search_gate)
        else:
            server, worker = _local_server(args, settings, api_key, search_gate)
    except (IdentityError, ValueError) as exc:
        print(f"agentmem mcp: {exc}", file=sys.stderr)
        return 2
    try:
        serve_stdio(server)
    finally:
        if worker is not None:
            worker.stop()
    return 0


def _local_server(
    args: argparse.Namespace, settings: Settings, api_key: str | None, search_gate: bool
) -> tuple[Server[Any], ProjectorWorker]:
    from agentmem.entrypoints.cli_support import local_worker
    from agentmem.entrypoints.mcp_server.backend import LocalBackend
    from agentmem.entrypoints.mcp_server.identity import FixedIdentity, configured_caller
    from agentmem.entrypoints.mcp_server.server import ServerOptions, build_server
    from agentmem.wiring import bootstrap

    caller = configured_caller(settings, api_key=api_key, principals=args.principals)
    services = bootstrap(settings)
    options = ServerOptions(read_only=args.read_only, search_gate=search_gate)
    server = build_server(LocalBackend(services), FixedIdentity(caller), options)
    return server, local_worker(services).start()


def _remote_server(args: argparse.Namespace, api_key: str | None, search_gate: bool) -> Server[Any]:
    from agentmem.client import MemoryClient
    from agentmem.entrypoints.mcp_server.identity import FixedIdentity, remote_caller
    from agentmem.entrypoints.mcp_server.remote import RemoteBackend
    from agentmem.entrypoints.mcp_server.server import ServerOptions, build_server

    client = MemoryClient(args.url, sigv4_region=args.sigv4_region, api_key=api_key)
    identity = FixedIdentity(remote_caller(read_only=args.read_only))
    options = ServerOptions(read_only=args.read_only, search_gate=search_gate)
    return build_server(RemoteBackend(client), identity, options)


def serve_stdio(server: Server[Any]) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)
