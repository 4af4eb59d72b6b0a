"""`make demo-mcp` as a newcomer runs it: a real process that drives `agentmem mcp` over stdio."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_the_mcp_demo_searches_reads_appends_and_composes_through_mcp() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentmem.demo.mcp_agent"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    lists = [line for line in out.splitlines() if line.startswith("tools/list: ")]
    assert lists[0] == "tools/list: search_functions, search_guidance"
    assert "memory_append" in lists[1] and "compose_skill" in lists[1]
    assert "memory_context now → search_required" in out
    assert "server sent notifications/tools/list_changed" in out
    assert "get_function funding_row: monthly_saving → vehicle → funding_row" in out
    used, budget = (
        int(n.replace(",", "")) for n in re.findall(r"memory_context: ([\d,]+) of ([\d,]+)", out)[0]
    )
    assert 0 < used <= budget
    assert re.search(r"memory_append → priya-s1 #4 \(inline\)", out)
    assert "with principals as an argument → validation_error (field principals)" in out
