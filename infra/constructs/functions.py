"""An agentmem Lambda function with the defaults all of them share (write now; read and projector later)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.config import APP_NAME, TenantConfig
from infra.constructs.layers import ARCHITECTURE, RUNTIME, TIKTOKEN_LAYER_DIR
from infra.nag import acknowledge
from infra.paths import ASSET_EXCLUDES


def base_environment(config: TenantConfig) -> dict[str, str]:
    """Variables every function gets; agentmem.settings.Settings parses the AGENTMEM_* ones."""
    # The write function stamps each event's expiry with it; readers hide what expired already.
    retention = {"AGENTMEM_RETENTION_DAYS": str(config.retention_days)} if config.retention_days else {}
    # Set only when refused, so a default tenant's template is unchanged; the settings default is on.
    closed = {} if config.allow_undeclared_facts else {"AGENTMEM_ALLOW_UNDECLARED_FACTS": "false"}
    return {
        **retention,
        **closed,
        "AGENTMEM_BACKEND": "aws",
        "AGENTMEM_TENANT_ID": config.tenant,
        "AGENTMEM_PROCEDURAL_ENABLED": "true" if config.procedural else "false",
        "POWERTOOLS_SERVICE_NAME": APP_NAME,
        "POWERTOOLS_METRICS_NAMESPACE": APP_NAME,
        "POWERTOOLS_LOG_LEVEL": "INFO",
        # The dependency layer ships tiktoken's encoding files here: Lambda has no route out.
        "TIKTOKEN_CACHE_DIR": TIKTOKEN_LAYER_DIR,
        **config.access_environment,
        # Every function that reads beliefs or projects them needs the tenant's fact types.
        **config.semantic_environment,
    }


class AgentmemFunction(Construct):
    """A python3.12 arm64 function with X-Ray, its own log group and its own role.

    The role is built here rather than by `lambda_.Function` so it holds no AWS-managed policy: the only
    log permission is on this function's own log group, and callers add data grants explicitly.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: TenantConfig,
        code_dir: Path,
        layers: Sequence[lambda_.ILayerVersion],
        environment: Mapping[str, str],
        description: str,
        memory_size: int = 512,
        timeout: cdk.Duration | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.log_group = self._build_log_group(config)
        self.role = self._build_role()
        self.function = self._build_function(
            config=config,
            code_dir=code_dir,
            layers=layers,
            environment=environment,
            description=description,
            memory_size=memory_size,
            timeout=timeout or cdk.Duration.seconds(10),
        )
        self.invocable = self._build_alias(config, code_dir.name)

    def _build_alias(self, config: TenantConfig, name: str) -> lambda_.IFunction:
        """What API Gateway and the event sources invoke: the function itself, or with provisioned
        concurrency or SnapStart (which Lambda applies to published versions, never to $LATEST) the
        alias `live` on its current version (docs/deploy.md, "Cold start")."""
        provisioned = (config.provisioned_concurrency or {}).get(name)
        if provisioned is None and name not in (config.snap_start or []):
            return self.function
        if name in (config.snap_start or []):
            cdk.Annotations.of(self.function).acknowledge_warning(
                "@aws-cdk/aws-lambda:snapStartRequirePublish", "the alias below publishes its current version"
            )
        return lambda_.Alias(
            self,
            "Live",
            alias_name="live",
            version=self.function.current_version,
            provisioned_concurrent_executions=provisioned,
        )

    def _build_log_group(self, config: TenantConfig) -> logs.LogGroup:
        # An explicit log group (instead of `log_retention`) avoids the LogRetention custom-resource Lambda.
        return logs.LogGroup(
            self,
            "Logs",
            retention=logs.RetentionDays.ONE_MONTH,
            removal_policy=cdk.RemovalPolicy.RETAIN if config.retain else cdk.RemovalPolicy.DESTROY,
        )

    def _build_role(self) -> iam.Role:
        role = iam.Role(self, "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                resources=[self.log_group.log_group_arn],
            )
        )
        return role

    def _build_function(
        self,
        *,
        config: TenantConfig,
        code_dir: Path,
        layers: Sequence[lambda_.ILayerVersion],
        environment: Mapping[str, str],
        description: str,
        memory_size: int,
        timeout: cdk.Duration,
    ) -> lambda_.Function:
        function = lambda_.Function(
            self,
            "Function",
            description=description,
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler="handler.handler",
            code=lambda_.Code.from_asset(str(code_dir), exclude=ASSET_EXCLUDES),
            layers=list(layers),
            memory_size=memory_size,
            timeout=timeout,
            tracing=lambda_.Tracing.ACTIVE,
            environment={**base_environment(config), **environment},
            log_group=self.log_group,
            role=self.role,
            # Keyed by the function's folder (write, read, projector, ...); unset, the account's pool.
            reserved_concurrent_executions=(config.reserved_concurrency or {}).get(code_dir.name),
            snap_start=lambda_.SnapStartConf.ON_PUBLISHED_VERSIONS
            if code_dir.name in (config.snap_start or [])
            else None,
        )
        acknowledge(
            self,
            "AwsSolutions-L1",
            "Pinned to python3.12, not the newest runtime: the dependency layer's wheels are built for 3.12 "
            "(infra/constructs/layers.py). The suite runs on Python 3.11 (the code supports 3.11+), so the "
            "3.12 runtime itself is exercised only by a deployed stack (tests/e2e).",
        )
        acknowledge(
            self.role,
            "AwsSolutions-IAM5",
            "X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions.",
            "Resource::*",
        )
        return function
