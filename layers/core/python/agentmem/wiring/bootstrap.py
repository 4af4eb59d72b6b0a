"""The composition root: the one place that reads the backend setting and picks its factory."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Unpack

from agentmem.settings import Settings
from agentmem.wiring.ports import PortOverrides, Ports
from agentmem.wiring.services import Services

if TYPE_CHECKING:
    from agentmem.wiring.ports import BackendFactory

LAMBDA_MARKER = "AWS_LAMBDA_FUNCTION_NAME"


class BackendMisconfiguredError(RuntimeError):
    """The settings cannot work where this process runs; raised at start, before any request."""


def backend_factory(settings: Settings) -> BackendFactory:
    if settings.backend == "aws":
        from agentmem.adapters.aws.factory import AwsFactory

        return AwsFactory(settings)
    if os.environ.get(LAMBDA_MARKER):
        # A Lambda's disk is ephemeral and private to one instance: a local log there would
        # acknowledge writes that vanish with the instance and that no other function sees.
        raise BackendMisconfiguredError(
            f"Lambda function {os.environ[LAMBDA_MARKER]!r} started with AGENTMEM_BACKEND=local; "
            "a Lambda needs AGENTMEM_BACKEND=aws (the stack sets it)"
        )
    from agentmem.adapters.local.factory import LocalFactory

    return LocalFactory(settings)


def bootstrap(settings: Settings | None = None, **overrides: Unpack[PortOverrides]) -> Services:
    """The services for `settings` (read from the environment when omitted). Any port may be passed
    in (`event_log=...`, `embedder=...`, see PortOverrides); the backend's factory builds the rest,
    each on first use."""
    settings = settings or Settings.from_env()
    return Services(settings=settings, ports=Ports(backend_factory(settings), overrides))
