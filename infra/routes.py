"""The one route table: the routes API Gateway sends to each function are read from that function's
resolver (agentmem.api.app), through its OpenAPI document, so a route added in code is deployed
with no second list to keep in step."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

from agentmem.api.app import FunctionName, routes_of
from agentmem.settings import Settings
from agentmem.wiring import bootstrap


@cache
def function_routes(function: FunctionName) -> list[tuple[str, str]]:
    """(HTTP method, path) of each route of `function`, paths in API Gateway's `{param}` form."""
    with tempfile.TemporaryDirectory(prefix="agentmem-routes-") as tmp:
        # Building a resolver registers routes only: no port is built, nothing is opened.
        return routes_of(function, bootstrap(Settings(data_dir=Path(tmp))))
