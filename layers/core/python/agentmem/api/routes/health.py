"""`GET /v1/health/deep`: 200 when the semantic tier really searches by meaning, 503 when not."""

from __future__ import annotations

from collections.abc import Callable

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.router import APIGatewayRouter

from agentmem.model.api_beliefs import DeepHealth


def health_router(check: Callable[[], DeepHealth]) -> APIGatewayRouter:
    """`check` runs the deep health check (agentmem.semantic.health.deep_health) on the wired tier."""
    router = APIGatewayRouter()

    @router.get(
        "/v1/health/deep",
        summary="Vector index populated, a paraphrase probe retrieves the right belief, and a sample"
        " of beliefs agrees with the log",
        responses={
            200: {"description": "Healthy.", "content": {"application/json": {"model": DeepHealth}}},
            503: {
                "description": "Failing; `problems` says why.",
                "content": {"application/json": {"model": DeepHealth}},
            },
        },
        tags=["ops"],
    )
    def health_deep() -> Response[DeepHealth]:
        report = check()
        status = 200 if report.status == "ok" else 503
        return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=report)

    return router
