"""Lambda entry point for the composer's routes: knowledge assets, authored skills, and compose."""

from __future__ import annotations

from agentmem.api.app import build_resolver
from agentmem.api.lambda_entry import http_handler, with_metrics
from agentmem.bootstrap import bootstrap
from agentmem.observability import configure

configure()
handler = http_handler(build_resolver(with_metrics(bootstrap())))
