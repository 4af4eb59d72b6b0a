"""The tenant's REST API (IAM-authorized, access-logged) and the write function behind it."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import aws_cdk as cdk
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.config import TenantConfig
from infra.constructs.functions import AgentmemFunction
from infra.constructs.layers import Layers
from infra.constructs.storage import Storage
from infra.nag import acknowledge, logical_ref
from infra.paths import FUNCTIONS_DIR
from infra.routes import function_routes

# Routes carry the /v1 version themselves, so the stage is not named after a version.
STAGE_NAME = "prod"
_PATH_PARAM = re.compile(r"{(\w+)}")

# API Gateway's own errors (IAM denial, throttling, missing route) answer in the API's error shape too.
_ERROR_TEMPLATE = (
    '{"error": {"code": "$context.error.responseType", "message": $context.error.messageString}}'
)

_ACCESS_LOG_FIELDS = {
    "requestId": apigw.AccessLogField.context_request_id(),
    "extendedRequestId": apigw.AccessLogField.context_extended_request_id(),
    "requestTime": apigw.AccessLogField.context_request_time(),
    "ip": apigw.AccessLogField.context_identity_source_ip(),
    "caller": apigw.AccessLogField.context_identity_caller(),
    "userArn": apigw.AccessLogField.context_identity_user_arn(),
    "httpMethod": apigw.AccessLogField.context_http_method(),
    "resourcePath": apigw.AccessLogField.context_resource_path(),
    "path": apigw.AccessLogField.context_path(),
    "status": apigw.AccessLogField.context_status(),
    "responseLength": apigw.AccessLogField.context_response_length(),
    "responseLatency": apigw.AccessLogField.context_response_latency(),
    "integrationLatency": apigw.AccessLogField.context_integration_latency(),
    "xrayTraceId": apigw.AccessLogField.context_xray_trace_id(),
    "error": apigw.AccessLogField.context_error_message_string(),
}
# Every value is quoted ("-" stands in for a missing one) except the error, which API Gateway escapes and
# quotes itself: a raw $context.error.message could contain quotes and break the JSON line.
_ACCESS_LOG_FORMAT = json.dumps(_ACCESS_LOG_FIELDS).replace(
    json.dumps(apigw.AccessLogField.context_error_message_string()),
    apigw.AccessLogField.context_error_message_string(),
)


class Api(Construct):
    """REST API whose every method requires SigV4 (IAM), with the write function behind it.

    Add a later function's routes with `add_routes(fn, [("GET", "/v1/..."), ...])`.
    """

    def __init__(
        self, scope: Construct, construct_id: str, *, config: TenantConfig, storage: Storage, layers: Layers
    ) -> None:
        super().__init__(scope, construct_id)
        self._config = config
        self.write_function = self._build_write_function(storage, layers)
        self.access_logs = self._build_access_logs()
        self.rest_api = self._build_rest_api()
        # Parameters only. With body validation on, API Gateway checks bodies against its "Empty" model even
        # when a method sets none, and answers a generic 400 where the Lambda (and the local server) answer
        # 422 naming the field. One validator for both would make the deployed API differ from the local one.
        self._validator = self.rest_api.add_request_validator(
            "RequestValidator", validate_request_parameters=True
        )
        acknowledge(
            self.rest_api,
            "AwsSolutions-APIG2",
            "Path parameters are validated at the edge; bodies by the Lambda, whose 422 names the bad field.",
        )
        self._add_error_responses()
        self.add_routes(self.write_function.invocable, function_routes("write"))
        self.api_keys = self._build_usage_plan()

    @property
    def url(self) -> str:
        return self.rest_api.url

    def add_routes(
        self, function: lambda_.IFunction, routes: Sequence[tuple[str, str]]
    ) -> list[apigw.Method]:
        """Proxy each (HTTP method, path) to `function`; path parameters like `{session_id}` are required."""
        # No test-invoke permission: one Lambda permission per method is enough, and the policy stays small.
        integration = apigw.LambdaIntegration(function, allow_test_invoke=False)
        methods = []
        for http_method, path in routes:
            resource = self.rest_api.root.resource_for_path(path)
            required = {f"method.request.path.{name}": True for name in _PATH_PARAM.findall(path)}
            methods.append(
                resource.add_method(
                    http_method,
                    integration,
                    authorization_type=apigw.AuthorizationType.IAM,
                    request_validator=self._validator,
                    request_parameters=required or None,
                )
            )
        return methods

    def _build_write_function(self, storage: Storage, layers: Layers) -> AgentmemFunction:
        write = AgentmemFunction(
            self,
            "WriteFunction",
            config=self._config,
            code_dir=FUNCTIONS_DIR / "write",
            layers=layers.all,
            description="agentmem write path: append events to the log, large payloads to S3",
            environment={
                "AGENTMEM_TABLE_NAME": storage.table.table_name,
                "AGENTMEM_BUCKET_NAME": storage.bucket.bucket_name,
                "AGENTMEM_INLINE_MAX_BYTES": str(self._config.inline_max_bytes),
                # The append path's init without the X-Ray SDK (docs/deploy.md, "Cold start"): Lambda's
                # active tracing still records each invocation; only the SDK's DynamoDB subsegments go.
                "POWERTOOLS_TRACE_DISABLED": "true",
            },
        )
        storage.grant_log_read_append(write.function)
        storage.grant_blob_read_put(write.function)
        acknowledge(
            write,
            "AwsSolutions-IAM5",
            "Blob keys are content hashes known only at write time; the bucket belongs to this tenant alone.",
            f"Resource::{logical_ref(storage.bucket)}/*",
        )
        return write

    def _build_access_logs(self) -> logs.LogGroup:
        return logs.LogGroup(
            self,
            "AccessLogs",
            retention=logs.RetentionDays.ONE_MONTH,
            removal_policy=cdk.RemovalPolicy.RETAIN if self._config.retain else cdk.RemovalPolicy.DESTROY,
        )

    def _build_rest_api(self) -> apigw.RestApi:
        api = apigw.RestApi(
            self,
            "RestApi",
            rest_api_name=self._config.stack_name,
            description=f"agentmem API for tenant {self._config.tenant}",
            # Callers are agents signing with SigV4, not browsers: no CORS, no edge distribution.
            endpoint_types=[apigw.EndpointType.REGIONAL],
            default_method_options=apigw.MethodOptions(
                authorization_type=apigw.AuthorizationType.IAM,
                # With a usage plan, every method needs an API key of the plan as well as SigV4.
                api_key_required=self._config.usage_plan is not None,
            ),
            # Access logging needs API Gateway's CloudWatch role, an account setting (one per region): the
            # account stack sets it once (infra/account.py); a tenant stack must not override it.
            cloud_watch_role=False,
            deploy_options=apigw.StageOptions(
                stage_name=STAGE_NAME,
                access_log_destination=apigw.LogGroupLogDestination(self.access_logs),
                access_log_format=apigw.AccessLogFormat.custom(_ACCESS_LOG_FORMAT),
                # ERROR, not INFO, and no data trace: execution logs must not copy agent payloads.
                logging_level=apigw.MethodLoggingLevel.ERROR,
                data_trace_enabled=False,
                metrics_enabled=True,
                tracing_enabled=True,
                throttling_rate_limit=self._config.throttle_rate_limit,
                throttling_burst_limit=self._config.throttle_burst_limit,
            ),
        )
        # RestApi adds an `Endpoint` output of its own; the stack's `ApiUrl` is the one stable name.
        api.node.try_remove_child("Endpoint")
        acknowledge(
            api,
            "AwsSolutions-COG4",
            "All methods use IAM (SigV4) auth: callers are agents with IAM roles, not Cognito users.",
        )
        acknowledge(
            api,
            "AwsSolutions-APIG3",
            "No WAF per tenant stack yet: every method already requires SigV4 and the stage is throttled.",
        )
        return api

    def _add_error_responses(self) -> None:
        for response_id, response_type in (
            ("Default4xx", apigw.ResponseType.DEFAULT_4_XX),
            ("Default5xx", apigw.ResponseType.DEFAULT_5_XX),
        ):
            self.rest_api.add_gateway_response(
                response_id, type=response_type, templates={"application/json": _ERROR_TEMPLATE}
            )

    # --- usage plan (TenantConfig.usage_plan) ---------------------------------------------------------

    def _build_usage_plan(self) -> dict[str, apigw.IApiKey]:
        """One API key per configured name, all in one usage plan on the stage: the quota and the rate
        limits hold for each key on its own. API Gateway generates the key values."""
        plan_config = self._config.usage_plan
        if plan_config is None:
            return {}
        quota = (
            apigw.QuotaSettings(limit=plan_config.quota_per_day, period=apigw.Period.DAY)
            if plan_config.quota_per_day
            else None
        )
        throttle = (
            apigw.ThrottleSettings(rate_limit=plan_config.rate_limit, burst_limit=plan_config.burst_limit)
            if plan_config.rate_limit or plan_config.burst_limit
            else None
        )
        plan = self.rest_api.add_usage_plan(
            "UsagePlan",
            name=f"{self._config.stack_name}-plan",
            description=f"agentmem {self._config.tenant}: per-key quota and rate limits",
            quota=quota,
            throttle=throttle,
            api_stages=[apigw.UsagePlanPerApiStage(api=self.rest_api, stage=self.rest_api.deployment_stage)],
        )
        keys: dict[str, apigw.IApiKey] = {}
        for name in plan_config.keys:
            key = apigw.ApiKey(
                self,
                f"ApiKey-{name}",
                api_key_name=f"{self._config.stack_name}-{name}",
                description=f"agentmem {self._config.tenant}: API key {name}",
            )
            plan.add_api_key(key)
            keys[name] = key
        return keys
