"""Powertools Logger, Tracer and Metrics for the Lambda entry points and the local server.

The domain logs through stdlib `logging` with `extra=` keys; `configure()` copies the Powertools
JSON formatter onto those loggers so every line is structured, whichever layer wrote it.

The Tracer is built only for a handler that is traced: building one imports the X-Ray SDK and patches
botocore and the HTTP libraries, even where Powertools then disables tracing (outside Lambda, or with
POWERTOOLS_TRACE_DISABLED), and that import was the largest part of the write function's init
(docs/deploy.md, "Cold start"). A function whose stack sets POWERTOOLS_TRACE_DISABLED never loads it;
Lambda's active tracing still records its invocations."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar, cast

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers
from aws_lambda_powertools.shared import constants
from aws_lambda_powertools.shared.functions import resolve_truthy_env_var_choice

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

SERVICE = "agentmem"

logger = Logger(service=SERVICE)
metrics = Metrics(namespace=SERVICE, service=SERVICE)

Handler = TypeVar("Handler", bound=Callable[..., Any])


def configure() -> None:
    copy_config_to_registered_loggers(source_logger=logger, include={"agentmem"})


def tracing_enabled() -> bool:
    """Whether Powertools would trace here: in Lambda (not SAM local or chalice) and not switched off
    with POWERTOOLS_TRACE_DISABLED (the same rules as Tracer's own check)."""
    if resolve_truthy_env_var_choice(env=os.getenv(constants.TRACER_DISABLED_ENV, "false")):
        return False
    emulated = os.getenv(constants.SAM_LOCAL_ENV) or os.getenv(constants.CHALICE_LOCAL_ENV)
    return bool(os.getenv(constants.LAMBDA_TASK_ROOT_ENV)) and not emulated


@cache
def tracer() -> Tracer:
    from aws_lambda_powertools import Tracer

    return Tracer(service=SERVICE)


def traced(handler: Handler) -> Handler:
    """`handler` inside Tracer.capture_lambda_handler where tracing is on; as it is elsewhere, without
    importing the X-Ray SDK."""
    if not tracing_enabled():
        return handler
    return cast("Handler", tracer().capture_lambda_handler(handler))
