"""Shared fixtures: settings over a temp data dir, wired services, sample events by name."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

ROOT = Path(__file__).resolve().parent.parent
EVENTS = ROOT / "events"

# Nothing in the suite may reach a real AWS account: these make any accidental call fail fast.
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ACCOUNT_ID_ENDPOINT_MODE", "disabled")
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "1")
os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "agentmem")
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")


@pytest.fixture(autouse=True)
def isolated_agentmem_loggers() -> Iterator[None]:
    """A Lambda entry point calls `observability.configure()` at import, which gives the agentmem
    loggers Powertools' handler and stops them propagating: every later test in the same worker
    would then see nothing in caplog. Each test starts from, and leaves, the loggers as they were."""
    registry = logging.root.manager.loggerDict
    saved = {
        name: (lg.handlers[:], lg.propagate, lg.level)
        for name, lg in list(registry.items())
        if isinstance(lg, logging.Logger) and (name == "agentmem" or name.startswith("agentmem."))
    }
    yield
    for name, lg in list(registry.items()):
        if isinstance(lg, logging.Logger) and (name == "agentmem" or name.startswith("agentmem.")):
            handlers, propagate, level = saved.get(name, ([], True, logging.NOTSET))
            lg.handlers, lg.propagate, lg.level = handlers, propagate, level


TIERS = ("unit", "contract", "functional", "infra")
"""Each test directory is a tier, marked by its name: `pytest -m unit` runs the fast pure tier."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = next((part for part in Path(str(item.path)).relative_to(ROOT).parts if part in TIERS), None)
        if tier is not None:
            item.add_marker(getattr(pytest.mark, tier))


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data")


@pytest.fixture
def services(settings: Settings) -> Services:
    return bootstrap(settings)


def load_event(name: str, **overrides: Any) -> dict[str, Any]:
    """A sample API Gateway event from events/, with top-level keys replaced by `overrides`."""
    event: dict[str, Any] = json.loads((EVENTS / name).read_text())
    event.update(overrides)
    return event


@pytest.fixture
def api_event() -> Callable[..., dict[str, Any]]:
    return load_event


class FakeLambdaContext:
    function_name = "agentmem-write"
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:agentmem-write"
    aws_request_id = "0f6c1a3e-test"

    def get_remaining_time_in_millis(self) -> int:
        return 10_000


@pytest.fixture
def lambda_context() -> FakeLambdaContext:
    return FakeLambdaContext()


@pytest.fixture
def call_api(services: Services) -> Iterator[Callable[..., dict[str, Any]]]:
    """Resolve an API Gateway event through the real resolver; returns status, headers and JSON body."""
    from agentmem.api.app import build_resolver

    app = build_resolver(services)

    def call(event: dict[str, Any]) -> dict[str, Any]:
        result = app.resolve(event, FakeLambdaContext())  # type: ignore[arg-type]
        headers = {k.lower(): v for k, v in (result.get("headers") or {}).items()}
        for k, values in (result.get("multiValueHeaders") or {}).items():
            headers[k.lower()] = values[-1]
        return {
            "status": result["statusCode"],
            "headers": headers,
            "json": json.loads(result["body"] or "null"),
        }

    yield call


def pytest_report_header() -> str:
    """Says at the top of every run whether the browser tests (tests/browser) can run."""
    from tests.browser.conftest import CHROMIUM, SKIP_REASON, chromium_available

    return f"browser tests: Chromium at {CHROMIUM}" if chromium_available() else SKIP_REASON
