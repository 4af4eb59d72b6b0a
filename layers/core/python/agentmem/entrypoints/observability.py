"""Powertools Logger, Tracer and Metrics for the Lambda entry points and the local server.

The domain logs through stdlib `logging` with `extra=` keys; `configure()` copies the Powertools
JSON formatter onto those loggers so every line is structured, whichever layer wrote it."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers

SERVICE = "agentmem"

logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace=SERVICE, service=SERVICE)


def configure() -> None:
    copy_config_to_registered_loggers(source_logger=logger, include={"agentmem"})
