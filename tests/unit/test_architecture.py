"""The shape of the package: every module imports on its own (no import cycle), the domain
imports no adapter, no wiring and no AWS or search SDK, and the write path stays light."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import agentmem

PACKAGE = Path(agentmem.__file__).parent
DOMAIN = ("episodic", "semantic", "procedural", "compose", "context", "packing")
FORBIDDEN_IN_DOMAIN = (
    "agentmem.adapters",
    "agentmem.wiring",
    "agentmem.entrypoints",
    "agentmem.api",
    "boto3",
    "botocore",
    "opensearchpy",
    "aws_lambda_powertools",
    "tiktoken",
    "onnxruntime",
)


def _modules() -> list[str]:
    return sorted(
        m.name
        for m in pkgutil.walk_packages(agentmem.__path__, "agentmem.")
        if not m.name.endswith("__main__")
    )


def _imports(path: Path) -> set[str]:
    """Every module `path` imports, at the top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


IMPORT_EACH_FIRST = """
import importlib, sys, traceback
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m == "agentmem" or m.startswith("agentmem.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as exc:
        print(f"{name}: {type(exc).__name__}: {exc}")
"""


def test_every_module_imports_first_with_nothing_of_agentmem_loaded() -> None:
    # A cycle shows as an ImportError for whichever module of it is imported first, so each one
    # is imported first in turn (third-party modules stay loaded: they cannot be in the cycle).
    names = _modules()
    assert {"agentmem.ports.log", "agentmem.entrypoints.stream", "agentmem.wiring.bootstrap"} <= set(names)
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH_FIRST, *names], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines() == []


@pytest.mark.parametrize("package", DOMAIN)
def test_the_domain_imports_no_adapter_wiring_or_sdk(package: str) -> None:
    offenders = [
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in sorted((PACKAGE / package).rglob("*.py"))
        for name in sorted(_imports(path))
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN_IN_DOMAIN)
    ]
    assert offenders == []


def test_ports_depend_on_models_only() -> None:
    allowed = (
        "agentmem.ports",
        "agentmem.model",
        "agentmem.procedural.model",
        "agentmem.compose.model",
        "agentmem.subjects.model",
    )
    offenders = [
        f"{path.name} imports {name}"
        for path in sorted((PACKAGE / "ports").glob("*.py"))
        for name in sorted(_imports(path))
        if name.startswith("agentmem") and not name.startswith(allowed)
    ]
    assert offenders == []


def test_every_port_protocol_says_what_it_is_for() -> None:
    from typing import Protocol

    undocumented = [
        f"{name}.{attr}"
        for name in _modules()
        if name.startswith("agentmem.ports.")
        for attr, value in vars(importlib.import_module(name)).items()
        if isinstance(value, type)
        and Protocol in getattr(value, "__mro__", ())
        and value.__module__ == name
        and not (value.__doc__ or "").strip()
    ]
    assert undocumented == []


def test_the_unit_tier_opens_no_connection() -> None:
    import socket

    from tests.unit.conftest import NetworkInUnitTestError

    with pytest.raises(NetworkInUnitTestError):
        socket.create_connection(("192.0.2.1", 80), timeout=0.1)
