"""Fixtures shared by the functional tests of the procedural routes."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentmem.api.app import build_resolver
from agentmem.compose.evaluate import load_catalogue
from agentmem.demo.eval_run import install, sample_folder
from agentmem.ports.procedural import SkillLibrary
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.conftest import FakeLambdaContext

Call = Callable[..., tuple[int, Any]]
AUTHOR = "writer,analyst,finance"
"""Who `api` calls act as unless told otherwise: the catalogue's publisher, a writer
(Settings.writer_principals' default) that reads every group of the sample catalogue, since most
tests author something first. `principals=None` calls anonymously."""


@pytest.fixture
def library(services: Services) -> SkillLibrary:
    """The library the API itself wires (services.skills), so tests can look behind the routes."""
    return services.skills


def proxy_event(
    method: str,
    path: str,
    body: Any = None,
    query: dict[str, str] | None = None,
    principals: str | None = AUTHOR,
    role: str | None = None,
) -> dict[str, Any]:
    """An API Gateway proxy event as `principals` (a comma list in the authorizer context; None
    for no authorizer context at all) and, when given, the authorizer's `role` claim."""
    # As an authorizer (or the local server) passes them: never in the request body.
    context: dict[str, Any] = {"httpMethod": method, "path": path, "stage": "prod", "requestId": "r"}
    authorizer: dict[str, str] = {}
    if principals is not None:
        authorizer["principals"] = principals
    if role is not None:
        authorizer["role"] = role
    if authorizer:
        context["authorizer"] = authorizer
    return {
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": {"Content-Type": "application/json", "Accept": "application/json"},
        "multiValueHeaders": {},
        "queryStringParameters": query,
        "multiValueQueryStringParameters": {k: [v] for k, v in query.items()} if query else None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": context,
        "body": json.dumps(body) if body is not None else None,
        "isBase64Encoded": False,
    }


def catch_up_indexes(services: Services) -> None:
    """What the projector worker does each round for the skill and asset indexes (the beliefs
    are left to the tests that project): after it, every write so far is searchable."""
    for sync in services.index_syncs():
        sync()


@pytest.fixture
def api(services: Services) -> Call:
    """(status, JSON body) of one request through the real resolver; arguments as proxy_event's.
    After each write the indexes catch up, as the worker would between two requests."""
    app = build_resolver(services)

    def call(method: str, path: str, body: Any = None, **options: Any) -> tuple[int, Any]:
        result = app.resolve(proxy_event(method, path, body, **options), FakeLambdaContext())
        if method != "GET":
            catch_up_indexes(services)
        return result["statusCode"], json.loads(result["body"] or "null")

    return call


@pytest.fixture(scope="module")
def installed_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample catalogue installed and indexed once per module, as a data dir to copy."""
    data_dir = tmp_path_factory.mktemp("sample") / "data"
    services = bootstrap(Settings(data_dir=data_dir))
    install(services, load_catalogue(sample_folder()))
    services.composer.indexer.sync()
    return data_dir


@pytest.fixture
def sample_services(installed_sample: Path, settings: Settings) -> Services:
    """A private copy of the installed sample catalogue, wired like any deployment."""
    shutil.copytree(installed_sample, settings.data_dir)
    return bootstrap(settings)
