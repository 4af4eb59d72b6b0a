"""`agentmem serve` mounts the inspector at /ui; `agentmem inspect` serves it on loopback only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import urllib3

from agentmem.client import MemoryClient
from tests.functional.test_cli import served

__all__ = ["served"]  # the fixture, reused


def test_serve_mounts_the_inspector(served: tuple[MemoryClient, Path]) -> None:
    client, _ = served
    home = urllib3.request("GET", client.base_url + "/ui/", redirect=False, timeout=30)
    assert home.status == 200 and b"agentmem inspector" in home.data
    bare = urllib3.request("GET", client.base_url + "/ui", redirect=False, timeout=30)
    assert bare.status == 303 and bare.headers["Location"] == "/ui/"
    css = urllib3.request("GET", client.base_url + "/ui/static/inspector.css", timeout=30)
    assert css.status == 200 and css.headers["Content-Type"].startswith("text/css")


def _inspect(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("AWS_REGION", "AWS_DEFAULT_REGION")}
    return subprocess.run(
        [sys.executable, "-m", "agentmem.entrypoints.cli", "inspect", "--url", "http://127.0.0.1:9", *args],
        check=False, capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip


def test_inspect_refuses_to_listen_off_loopback() -> None:
    done = _inspect("--host", "0.0.0.0")
    assert done.returncode == 2 and "loopback only" in done.stderr


def test_inspect_with_sigv4_needs_a_region() -> None:
    done = _inspect("--sigv4")
    assert done.returncode == 2 and "region" in done.stderr
