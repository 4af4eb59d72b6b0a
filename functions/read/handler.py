"""Lambda entry point of the read function: beliefs, context reads, deep health, and the OpenAPI
document of the whole API (routes: agentmem.api.app)."""

from agentmem.entrypoints.lambda_http import lambda_handler

handler = lambda_handler("read")
