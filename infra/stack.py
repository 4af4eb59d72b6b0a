"""The tenant stack: composes the constructs, tags everything, and is checked by cdk-nag on synth."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from constructs import Construct

from infra.config import APP_NAME, TenantConfig
from infra.constructs.api import Api
from infra.constructs.bedrock import BedrockModels, grant_rerank
from infra.constructs.dashboard import Watched
from infra.constructs.erasure import ErasureFunction
from infra.constructs.layers import Layers
from infra.constructs.library import LibraryFunction, TenantParts
from infra.constructs.monitoring import Monitoring
from infra.constructs.projector import Projector
from infra.constructs.read import ReadFunction
from infra.constructs.replay import Replay
from infra.constructs.storage import Storage
from infra.constructs.vectors import SearchDomain
from infra.nag import add_checks
from infra.routes import function_routes


class TenantStack(cdk.Stack):
    """Everything one tenant needs; named `agentmem-<tenant>` so tenants never share a resource."""

    def __init__(self, scope: Construct, *, config: TenantConfig, **kwargs: Any) -> None:
        super().__init__(
            scope,
            config.stack_name,
            stack_name=config.stack_name,
            description=f"agentmem shared memory for tenant {config.tenant}",
            **kwargs,
        )
        self.config = config
        self.storage = Storage(self, "Storage", config=config)
        self.layers = Layers(self, "Layers")
        self.api = Api(self, "Api", config=config, storage=self.storage, layers=self.layers)
        self.vectors = SearchDomain(self, "Vectors", config=config)
        models = BedrockModels.from_config(config)
        self.projector = Projector(
            self,
            "Projector",
            config=config,
            storage=self.storage,
            layers=self.layers,
            vectors=self.vectors,
            models=models,
        )
        self.read = ReadFunction(
            self,
            "Read",
            config=config,
            storage=self.storage,
            layers=self.layers,
            api=self.api,
            vectors=self.vectors,
            models=models,
        )
        self.erasure = ErasureFunction(
            self,
            "Erasure",
            config=config,
            storage=self.storage,
            layers=self.layers,
            api=self.api,
            vectors=self.vectors,
        )
        # Projection skips erased subjects (and the export refuses them): both read the tombstones.
        self.storage.grant_tombstone_read(self.projector.function.role)
        self.storage.grant_tombstone_read(self.read.function.role)
        parts = TenantParts(config, self.storage, self.layers, self.api, self.vectors, models)
        # A tenant without the procedural tier gets no function, no routes and no skill index for it.
        self.skills = (
            LibraryFunction(
                self,
                "Skills",
                name="skills",
                description="agentmem procedural tier: functions, guidance, review, skill search",
                routes=function_routes("skills"),
                parts=parts,
            )
            if config.procedural
            else None
        )
        self.compose = LibraryFunction(
            self,
            "Compose",
            name="compose",
            description="agentmem composer: knowledge assets, authored skills, compose",
            routes=function_routes("compose"),
            blob_write=True,  # values that would eat the budget are offloaded to the blob store
            parts=parts,
        )
        compose_fn = self.compose.function.function
        compose_fn.add_environment("AGENTMEM_COMPOSER_LLM", config.composer_llm)
        if config.bedrock_rerank_model:
            for name, value in grant_rerank(
                compose_fn, self.compose.function, config.bedrock_rerank_model
            ).items():
                compose_fn.add_environment(name, value)
        self.replay = Replay(
            self, "Replay", config=config, storage=self.storage, layers=self.layers, vectors=self.vectors,
            models=models, dead_letters=self.projector.dead_letters,
        )  # fmt: skip
        self.monitoring = self._build_monitoring()
        self.monitoring.notify(self.replay.failure_alarm)
        self._add_outputs()
        self._add_replay_outputs()
        cdk.Tags.of(self).add("app", APP_NAME)
        cdk.Tags.of(self).add("tenant", config.tenant)

    def _build_monitoring(self) -> Monitoring:
        functions = {
            "write": self.api.write_function.function,
            "read": self.read.function.function,
            "projector": self.projector.function.function,
            "erasure": self.erasure.function.function,
            **({"skills": self.skills.function.function} if self.skills else {}),
            "compose": self.compose.function.function,
        }
        watched = Watched(
            api=self.api.rest_api,
            functions=functions,
            projector=self.projector.function.function,
            domain=self.vectors.domain,
            dead_letters={
                "projector": (self.projector.dead_letters, self.projector.dead_letter_alarm),
                "erasure": (self.erasure.dead_letters, self.erasure.dead_letter_alarm),
            },
            table=self.storage.table,
        )
        return Monitoring(self, "Monitoring", config=self.config, watched=watched)

    def _add_outputs(self) -> None:
        cdk.CfnOutput(self, "ApiUrl", value=self.api.url, description="Base URL; routes start with /v1")
        cdk.CfnOutput(self, "TableName", value=self.storage.table.table_name)
        cdk.CfnOutput(self, "BucketName", value=self.storage.bucket.bucket_name)
        cdk.CfnOutput(
            self,
            "VectorTableName",
            value=self.storage.vector_table.table_name,
            description="The vector cache: AGENTMEM_VECTOR_TABLE_NAME for redrive, catch-up, replay",
        )
        cdk.CfnOutput(self, "SearchEndpoint", value=self.vectors.endpoint)
        cdk.CfnOutput(
            self,
            "ProjectorDeadLetterQueueUrl",
            value=self.projector.dead_letters.queue_url,
            description="Stream batches the projector gave up on (shard id and sequence number range)",
        )
        cdk.CfnOutput(
            self,
            "ErasureDeadLetterQueueUrl",
            value=self.erasure.dead_letters.queue_url,
            description="Erasures that did not finish every tier after their retries",
        )
        cdk.CfnOutput(
            self,
            "AlarmTopicArn",
            value=self.monitoring.topic.topic_arn,
            description="Every alarm of this tenant notifies this SNS topic (on ALARM and on OK)",
        )
        cdk.CfnOutput(self, "DashboardName", value=self.monitoring.dashboard.dashboard_name)

    def _add_replay_outputs(self) -> None:
        cdk.CfnOutput(
            self,
            "ReplayStateMachineArn",
            value=self.replay.state_machine.state_machine_arn,
            description="`agentmem replay --backend aws` starts executions of it (docs/deploy.md)",
        )
        cdk.CfnOutput(
            self,
            "ReplayOperatorRoleArn",
            value=self.replay.operator.role_arn,
            description="Assume it to run replay, redrive and catch-up against this tenant",
        )


def build_tenant_app(app: cdk.App) -> TenantStack:
    """Parse the tenant from `app`'s context, add its stack and the nag checks. Raises TenantConfigError."""
    config = TenantConfig.from_context(app.node)
    stack = TenantStack(app, config=config, env=config.environment)
    add_checks(app)
    return stack
