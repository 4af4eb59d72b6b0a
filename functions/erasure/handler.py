"""Lambda entry point for erasure: `DELETE /v1/subjects/{id}` and `GET /v1/erasures/{id}` from the
API, and the queue the accepted erasures wait in (agentmem.entrypoints.erasure). Its role alone may
delete log items and blobs; the write function keeps none of that."""

from __future__ import annotations

from agentmem.entrypoints.erasure import erasure_handler
from agentmem.entrypoints.lambda_http import with_metrics
from agentmem.entrypoints.observability import configure
from agentmem.wiring import bootstrap

configure()
handler = erasure_handler(with_metrics(bootstrap()))
