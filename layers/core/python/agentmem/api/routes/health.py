"""`GET /v1/health/deep`: 200 when the semantic tier really searches by meaning and projection keeps
up, 503 when not. A failing projection is a 503 although reads still answer (from the log's
events and passages): the check says whether the tier does its whole job, and a load balancer's
liveness probe is `/v1/health`, which stays 200."""

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
        summary="Vector index populated, a paraphrase probe retrieves the right belief, a sample"
        " of beliefs agrees with the log, and projection is not failing",
        responses={
            200: {"description": "Healthy.", "content": {"application/json": {"model": DeepHealth}}},
            503: {
                "description": "Failing; `problems` says why, and `projection` how far beliefs lag.",
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
