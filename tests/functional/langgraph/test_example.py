"""docs/examples/langgraph_two_agents.py as a user runs it: `agentmem serve` in one process,
the script in another, offline."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from agentmem.client import MemoryClient

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "docs" / "examples" / "langgraph_two_agents.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_two_agents_share_memory_through_agentmem_serve(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "AGENTMEM_PORT": str(port), "POWERTOOLS_LOG_LEVEL": "WARNING"}
    server = subprocess.Popen(
        [sys.executable, "-m", "agentmem.cli", "serve", "--data-dir", str(tmp_path / "data")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                MemoryClient(url, retries=0).health()
                break
            except Exception:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise AssertionError(f"agentmem serve did not start: {server.stdout}") from None
                time.sleep(0.1)
        ran = subprocess.run(
            [sys.executable, str(EXAMPLE), "--url", url],
            env=env, capture_output=True, text=True, timeout=180, check=True,
        )  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=30)
    lines = ran.stdout.splitlines()
    assert lines[0] == "advice-s1: 70% bonds / 30% equities towards a flat in 5 years"
    assert lines[1] == "advice-s2: 30% bonds / 70% equities towards a flat in 5 years"
    assert lines[2] == "risk_tolerance, as agentmem keeps it:"
    assert lines[3].startswith("  v1 NEW: ") and '"value":"cautious"' in lines[3]
    assert lines[4].startswith("  v2 ") and '"value":"adventurous"' in lines[4]
    assert lines[5].startswith("what a third agent reads about the plan")
    assert "30% bonds / 70% equities" in lines[6] and "(v2; stated in advice-s2)" in lines[6]
