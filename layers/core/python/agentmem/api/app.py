"""Build the API resolver. The Lambda handlers and `agentmem serve` both call `build_resolver`,
so validation, routing and error mapping are the same code everywhere."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver

from agentmem import __version__
from agentmem.api.errors import register_error_handlers
from agentmem.api.routes.episodic import episodic_router
from agentmem.bootstrap import Services

OPENAPI_PATH = "/v1/openapi.json"


class JsonOnlyResolver(APIGatewayRestResolver):
    """The API speaks JSON only. Powertools would parse a form-encoded body (curl's default) as a
    form and report every field missing; a 415 that says what to send is the clearer answer."""

    def resolve(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
        content_type = (headers.get("content-type") or "application/json").split(";")[0].strip().lower()
        if event.get("body") and not (content_type == "application/json" or content_type.endswith("+json")):
            body = {
                "error": {
                    "code": "unsupported_media_type",
                    "message": f"send JSON with content-type application/json, not {content_type}",
                    "field": "content-type",
                }
            }
            return {
                "statusCode": 415,
                "headers": {"Content-Type": "application/json"},
                "multiValueHeaders": {},
                "body": json.dumps(body),
                "isBase64Encoded": False,
            }
        return super().resolve(event, context)


def build_resolver(services: Services) -> JsonOnlyResolver:
    app = JsonOnlyResolver(enable_validation=True)
    register_error_handlers(app)
    app.include_router(episodic_router(services))

    @app.get("/v1/health", summary="Liveness and configuration", tags=["ops"])
    def health() -> dict[str, Any]:
        settings = services.settings
        return {"status": "ok", "version": __version__, "backend": settings.backend, "tenant": settings.tenant_id}

    @app.get(OPENAPI_PATH, summary="This API's OpenAPI document", tags=["ops"], include_in_schema=False)
    def openapi() -> dict[str, Any]:
        return openapi_document(app)

    return app


def openapi_document(app: APIGatewayRestResolver) -> dict[str, Any]:
    schema = app.get_openapi_schema(title="agentmem", version=__version__)
    document: dict[str, Any] = schema.model_dump(mode="json", by_alias=True, exclude_none=True)
    return document
