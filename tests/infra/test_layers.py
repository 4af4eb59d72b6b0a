"""The dependency layer is built by the host's pip for the Lambda platform (no Docker)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk import aws_lambda as lambda_

from infra.constructs.layers import (
    DEV_ONLY,
    RUNTIME_PROVIDED,
    LayerTooLargeError,
    PipLayerBundling,
    check_layer_size,
    pip_install_argv,
    prune_distributions,
)
from tests.conftest import ROOT
from tests.infra.conftest import Synth


def _option_values(argv: list[str], option: str) -> list[str]:
    return [argv[i + 1] for i, arg in enumerate(argv) if arg == option]


def test_pip_command_targets_lambda_platform_not_host() -> None:
    argv = pip_install_argv(Path("/src/requirements.txt"), Path("/out"), "aarch64")
    assert argv[:4] == [sys.executable, "-m", "pip", "install"]
    assert _option_values(argv, "--target") == ["/out/python"]
    assert _option_values(argv, "--platform") == ["manylinux_2_28_aarch64", "manylinux2014_aarch64"]
    assert _option_values(argv, "--python-version") == ["3.12"]
    assert _option_values(argv, "-r") == ["/src/requirements.txt"]
    assert "--only-binary=:all:" in argv


def test_bundling_picks_the_pip_arch_from_the_function_architecture() -> None:
    (arm,) = PipLayerBundling(Path("r.txt"), lambda_.Architecture.ARM_64).commands("/o")
    (x86,) = PipLayerBundling(Path("r.txt"), lambda_.Architecture.X86_64).commands("/o")
    assert "manylinux2014_aarch64" in arm
    assert "manylinux2014_x86_64" in x86


def test_no_deps_requirements_are_installed_after_the_main_ones_without_dependencies() -> None:
    bundler = PipLayerBundling(Path("r.txt"), lambda_.Architecture.ARM_64, [Path("model.txt")])
    main, model = bundler.commands("/o")
    assert _option_values(main, "-r") == ["r.txt"]
    assert "--no-deps" not in main
    assert _option_values(model, "-r") == ["model.txt"]
    assert "--no-deps" in model
    assert _option_values(model, "--target") == ["/o/python"]


def test_bundling_object_is_a_cdk_local_bundler() -> None:
    # jsii only calls try_bundle on objects registered as ILocalBundling implementations.
    bundler = PipLayerBundling(Path("r.txt"), lambda_.Architecture.ARM_64)
    cdk.BundlingOptions(image=cdk.DockerImage.from_registry("unused"), local=bundler)
    assert cdk.ILocalBundling in getattr(type(bundler), "__jsii_ifaces__", [])


def _fake_dist(site: Path, name: str, files: dict[str, str]) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    for relative, content in files.items():
        (site / relative).parent.mkdir(parents=True, exist_ok=True)
        (site / relative).write_text(content)
    records = [*files, f"{info.name}/METADATA", f"{info.name}/RECORD"]
    (info / "RECORD").write_text("".join(f"{record},,\n" for record in records))


def test_prune_removes_runtime_provided_sdk_and_keeps_the_rest(tmp_path: Path) -> None:
    site = tmp_path / "python"
    _fake_dist(site, "botocore", {"botocore/__init__.py": "", "botocore/data/s3/service.json": "{}"})
    _fake_dist(site, "pydantic", {"pydantic/__init__.py": ""})

    removed = prune_distributions(site, RUNTIME_PROVIDED)

    assert removed == ["botocore"]
    assert sorted(p.name for p in site.iterdir()) == ["pydantic", "pydantic-1.0.dist-info"]
    assert (site / "pydantic" / "__init__.py").is_file()


def test_layer_fingerprint_follows_the_build_recipe_not_the_host(tmp_path: Path) -> None:
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("pydantic==2.14.4\n")
    arm = PipLayerBundling(requirements, lambda_.Architecture.ARM_64)
    assert arm.fingerprint() == PipLayerBundling(requirements, lambda_.Architecture.ARM_64).fingerprint()
    assert arm.fingerprint() != PipLayerBundling(requirements, lambda_.Architecture.X86_64).fingerprint()
    before = arm.fingerprint()
    requirements.write_text("pydantic==2.14.5\n")
    assert arm.fingerprint() != before


def test_layer_fingerprint_covers_the_no_deps_requirements(tmp_path: Path) -> None:
    requirements, model = tmp_path / "requirements.txt", tmp_path / "model.txt"
    requirements.write_text("pydantic==2.14.4\n")
    model.write_text("some-model==1.0\n")
    without = PipLayerBundling(requirements, lambda_.Architecture.ARM_64).fingerprint()
    with_model = PipLayerBundling(requirements, lambda_.Architecture.ARM_64, [model])
    before = with_model.fingerprint()
    model.write_text("some-model==1.1\n")
    assert len({without, before, with_model.fingerprint()}) == 3


def test_a_layer_over_the_lambda_size_limit_fails_with_its_largest_packages(tmp_path: Path) -> None:
    site = tmp_path / "python"
    (site / "bigpkg").mkdir(parents=True)
    (site / "bigpkg" / "blob.bin").write_bytes(b"x" * 3_000_000)
    (site / "small.py").write_bytes(b"x" * 1_000)

    assert check_layer_size(tmp_path, limit=4_000_000) == 3_001_000
    with pytest.raises(
        LayerTooLargeError, match=r"3 MB unzipped; Lambda allows 2 MB .* Largest: bigpkg 3 MB"
    ):
        check_layer_size(tmp_path, limit=2_000_000)


SHIPPED = ROOT / "layers/core"


def _dev_only_modules() -> set[str]:
    return {path.removeprefix("python/").removesuffix(".py").replace("/", ".") for path in DEV_ONLY}


def _is_dev_only(module: str) -> bool:
    return any(module == dev or module.startswith(dev + ".") for dev in _dev_only_modules())


def test_no_module_the_layer_ships_imports_a_dev_tool() -> None:
    """The core layer leaves the demo, the eval harness, the client, the CLI and the local server
    out, so nothing it ships may import them, even lazily inside a function."""
    offenders = []
    for path in sorted((SHIPPED / "python/agentmem").rglob("*.py")):
        module = ".".join(path.relative_to(SHIPPED / "python").with_suffix("").parts).removesuffix(
            ".__init__"
        )
        if _is_dev_only(module):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            offenders += [f"{module} imports {name}" for name in names if _is_dev_only(name)]
    assert offenders == []


@pytest.mark.slow
@pytest.mark.xdist_group("infra")
def test_the_core_layer_asset_leaves_the_dev_tools_out(acme: Synth) -> None:
    (layer,) = [
        r
        for r in acme.resources("AWS::Lambda::LayerVersion").values()
        if "core package" in r["Properties"].get("Description", "")
    ]
    # The staged asset directory is named after the asset hash the layer's S3 key carries.
    staged = acme.outdir / f"asset.{layer['Properties']['Content']['S3Key'].removesuffix('.zip')}"
    shipped = {str(p.relative_to(staged)) for p in staged.rglob("*")}
    assert "python/agentmem/wiring/bootstrap.py" in shipped
    assert "python/agentmem/entrypoints/lambda_http.py" in shipped
    assert not [p for p in shipped if any(p == d or p.startswith(d + "/") for d in DEV_ONLY)]
    # ...while the dev install still has them.
    assert all((SHIPPED / path).exists() for path in DEV_ONLY)
