"""Build the API resolver. The Lambda handlers and `agentmem serve` both call `build_resolver`,
so validation, routing and error mapping are the same code everywhere."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import Any, Literal, get_args

from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

from agentmem import __version__
from agentmem.api.errors import register_error_handlers
from agentmem.api.json_body import parse_json_body
from agentmem.api.principals import CallerRules
from agentmem.api.routes.episodic import episodic_router
from agentmem.semantic.foreground import Foreground
from agentmem.wiring import Services

OPENAPI_PATH = "/v1/openapi.json"


class AgentMemResolver(APIGatewayRestResolver):
    """The Powertools REST resolver, made safe for a threaded server and strict about JSON.

    Powertools publishes the current event as a class attribute of BaseRouter (fine in Lambda,
    one event per process at a time), so two threads resolving at once read each other's
    requests. Here the event and context live in a thread-local, and the local server also
    gives each in-flight request its own resolver instance for Powertools' per-instance context."""

    def __init__(self, *, foreground: Foreground | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._request = threading.local()
        self._foreground = foreground

    @property  # type: ignore[override]
    def current_event(self) -> APIGatewayProxyEvent:
        event: APIGatewayProxyEvent = self._request.event
        return event

    @current_event.setter
    def current_event(self, value: APIGatewayProxyEvent) -> None:
        self._request.event = value

    @property
    def lambda_context(self) -> Any:
        return self._request.context

    @lambda_context.setter
    def lambda_context(self, value: Any) -> None:
        self._request.context = value

    def resolve(self, event: Mapping[str, Any], context: Any) -> dict[str, Any]:
        self.current_event = APIGatewayProxyEvent(dict(event), parse_json_body)
        self.lambda_context = context
        refusal = refuse_non_json(event)
        if refusal is not None:
            return refusal
        if self._foreground is None:
            return super().resolve(event, context)
        with self._foreground.serving():  # a background projector in this process waits
            return super().resolve(event, context)


def refuse_non_json(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """A 415 for a body that is not JSON. Powertools would parse a form-encoded body (curl's
    default) as a form and report every field missing; naming the content type is clearer."""
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    content_type = (headers.get("content-type") or "application/json").split(";")[0].strip().lower()
    if not event.get("body") or content_type == "application/json" or content_type.endswith("+json"):
        return None
    error = {
        "code": "unsupported_media_type",
        "message": f"send JSON with content-type application/json, not {content_type}",
        "field": "content-type",
    }
    return {
        "statusCode": 415,
        "headers": {"Content-Type": "application/json"},
        "multiValueHeaders": {},
        "body": json.dumps({"error": error}),
        "isBase64Encoded": False,
    }


FunctionName = Literal["write", "read", "skills", "compose", "erasure"]
"""The HTTP Lambda functions; API Gateway sends each exactly the routes its resolver registers
(infra derives the routes from `routes_of`)."""
FUNCTIONS: tuple[FunctionName, ...] = get_args(FunctionName)


def _write_routes(app: AgentMemResolver, services: Services) -> None:
    callers = CallerRules.from_settings(services.settings)
    app.include_router(episodic_router(lambda: services.episodic, callers))

    @app.get("/v1/health", summary="Liveness and configuration", tags=["ops"])
    def health() -> dict[str, Any]:
        settings = services.settings
        return {
            "status": "ok",
            "version": __version__,
            "backend": settings.backend,
            "tenant": settings.tenant_id,
        }


def _read_routes(app: AgentMemResolver, services: Services) -> None:
    from agentmem.api.routes.beliefs import beliefs_router
    from agentmem.api.routes.browse import sessions_router
    from agentmem.api.routes.context import context_router
    from agentmem.api.routes.health import health_router
    from agentmem.api.routes.subjects import export_router
    from agentmem.semantic.health import deep_health

    app.include_router(beliefs_router(lambda: services.semantic))
    app.include_router(context_router(lambda: services.context))
    callers = CallerRules.from_settings(services.settings)
    app.include_router(export_router(lambda: services.subject_export, callers))
    app.include_router(sessions_router(lambda: services.ports.subject_log))
    app.include_router(
        health_router(
            lambda: deep_health(
                services.semantic, services.event_log, extract=services.reproducible_extraction()
            )
        )
    )

    document: dict[str, Any] = {}

    @app.get(OPENAPI_PATH, summary="This API's OpenAPI document", tags=["ops"])
    def openapi() -> dict[str, Any]:
        # The whole API's, not only this function's routes: built on the first request.
        if not document:
            document.update(openapi_document(build_resolver(services)))
        return document


def _skills_routes(app: AgentMemResolver, services: Services) -> None:
    if not services.settings.procedural_enabled:
        return
    from agentmem.api.routes.browse import library_listing_router
    from agentmem.api.routes.library import library_router
    from agentmem.api.routes.library_transfer import library_transfer_router

    callers = CallerRules.from_settings(services.settings)
    app.include_router(
        library_router(
            lambda: services.skills, lambda: services.skill_search, callers, lambda: services.citations
        )
    )
    app.include_router(library_listing_router(lambda: services.skills))
    app.include_router(
        library_transfer_router(
            lambda: services.skills, lambda: services.skill_review, callers, lambda: services.citations
        )
    )


def _compose_routes(app: AgentMemResolver, services: Services) -> None:
    from agentmem.api.routes.compose import compose_router

    callers = CallerRules.from_settings(services.settings)
    app.include_router(compose_router(lambda: services.composer, callers, lambda: services.citations))


def _erasure_routes(app: AgentMemResolver, services: Services) -> None:
    from agentmem.api.routes.subjects import erasure_router

    callers = CallerRules.from_settings(services.settings)
    app.include_router(erasure_router(lambda: services.erasure, callers))


_ROUTES: dict[FunctionName, Callable[[AgentMemResolver, Services], None]] = {
    "write": _write_routes,
    "read": _read_routes,
    "skills": _skills_routes,
    "compose": _compose_routes,
    "erasure": _erasure_routes,
}


def build_resolver(services: Services, *, function: FunctionName | None = None) -> AgentMemResolver:
    """The routes of one Lambda `function`, or every route (the local server, tests). A function's
    resolver registers only its own routes, so its cold start never loads the others' modules."""
    app = AgentMemResolver(
        foreground=services.foreground, enable_validation=True, json_body_deserializer=parse_json_body
    )
    register_error_handlers(app, procedural_enabled=services.settings.procedural_enabled)
    for name in FUNCTIONS if function is None else (function,):
        _ROUTES[name](app, services)
    return app


def routes_of(function: FunctionName, services: Services) -> list[tuple[str, str]]:
    """(HTTP method, path) of every route `function` serves, as API Gateway names them
    (`/v1/functions/{function_id}`): the one route table infra builds the REST API from."""
    paths: dict[str, dict[str, Any]] = openapi_document(build_resolver(services, function=function))["paths"]
    return sorted((method.upper(), path) for path, methods in paths.items() for method in methods)


def openapi_document(app: APIGatewayRestResolver) -> dict[str, Any]:
    schema = app.get_openapi_schema(title="agentmem", version=__version__)
    document: dict[str, Any] = schema.model_dump(mode="json", by_alias=True, exclude_none=True)
    return document
