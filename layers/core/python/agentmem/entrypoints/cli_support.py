"""What the CLI's verbs share: settings from the flags, the local projector worker, the local log
and a plain table. Kept below `cli` and the command modules, which all import it, so that none
of them imports another to get these (cli re-exports them for callers outside the package)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from agentmem.settings import Settings

if TYPE_CHECKING:
    from agentmem.ports.log import CheckpointStore, LogTail
    from agentmem.semantic.worker import ProjectorWorker
    from agentmem.wiring import Services

MAX_ROWS = 200
"""The most rows a verb prints of one table; it says how many more there were."""


def load_settings(args: argparse.Namespace) -> Settings:
    """The environment's settings, with the flags a verb was given (host, port, data dir) on top."""
    overrides: dict[str, Any] = {}
    for name in ("host", "port", "data_dir"):
        value = getattr(args, name, None)
        if value is not None:
            overrides[name] = value
    return Settings.from_env(**overrides)


def local_worker(services: Services) -> ProjectorWorker:
    """The projector worker over the local log: beliefs, and the skill and asset indexes."""
    from agentmem.errors import UnsupportedOnBackendError

    try:
        return services.projector_worker()
    except UnsupportedOnBackendError as exc:
        raise SystemExit(f"the local projector worker cannot run here: {exc}") from None


def local_tail(services: Services, verb: str, *, hint: str = "") -> tuple[LogTail, CheckpointStore]:
    """The log in append order and the projector's checkpoints: only the local backend has them."""
    from agentmem.errors import UnsupportedOnBackendError

    try:
        return services.ports.log_tail, services.ports.checkpoints
    except UnsupportedOnBackendError as exc:
        raise SystemExit(f"{verb} reads the local log: {exc}" + (f" {hint}" if hint else "")) from None


def print_rows(headers: list[str], rows: list[list[str]]) -> None:
    """Print `rows` under `headers` as left-aligned columns."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]
    for row in [headers, ["-" * w for w in widths], *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
