"""`agentmem serve` as a user runs it: a real process on a free port, stopped at the end."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agentmem.client import MemoryClient

QUIET = {"POWERTOOLS_LOG_LEVEL": "WARNING"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def agentmem_serve(data_dir: Path, *, start_seconds: float = 60) -> Iterator[str]:
    """Serve `data_dir` and yield the URL once `/v1/health` answers."""
    port = free_port()
    env = {**os.environ, "AGENTMEM_PORT": str(port), **QUIET}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentmem.entrypoints.cli", "serve", "--data-dir", str(data_dir)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    client = MemoryClient(url, retries=0)
    deadline = time.monotonic() + start_seconds
    try:
        while True:
            try:
                client.health()
                break
            except Exception:
                if time.monotonic() > deadline or proc.poll() is not None:
                    proc.kill()
                    raise AssertionError(f"server did not start: {proc.communicate()[0]}") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
