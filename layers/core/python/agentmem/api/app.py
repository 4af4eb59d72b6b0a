"""Build the API resolver. The Lambda handlers and `agentmem serve` both call `build_resolver`,
so validation, routing and error mapping are the same code everywhere."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

from agentmem import __version__
from agentmem.api.errors import register_error_handlers
from agentmem.api.json_body import parse_json_body
from agentmem.api.principals import CallerRules
from agentmem.api.routes.episodic import episodic_router
from agentmem.bootstrap import Services

OPENAPI_PATH = "/v1/openapi.json"


class AgentMemResolver(APIGatewayRestResolver):
    """The Powertools REST resolver, made safe for a threaded server and strict about JSON.

    Powertools publishes the current event as a class attribute of BaseRouter (fine in Lambda,
    one event per process at a time), so two threads resolving at once read each other's
    requests. Here the event and context live in a thread-local, and the local server also
    gives each in-flight request its own resolver instance for Powertools' per-instance context."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._request = threading.local()

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
        return refusal if refusal is not None else super().resolve(event, context)


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


def build_resolver(services: Services, *, semantic: bool = True) -> AgentMemResolver:
    """All routes; the write Lambda passes `semantic=False` so its cold start never loads the
    routes of the other tiers (their handlers import nothing heavy, but needn't exist there)."""
    app = AgentMemResolver(enable_validation=True, json_body_deserializer=parse_json_body)
    callers = CallerRules.from_settings(services.settings)
    register_error_handlers(app, procedural_enabled=services.settings.procedural_enabled)
    app.include_router(episodic_router(services))
    if semantic:
        from agentmem.api.routes.beliefs import beliefs_router
        from agentmem.api.routes.context import context_router
        from agentmem.api.routes.health import health_router
        from agentmem.api.routes.subjects import subjects_router

        app.include_router(beliefs_router(services))
        app.include_router(subjects_router(services, callers))
        app.include_router(context_router(services))
        app.include_router(health_router(services))
        from agentmem.api.routes.browse import browse_routes

        app.include_router(browse_routes(services))
        if services.settings.procedural_enabled:
            from agentmem.api.routes.skill_transfer import skill_transfer_router
            from agentmem.api.routes.skills import skills_router

            app.include_router(skills_router(lambda: services.skills, lambda: services.skill_search, callers))
            app.include_router(
                skill_transfer_router(lambda: services.skills, lambda: services.skill_review, callers)
            )
        from agentmem.api.routes.compose import compose_router

        app.include_router(
            compose_router(
                lambda: services.composer,
                callers,
                procedural_enabled=services.settings.procedural_enabled,
            )
        )

    @app.get("/v1/health", summary="Liveness and configuration", tags=["ops"])
    def health() -> dict[str, Any]:
        settings = services.settings
        return {
            "status": "ok",
            "version": __version__,
            "backend": settings.backend,
            "tenant": settings.tenant_id,
        }

    @app.get(OPENAPI_PATH, summary="This API's OpenAPI document", tags=["ops"])
    def openapi() -> dict[str, Any]:
        return openapi_document(app)

    return app


def openapi_document(app: APIGatewayRestResolver) -> dict[str, Any]:
    schema = app.get_openapi_schema(title="agentmem", version=__version__)
    document: dict[str, Any] = schema.model_dump(mode="json", by_alias=True, exclude_none=True)
    return document
