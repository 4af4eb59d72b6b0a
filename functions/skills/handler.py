"""Lambda entry point for the procedural tier's routes: functions, guidance, links, search,
review, and Agent Skills import and export. Deployed only where the tier is switched on."""

from __future__ import annotations

from agentmem.api.app import build_resolver
from agentmem.entrypoints.lambda_http import http_handler, with_metrics
from agentmem.entrypoints.observability import configure
from agentmem.wiring.bootstrap import bootstrap

configure()
handler = http_handler(build_resolver(with_metrics(bootstrap())))
