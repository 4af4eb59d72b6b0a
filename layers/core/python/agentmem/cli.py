"""`agentmem` command line. Every verb takes `--data-dir` (or AGENTMEM_DATA_DIR)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
from pathlib import Path
from typing import Any

from agentmem.settings import Settings


def load_settings(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    for name in ("host", "port", "data_dir"):
        value = getattr(args, name, None)
        if value is not None:
            overrides[name] = value
    return Settings.from_env(**overrides)


def cmd_serve(args: argparse.Namespace) -> int:
    from agentmem.api.app import build_resolver
    from agentmem.bootstrap import bootstrap
    from agentmem.observability import configure
    from agentmem.server import LocalServer

    configure()
    settings = load_settings(args)
    services = bootstrap(settings)
    server = LocalServer(
        lambda: build_resolver(services),
        host=settings.host,
        port=settings.port,
        max_request_bytes=settings.max_request_bytes,
    )
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"agentmem serving {server.url} (data dir {settings.data_dir.resolve()})", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentmem", description="Shared memory for teams of LLM agents.")
    verbs = parser.add_subparsers(dest="verb", required=True)

    serve = verbs.add_parser("serve", help="run the HTTP API on loopback")
    serve.add_argument("--host", default=None, help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 8787, AGENTMEM_PORT)")
    serve.add_argument("--data-dir", type=Path, default=None, help="default ./.agentmem (AGENTMEM_DATA_DIR)")
    serve.set_defaults(run=cmd_serve)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING)
    args = build_parser().parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
