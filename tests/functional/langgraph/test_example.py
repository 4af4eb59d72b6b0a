"""docs/examples/langgraph_two_agents.py as a user runs it: `agentmem serve` in one process,
the script in another, offline."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.functional.serve_process import QUIET, agentmem_serve

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "docs" / "examples" / "langgraph_two_agents.py"


def test_two_agents_share_memory_through_agentmem_serve(tmp_path: Path) -> None:
    with agentmem_serve(tmp_path / "data") as url:
        ran = subprocess.run(
            [sys.executable, str(EXAMPLE), "--url", url],
            env={**os.environ, **QUIET}, capture_output=True, text=True, timeout=180, check=True,
        )  # fmt: skip
    lines = ran.stdout.splitlines()
    assert lines[0] == "advice-s1: 70% bonds / 30% equities towards a flat in 5 years"
    assert lines[1] == "advice-s2: 30% bonds / 70% equities towards a flat in 5 years"
    assert lines[2] == "risk_tolerance, as agentmem keeps it:"
    assert lines[3].startswith("  v1 NEW: ") and '"value":"cautious"' in lines[3]
    assert lines[4].startswith("  v2 ") and '"value":"adventurous"' in lines[4]
    assert lines[5].startswith("what a third agent reads about the plan")
    assert "30% bonds / 70% equities" in lines[6] and "(v2; stated in advice-s2)" in lines[6]
