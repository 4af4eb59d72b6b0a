"""Lambda entry point for the read routes (beliefs, context, deep health, the OpenAPI document).

It builds every route, so the OpenAPI document served from here lists the whole API. The semantic
tier (OpenSearch, Bedrock, tiktoken) is still built on first use, not at import."""

from __future__ import annotations

from agentmem.api.app import build_resolver
from agentmem.entrypoints.lambda_http import http_handler, with_metrics
from agentmem.entrypoints.observability import configure
from agentmem.wiring.bootstrap import bootstrap

configure()
handler = http_handler(build_resolver(with_metrics(bootstrap())))
