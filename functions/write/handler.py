"""Lambda entry point for the log API: parse, call a service, map errors (all in agentmem.api)."""

from __future__ import annotations

from agentmem.api.app import build_resolver
from agentmem.entrypoints.lambda_http import http_handler
from agentmem.entrypoints.observability import configure
from agentmem.wiring.bootstrap import bootstrap

configure()
handler = http_handler(build_resolver(bootstrap(), semantic=False))
