#!/usr/bin/env python3
"""CDK entry point: `cdk synth -c tenant=acme` builds the stack `agentmem-acme` (see infra/stack.py);
`cdk synth -c account=true` builds the one-time `agentmem-account` stack instead (infra/account.py), which
every tenant stack in the account and region relies on (docs/deploy.md).

cdk.json runs plain `python3 app.py` so it works on any machine. When that interpreter lacks aws-cdk-lib
and the project's .venv exists, this re-runs itself under .venv/bin/python (same argv, same environment,
so the CLI's context still arrives).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV_PYTHON = ROOT / ".venv" / "bin" / "python"
_REEXEC_MARKER = "AGENTMEM_APP_REEXEC"


def _ensure_cdk_importable() -> None:
    try:
        import aws_cdk  # noqa: F401
    except ModuleNotFoundError:
        # The marker stops a loop if the venv itself lacks aws-cdk-lib.
        if VENV_PYTHON.exists() and not os.environ.get(_REEXEC_MARKER):
            os.environ[_REEXEC_MARKER] = "1"
            os.execv(VENV_PYTHON, [str(VENV_PYTHON), __file__, *sys.argv[1:]])  # noqa: S606
        sys.exit("agentmem: aws-cdk-lib is not installed; run `make venv` (or activate .venv) first")


def main() -> None:
    _ensure_cdk_importable()
    # The project root must be importable as a package root (infra/) whichever directory cdk runs from.
    sys.path.insert(0, str(ROOT))
    import aws_cdk as cdk

    from infra.account import build_account_app
    from infra.config import TenantConfigError, wants_account_stack
    from infra.stack import build_tenant_app

    app = cdk.App()
    try:
        # One stack per app: `cdk deploy` then needs no stack name, and a tenant deploy never touches the
        # account-level settings.
        if wants_account_stack(app.node):
            build_account_app(app)
        else:
            build_tenant_app(app)
    except TenantConfigError as exc:
        sys.exit(str(exc))
    app.synth()


if __name__ == "__main__":
    main()
