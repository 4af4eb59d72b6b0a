"""Lambda entry point of the skills function: the procedural library: functions, guidance, links,
search, review, Agent Skills import and export. Deployed only where the tier is switched on (routes:
agentmem.api.app)."""

from agentmem.entrypoints.lambda_http import lambda_handler

handler = lambda_handler("skills")
