"""The Lambda Python runtime's shape on this machine, for bench/cold_start.py.

- **Layers.** The dependency layer is installed the way the layer build installs it
  (infra/constructs/layers.py: the same requirement files, `--no-compile`, the runtime's boto3 pruned,
  tiktoken's files seeded), but for this host's CPU and Python: the stack's arm64 / 3.12 wheels cannot
  run here. It is cached under bench/.cache by a hash of the requirement files. The core layer is
  layers/core/python without the dev tools (DEV_ONLY), copied from a source tree per run.
- **The runtime's boto3** (Lambda ships boto3 and botocore, compiled) is installed beside it at the
  version the dev lock pins, and compiled once.
- **Environment.** Each function's variables come from the synthesized tenant stack (`acme`), with
  the CloudFormation references replaced by the moto server's table, bucket and queue; the variables
  the Lambda runtime itself sets are added (LAMBDA_TASK_ROOT is what Powertools and the X-Ray SDK
  read to know they are in Lambda).
"""

from __future__ import annotations

import compileall
import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / ".cache" / "cold-start"
REGION = "us-east-1"
# The functions' logical ids in the template start with these (infra/stack.py's construct ids).
LOGICAL_PREFIXES = {
    "ApiWriteFunction": "write",
    "ReadFunction": "read",
    "ProjectorFunction": "projector",
    "ErasureFunction": "erasure",
    "SkillsFunction": "skills",
    "ComposeFunction": "compose",
}
RUNTIME_SDK = ("boto3", "botocore", "s3transfer")


@dataclass(frozen=True)
class Layers:
    deps: Path  # the dependency layer's python/ folder
    tiktoken: Path  # its /opt/tiktoken folder
    runtime: Path  # the runtime's boto3, botocore, s3transfer and their dependencies


def _pip(args: list[str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *args], check=True
    )


def build_layers() -> Layers:
    """The dependency layer and the runtime's SDK for this host, built once and cached."""
    from infra.constructs.layers import RUNTIME_PROVIDED, prune_distributions, seed_tiktoken

    deps_dir = ROOT / "layers" / "deps"
    requirements = [deps_dir / "requirements.txt", deps_dir / "requirements-no-deps.txt"]
    pins = [f"{name}=={metadata.version(name)}" for name in RUNTIME_SDK]
    key = hashlib.sha256(
        "\n".join([sys.version, *pins, *(path.read_text() for path in requirements)]).encode()
    ).hexdigest()[:16]
    base = CACHE / f"layers-{key}"
    layers = Layers(
        deps=base / "deps" / "python", tiktoken=base / "deps" / "tiktoken", runtime=base / "runtime"
    )
    if (base / "done").is_file():
        return layers
    shutil.rmtree(base, ignore_errors=True)
    print(f"building the layers for this host into {base.relative_to(ROOT)} (once)", flush=True)
    common = ["--no-compile", "--only-binary=:all:", "--target"]
    _pip([*common, str(layers.deps), "-r", str(requirements[0])])
    _pip([*common, str(layers.deps), "--no-deps", "-r", str(requirements[1])])
    prune_distributions(layers.deps, RUNTIME_PROVIDED)
    seed_tiktoken(layers.tiktoken)
    _pip(["--only-binary=:all:", "--target", str(layers.runtime), *pins])
    compileall.compile_dir(str(layers.runtime), quiet=2, workers=1)
    (base / "done").write_text(key)
    return layers


def core_layer(tree: Path, dest: Path) -> Path:
    """The core layer's python/ folder from source tree `tree` (a checkout of this repository), as
    the layer asset holds it: no dev tools, no bytecode."""
    from infra.constructs.layers import DEV_ONLY

    excluded = {tree / "layers" / "core" / path for path in DEV_ONLY}

    def ignore(directory: str, names: list[str]) -> list[str]:
        return [
            name
            for name in names
            if name == "__pycache__" or name.endswith(".pyc") or Path(directory, name) in excluded
        ]

    target = dest / "python"
    shutil.copytree(tree / "layers" / "core" / "python", target, ignore=ignore)
    return target


def stack_environments(
    placeholders: dict[str, str], config_context: dict[str, Any] | None = None
) -> dict[str, dict[str, Any]]:
    """Each function's memory size and environment, from a synth of the `acme` tenant stack (no
    bundling). A variable whose value is a CloudFormation reference takes `placeholders[name]`, or
    `<name>` when it has none."""
    import aws_cdk as cdk
    from aws_cdk.assertions import Template

    from infra.paths import CDK_JSON
    from infra.stack import build_tenant_app

    context = {
        **json.loads(CDK_JSON.read_text())["context"],
        "aws:cdk:bundling-stacks": [],
        "tenant": "acme",
        **(config_context or {}),
    }
    stack = build_tenant_app(cdk.App(context=context))
    functions: dict[str, dict[str, Any]] = {}
    for logical_id, resource in Template.from_stack(stack).find_resources("AWS::Lambda::Function").items():
        name = next((n for prefix, n in LOGICAL_PREFIXES.items() if logical_id.startswith(prefix)), None)
        if name is None:
            continue
        props = resource["Properties"]
        variables = props.get("Environment", {}).get("Variables", {})
        functions[name] = {
            "memory": int(props.get("MemorySize", 128)),
            "environment": {
                key: value if isinstance(value, str) else placeholders.get(key, f"<{key}>")
                for key, value in variables.items()
            },
        }
    return functions


def runtime_environment(function: str, memory: int, task_root: Path, endpoint: str) -> dict[str, str]:
    """What the Lambda runtime sets before the handler is imported (names as Lambda documents them);
    the AWS endpoint goes to the moto server, so boto3 is redirected at the network layer only."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "en_US.UTF-8",
        "TZ": ":UTC",
        "LAMBDA_TASK_ROOT": str(task_root),
        "LAMBDA_RUNTIME_DIR": str(task_root),
        "_HANDLER": "handler.handler",
        "AWS_EXECUTION_ENV": "AWS_Lambda_python3.12",
        "AWS_LAMBDA_FUNCTION_NAME": f"agentmem-acme-{function}",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(memory),
        "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_EC2_METADATA_DISABLED": "true",
        # Active tracing: the X-Ray SDK sends segments over UDP to the daemon; nothing listens here.
        "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
        "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:2000",
    }
