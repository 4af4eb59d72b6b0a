"""Lambda entry point of the write function: the episodic log: append and page through a session's
events, and liveness (routes: agentmem.api.app)."""

from agentmem.entrypoints.lambda_http import lambda_handler

handler = lambda_handler("write")
