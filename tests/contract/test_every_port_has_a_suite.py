"""Every Protocol of the package has a contract suite, every suite runs, and every adapter of a
port is built by one of its suite's test classes (see registry.py)."""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import pytest

import agentmem
from tests.contract.backend_faults_contract import BackendFaultsContract
from tests.contract.openai_faults_contract import OpenAIFaultsContract
from tests.contract.registry import BUILT_BY, FAULT_CONTRACTED, NOT_PORTS, OPENAI_FAULT_CONTRACTED, SUITES

PACKAGE = Path(agentmem.__file__).parent
CONTRACT_TESTS = Path(__file__).parent


@dataclass
class ClassInfo:
    name: str
    path: Path
    bases: list[str]
    methods: set[str] = field(default_factory=set)
    is_protocol: bool = False


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Subscript):
        return _base_name(node.value)
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def package_classes() -> dict[str, ClassInfo]:
    found: dict[str, ClassInfo] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [_base_name(b) for b in node.bases]
                methods = {
                    n.name for n in node.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")
                }
                found[node.name] = ClassInfo(node.name, path, bases, methods, "Protocol" in bases)
    return found


CLASSES = package_classes()
PROTOCOLS = {name for name, info in CLASSES.items() if info.is_protocol}


def all_methods(name: str) -> set[str]:
    """Public methods of a class and of its bases within the package."""
    info = CLASSES.get(name)
    if info is None:
        return set()
    return info.methods.union(*(all_methods(b) for b in info.bases if b != name))


def contract_test_modules() -> list[ModuleType]:
    return [
        importlib.import_module(f"tests.contract.{p.stem}") for p in sorted(CONTRACT_TESTS.glob("test_*.py"))
    ]


def suite_test_classes(contract: type) -> list[tuple[type, str]]:
    """(test class, its module's source) for every collected test class built on `contract`."""
    out = []
    for module in contract_test_modules():
        source = Path(str(module.__file__)).read_text(encoding="utf-8")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__name__.startswith("Test")
                and value.__module__ == module.__name__
                and issubclass(value, contract)
            ):
                out.append((value, source))
    return out


def test_the_scan_finds_the_known_ports() -> None:
    # So an empty scan (a moved package, a parse that finds nothing) cannot pass the checks below.
    assert {"EventLog", "LLM", "SkillReviewer", "LogTail", "CheckpointStore"} <= PROTOCOLS


def test_every_protocol_has_a_suite_or_a_reason() -> None:
    missing = sorted(PROTOCOLS - SUITES.keys() - NOT_PORTS.keys())
    assert not missing, f"Protocols without a contract suite in tests/contract/registry.py: {missing}"
    stale = sorted((SUITES.keys() | NOT_PORTS.keys()) - PROTOCOLS)
    assert not stale, f"registry entries naming no Protocol of the package: {stale}"


@pytest.mark.parametrize("port", sorted(SUITES))
def test_every_listed_adapter_is_built_by_a_test_class_of_the_suite(port: str) -> None:
    suite = SUITES[port]
    classes = suite_test_classes(suite.contract)
    assert classes, f"{suite.contract.__name__} has no test class: no adapter runs it"
    for adapter in suite.adapters:
        assert any(re.search(rf"\b{adapter}\b", source) for _, source in classes), (
            f"{adapter} is listed for {port}, but no test class of {suite.contract.__name__} builds it"
        )


@pytest.mark.parametrize("port", sorted(SUITES))
def test_every_adapter_of_a_port_is_listed(port: str) -> None:
    """A class under agentmem/adapters with every method of the port (its own or inherited within
    the package) is an adapter of it: it must be listed for some port, so some suite builds it."""
    wanted = all_methods(port)
    listed = {a for s in SUITES.values() for a in s.adapters} | BUILT_BY.keys()
    adapters = [
        info.name
        for info in CLASSES.values()
        if "adapters" in info.path.relative_to(PACKAGE).parts
        and not info.is_protocol
        and not info.name.startswith("_")
        and wanted <= all_methods(info.name)
    ]
    unlisted = sorted(set(adapters) - listed)
    assert not unlisted, f"adapters of {port} that no contract suite builds: {unlisted}"


def test_every_bedrock_adapter_passes_the_fault_contract() -> None:
    bedrock = sorted(
        name
        for name, info in CLASSES.items()
        if name.startswith("Bedrock") and "aws" in info.path.relative_to(PACKAGE).parts
    )
    assert bedrock == sorted(FAULT_CONTRACTED)
    classes = suite_test_classes(BackendFaultsContract)
    for adapter in FAULT_CONTRACTED:
        assert any(re.search(rf"\b{adapter}\b", source) for _, source in classes), adapter


def test_every_openai_compatible_adapter_passes_the_fault_contract() -> None:
    found = sorted(
        name
        for name, info in CLASSES.items()
        if name.startswith("OpenAICompat") and "openai_compat" in info.path.relative_to(PACKAGE).parts
    )
    assert found == sorted(OPENAI_FAULT_CONTRACTED)
    classes = suite_test_classes(OpenAIFaultsContract)
    for adapter in OPENAI_FAULT_CONTRACTED:
        assert any(re.search(rf"\b{adapter}\b", source) for _, source in classes), adapter


def test_built_by_names_real_adapters() -> None:
    listed = {a for s in SUITES.values() for a in s.adapters}
    for adapter, builder in BUILT_BY.items():
        assert adapter in CLASSES and builder in listed
