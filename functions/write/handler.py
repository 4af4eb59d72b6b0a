"""Lambda entry point for the log API: parse, call a service, map errors (all in agentmem.api)."""

from __future__ import annotations

from agentmem.api.app import build_resolver
from agentmem.api.lambda_entry import http_handler
from agentmem.bootstrap import bootstrap
from agentmem.observability import configure

configure()
handler = http_handler(build_resolver(bootstrap(), semantic=False))
