"""The tenant's REST API: SigV4 on every method, each route's function, access logs, throttling, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from aws_cdk.assertions import Match

from agentmem.api.app import build_resolver, openapi_document
from agentmem.settings import Settings
from agentmem.wiring import bootstrap
from tests.infra.conftest import Synth, only, resource_path

# Shares the session-scoped `acme` synth with test_stack.py (see the note there).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("infra")]

WRITE_ROUTES = {
    ("POST", "/v1/sessions/{session_id}/events"),
    ("GET", "/v1/sessions/{session_id}/events"),
    ("GET", "/v1/health"),
}
READ_ROUTES = {
    ("GET", "/v1/subjects/{subject_id}/beliefs"),
    ("GET", "/v1/subjects/{subject_id}/beliefs/{key}"),
    ("POST", "/v1/subjects/{subject_id}/beliefs/search"),
    ("GET", "/v1/health/deep"),
    ("POST", "/v1/context"),
    ("GET", "/v1/subjects/{subject_id}/export"),
    ("GET", "/v1/subjects/{subject_id}/sessions"),
    # Served by the read function, documenting every function's routes.
    ("GET", "/v1/openapi.json"),
}
ERASURE_ROUTES = {("DELETE", "/v1/subjects/{subject_id}"), ("GET", "/v1/erasures/{erasure_id}")}
SKILL_ROUTES = {
    *{(m, "/v1/functions") for m in ("POST", "GET")},
    *{(m, "/v1/functions/{function_id}") for m in ("GET", "PUT", "DELETE")},
    ("GET", "/v1/functions/{function_id}/closure"),
    ("POST", "/v1/functions/{function_id}/approve"),
    *{(m, "/v1/guidance") for m in ("POST", "GET")},
    *{(m, "/v1/guidance/{guidance_id}") for m in ("GET", "PUT", "DELETE")},
    ("POST", "/v1/guidance/{guidance_id}/approve"),
    ("GET", "/v1/guidance/{guidance_id}/export"),
    ("GET", "/v1/library/links"),
    ("POST", "/v1/library/links/{guidance_id}/{function_id}/confirm"),
    ("DELETE", "/v1/library/links/{guidance_id}/{function_id}"),
    *{("POST", f"/v1/library/{verb}") for verb in ("search", "review", "import")},
}
COMPOSE_ROUTES = {
    ("PUT", "/v1/assets"),
    ("GET", "/v1/assets/{asset_id}"),
    ("DELETE", "/v1/assets/{asset_id}"),
    ("PUT", "/v1/skills/{skill_id}"),
    ("GET", "/v1/skills/{skill_id}"),
    ("POST", "/v1/skills/{skill_id}/compose"),
    ("GET", "/v1/compose/reports/{report_id}"),  # a kept report, with what changed under it since
}


def test_every_api_method_requires_iam_auth(acme: Synth) -> None:
    methods = acme.resources("AWS::ApiGateway::Method")
    assert methods, "no API methods synthesized"
    not_iam = {
        logical_id: method["Properties"].get("AuthorizationType")
        for logical_id, method in methods.items()
        if method["Properties"]["HttpMethod"] != "OPTIONS"
        and method["Properties"].get("AuthorizationType") != "AWS_IAM"
    }
    assert not_iam == {}


def test_api_exposes_exactly_each_functions_routes_as_lambda_proxies(acme: Synth) -> None:
    resources = acme.template.to_json()["Resources"]
    routes: dict[str, set[tuple[str, str]]] = {}
    for method in acme.resources("AWS::ApiGateway::Method").values():
        props = method["Properties"]
        assert props["Integration"]["Type"] == "AWS_PROXY"
        route = (props["HttpMethod"], resource_path(resources, props["ResourceId"]["Ref"]))
        routes.setdefault(_function_of(props["Integration"]["Uri"]), set()).add(route)
    write_id, _ = only(
        acme.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp("write")})
    )
    read_id, _ = only(
        acme.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp("read")})
    )
    skills_id, _ = only(
        acme.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp("procedural")})
    )
    compose_id, _ = only(
        acme.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp("composer")})
    )
    erasure_id, _ = only(
        acme.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp("erasure")})
    )
    assert routes == {
        write_id: WRITE_ROUTES,
        read_id: READ_ROUTES,
        skills_id: SKILL_ROUTES,
        compose_id: COMPOSE_ROUTES,
        erasure_id: ERASURE_ROUTES,
    }


def test_the_deployed_routes_are_every_route_of_the_resolvers_openapi_document(
    acme: Synth, tmp_path: Path
) -> None:
    """One route table: what API Gateway routes is what the code serves and documents."""
    resources = acme.template.to_json()["Resources"]
    deployed = {
        (m["Properties"]["HttpMethod"], resource_path(resources, m["Properties"]["ResourceId"]["Ref"]))
        for m in acme.resources("AWS::ApiGateway::Method").values()
    }
    document = openapi_document(build_resolver(bootstrap(Settings(data_dir=tmp_path))))
    documented = {(method.upper(), path) for path, item in document["paths"].items() for method in item}
    assert deployed == documented


def _function_of(uri: dict[str, Any]) -> str:
    """The logical id of the function an AWS_PROXY integration URI (an Fn::Join) invokes."""
    (function_id,) = {str(part["Fn::GetAtt"][0]) for part in uri["Fn::Join"][1] if "Fn::GetAtt" in part}
    return function_id


def test_routes_require_their_path_parameters(acme: Synth) -> None:
    resources = acme.template.to_json()["Resources"]
    required = {}
    for method in acme.resources("AWS::ApiGateway::Method").values():
        props = method["Properties"]
        required[(props["HttpMethod"], resource_path(resources, props["ResourceId"]["Ref"]))] = props.get(
            "RequestParameters"
        )
        assert "RequestValidatorId" in props
    session = {"method.request.path.session_id": True}
    subject = {"method.request.path.subject_id": True}
    assert required == {
        ("POST", "/v1/sessions/{session_id}/events"): session,
        ("GET", "/v1/sessions/{session_id}/events"): session,
        ("GET", "/v1/subjects/{subject_id}/beliefs"): subject,
        ("GET", "/v1/subjects/{subject_id}/beliefs/{key}"): {**subject, "method.request.path.key": True},
        ("POST", "/v1/subjects/{subject_id}/beliefs/search"): subject,
        ("GET", "/v1/health"): None,
        ("GET", "/v1/health/deep"): None,
        ("POST", "/v1/context"): None,
        ("GET", "/v1/openapi.json"): None,
        **{route: _params(route[1]) for route in SKILL_ROUTES | COMPOSE_ROUTES | ERASURE_ROUTES},
        ("GET", "/v1/subjects/{subject_id}/export"): subject,
        ("GET", "/v1/subjects/{subject_id}/sessions"): subject,
    }


def _params(path: str) -> dict[str, bool] | None:
    """Every `{name}` in the path, required (the library routes spelled out in SKILL/COMPOSE_ROUTES)."""
    return {f"method.request.path.{name}": True for name in re.findall(r"{(\w+)}", path)} or None


def test_request_validator_checks_parameters_and_leaves_bodies_to_the_lambda(acme: Synth) -> None:
    # API Gateway body validation would answer 400 where the Lambda answers 422 naming the field.
    _, validator = only(acme.resources("AWS::ApiGateway::RequestValidator"))
    assert validator["Properties"]["ValidateRequestParameters"] is True
    assert not validator["Properties"].get("ValidateRequestBody")


def test_stage_writes_json_access_logs_and_is_throttled(acme: Synth) -> None:
    _, stage = only(acme.resources("AWS::ApiGateway::Stage"))
    props = stage["Properties"]
    assert props["StageName"] == "prod"
    assert props["TracingEnabled"] is True
    access_log = props["AccessLogSetting"]
    assert access_log["DestinationArn"]  # a log group ARN, built with Fn::Join
    # The format must be one JSON object per request; fill the $context placeholders to prove it parses.
    sample = json.loads(access_log["Format"].replace("$context.error.messageString", '"denied"'))
    assert {"requestId", "caller", "userArn", "status", "resourcePath"} <= sample.keys()
    (settings,) = props["MethodSettings"]
    assert settings["ThrottlingRateLimit"] == 50
    assert settings["ThrottlingBurstLimit"] == 100
    assert settings["LoggingLevel"] == "ERROR"
    assert settings["DataTraceEnabled"] is False


def test_api_gateway_errors_use_the_api_error_shape(acme: Synth) -> None:
    responses = acme.resources("AWS::ApiGateway::GatewayResponse")
    assert {r["Properties"]["ResponseType"] for r in responses.values()} == {"DEFAULT_4XX", "DEFAULT_5XX"}
    for response in responses.values():
        template = response["Properties"]["ResponseTemplates"]["application/json"]
        assert json.loads(template.replace("$context.error.messageString", '"x"'))["error"]["message"] == "x"


def test_outputs_name_the_api_url_tables_bucket_search_endpoint_and_dead_letters(acme: Synth) -> None:
    assert set(acme.template.to_json()["Outputs"]) == {
        "ApiUrl",
        "TableName",
        "BucketName",
        "VectorTableName",
        "SearchEndpoint",
        "ProjectorDeadLetterQueueUrl",
        "ErasureDeadLetterQueueUrl",
        "AlarmTopicArn",
        "DashboardName",
        "ReplayStateMachineArn",
        "ReplayOperatorRoleArn",
    }
