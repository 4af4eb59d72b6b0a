"""Asset locations, resolved from this file so synth works from any working directory."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
LAYERS_DIR = PROJECT_ROOT / "layers"
FUNCTIONS_DIR = PROJECT_ROOT / "functions"
CDK_JSON = PROJECT_ROOT / "cdk.json"
# tenants/<tenant>.json: a tenant's deployment settings, the same keys as CDK context (infra/config.py).
TENANTS_DIR = PROJECT_ROOT / "tenants"

# Never ship bytecode or build metadata: it is host-specific and changes the asset hash on every run.
ASSET_EXCLUDES = ["**/__pycache__", "**/*.pyc", "**/*.egg-info", "**/.DS_Store"]
