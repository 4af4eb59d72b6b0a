"""The README's library quick start as a script, and what its `# -> ...` comments say it prints.

Both the example test (the repo's interpreter) and the wheel test (a venv holding only the built
wheel) run the same block, so the README cannot drift from what the package does."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SECTION = "## Use it as a library"
MAX_LINES = 10  # install commands and code together, as the issue asks
EXPECTED = re.compile(r"#\s*->\s*(?P<printed>.+?)\s*$")
# What running the quick start must not have loaded: it runs in process, with no server.
SERVER_MODULES = ("uvicorn", "starlette", "agentmem.entrypoints.server", "agentmem.api")


@dataclass(frozen=True)
class QuickStart:
    install: list[str]
    code: str

    @property
    def expected(self) -> list[str]:
        """What each line commented `# -> X` prints, in order."""
        return [m["printed"] for line in self.code.splitlines() if (m := EXPECTED.search(line))]


def read_quickstart(page: Path = README, section: str = SECTION) -> QuickStart:
    """The section's first plain fenced block (the install commands, if any) and its python block."""
    text = page.read_text()
    start = text.index(section)
    end = text.find("\n## ", start + len(section))
    blocks = re.findall(
        r"^```(\w*)\n(.*?)^```$", text[start : end if end != -1 else None], re.DOTALL | re.MULTILINE
    )
    install = next((body for lang, body in blocks if lang == ""), "")
    code = next(body for lang, body in blocks if lang == "python")
    return QuickStart(install=install.strip().splitlines(), code=code)


def with_no_server_check(code: str) -> str:
    """The quick start, then a check that it loaded no server module (printed, not asserted, so a
    failure names the modules)."""
    return code + (
        "\nimport sys\n"
        f"print('server modules:', sorted(m for m in sys.modules if m.startswith({SERVER_MODULES!r})))\n"
    )


def clean_env() -> dict[str, str]:
    """The caller's environment without AGENTMEM_* settings, which would change what it prints."""
    return {k: v for k, v in os.environ.items() if not k.startswith("AGENTMEM_") and k != "PYTHONPATH"}


def run_quickstart(python: Path | str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script = cwd / "quickstart.py"
    script.write_text(with_no_server_check(read_quickstart().code))
    return subprocess.run(
        [str(python), str(script)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def check_output(done: subprocess.CompletedProcess[str]) -> list[str]:
    """What is wrong with a run of the quick start: empty when it printed what the README says."""
    if done.returncode != 0:
        return [f"exit {done.returncode}: {done.stderr[-3000:]}"]
    lines = done.stdout.splitlines()
    problems = [f"does not print {want!r}" for want in read_quickstart().expected if want not in lines]
    if "server modules: []" not in lines:
        problems.append(next((line for line in lines if line.startswith("server modules:")), "no check ran"))
    return problems
