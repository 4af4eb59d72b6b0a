"""Lambda entry point of the compose function: the composer: knowledge assets, authored skills, and
compose (routes: agentmem.api.app)."""

from agentmem.entrypoints.lambda_http import lambda_handler

handler = lambda_handler("compose")
