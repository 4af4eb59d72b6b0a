"""A missing or invalid setting, as a new user meets it: every entry point says so in one line that
names the variable, and exits non-zero, instead of printing pydantic's report or a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentmem import Memory
from agentmem.settings import SettingsError


def agentmem(*args: str, data_dir: Path, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTMEM_")} | environ
    return subprocess.run(
        [sys.executable, "-m", "agentmem.entrypoints.cli", *args, "--data-dir", str(data_dir)],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("verb", "environ", "named"),
    [
        (["serve"], {"AGENTMEM_LLM": "openai"}, "AGENTMEM_LLM_BASE_URL, AGENTMEM_LLM_MODEL"),
        (["mcp"], {"AGENTMEM_LLM": "openai", "AGENTMEM_LLM_MODEL": "qwen"}, "AGENTMEM_LLM_BASE_URL"),
        (["project", "--once"], {"AGENTMEM_PORT": "eighty"}, "AGENTMEM_PORT: "),
        (["verify"], {"AGENTMEM_FACT_TYPES": '[{"key": 1}]'}, "AGENTMEM_FACT_TYPES: "),
    ],
)
def test_a_bad_setting_is_one_line_naming_the_variable_and_a_non_zero_exit(
    tmp_path: Path, verb: list[str], environ: dict[str, str], named: str
) -> None:
    done = agentmem(*verb, data_dir=tmp_path / "data", **environ)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"agentmem {verb[0]}: ") and named in line, line
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_a_json_setting_that_does_not_parse_is_named_at_startup(tmp_path: Path) -> None:
    # Before, a bad map failed at the first request that needed it, not when the server started.
    done = agentmem("serve", data_dir=tmp_path / "data", AGENTMEM_PRINCIPAL_MAP="{not json")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith("agentmem serve: AGENTMEM_PRINCIPAL_MAP: not a JSON object"), line


def test_the_memory_facade_raises_one_line_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_EMBEDDER", "openai")
    with pytest.raises(SettingsError) as raised:
        Memory(tmp_path / "data")
    message = str(raised.value)
    assert (
        "\n" not in message
        and "AGENTMEM_EMBEDDER_MODEL" in message
        and "AGENTMEM_EMBEDDER_DIMENSIONS" in message
    )
    assert raised.value.__cause__ is None and raised.value.__suppress_context__  # no pydantic report below it


def test_project_once_with_the_model_server_down_says_why_in_one_line_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Port 9 (discard) has no listener here: the extraction call fails to connect at once.
    down = {
        "AGENTMEM_LLM": "openai",
        "AGENTMEM_LLM_BASE_URL": "http://127.0.0.1:9",
        "AGENTMEM_LLM_MODEL": "any",
    }
    for name, value in down.items():
        monkeypatch.setenv(name, value)
    with Memory(tmp_path / "data", subject="maya") as memory:
        memory.append("Maya lives in Lisbon.")
    done = agentmem("project", "--once", data_dir=tmp_path / "data", **down)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = [ln for ln in done.stderr.splitlines() if ln.startswith("agentmem project: ")]
    assert "the model server is unreachable" in line and "AGENTMEM_LLM_BASE_URL" in line, line
