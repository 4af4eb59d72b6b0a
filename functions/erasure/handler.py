"""Lambda entry point for erasure: `DELETE /v1/subjects/{id}` and `GET /v1/erasures/{id}` from the
API, and the queue the accepted erasures wait in (agentmem.api.erasure_entry). Its role alone may
delete log items and blobs; the write function keeps none of that."""

from __future__ import annotations

from agentmem.api.erasure_entry import erasure_handler
from agentmem.api.lambda_entry import with_metrics
from agentmem.bootstrap import bootstrap
from agentmem.observability import configure

configure()
handler = erasure_handler(with_metrics(bootstrap()))
