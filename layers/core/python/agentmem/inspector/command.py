"""`agentmem inspect --url URL [--sigv4 | --api-key-env NAME]`: the inspector's pages on loopback,
reading a deployed tenant (or another `agentmem serve`) through its HTTP API. Kept apart from the
CLI module so that building the parser imports nothing of the inspector."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any


def add_inspect_verb(verbs: Any) -> None:
    inspect = verbs.add_parser(
        "inspect", help="serve the read-only memory inspector on loopback against a remote API"
    )
    inspect.add_argument("--url", required=True, help="the API's base URL (API Gateway stage or a server)")
    inspect.add_argument(
        "--sigv4",
        nargs="?",
        const="",
        default=None,
        metavar="REGION",
        help="sign requests with SigV4 (region from AWS_REGION / AWS_DEFAULT_REGION when omitted)",
    )
    inspect.add_argument(
        "--api-key-env",
        default=None,
        metavar="NAME",
        help="read an API key of `agentmem serve` from this environment variable (never a flag)",
    )
    inspect.add_argument("--saved-reads", type=Path, default=None, help="a saved-reads JSON file")
    inspect.add_argument("--host", default="127.0.0.1", help="loopback address to serve on")
    inspect.add_argument("--port", type=int, default=8788, help="port (default 8788)")
    inspect.set_defaults(run=run_inspect)


def run_inspect(args: argparse.Namespace) -> int:
    from agentmem.entrypoints.server import UnsafeBindError
    from agentmem.inspector.saved_reads import SavedReadsError
    from agentmem.inspector.serve import remote_inspector, serve_remote

    region = None
    if args.sigv4 is not None:
        region = args.sigv4 or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        if not region:
            print("agentmem inspect: --sigv4 needs a region (or AWS_REGION)", file=sys.stderr)
            return 2
    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            print(f"agentmem inspect: ${args.api_key_env} is empty", file=sys.stderr)
            return 2
    try:
        app = remote_inspector(args.url, sigv4_region=region, api_key=api_key, saved_reads=args.saved_reads)
        serve_remote(
            app,
            args.host,
            args.port,
            lambda url: print(f"agentmem inspector {url} reading {args.url}", flush=True),
        )
    except (SavedReadsError, UnsafeBindError) as exc:
        print(f"agentmem inspect: {exc}", file=sys.stderr)
        return 2
    return 0
