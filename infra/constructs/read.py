"""The read function behind the REST API: beliefs, search by meaning, deep health, the OpenAPI document."""

from __future__ import annotations

import aws_cdk as cdk
from constructs import Construct

from infra.config import TenantConfig
from infra.constructs.api import Api
from infra.constructs.bedrock import BedrockModels
from infra.constructs.functions import AgentmemFunction
from infra.constructs.layers import Layers
from infra.constructs.storage import Storage
from infra.constructs.vectors import SearchDomain
from infra.nag import acknowledge, logical_ref
from infra.paths import FUNCTIONS_DIR
from infra.routes import function_routes

# API Gateway gives up on an integration after 29 s; a read that takes longer has failed anyway.
TIMEOUT = cdk.Duration.seconds(29)


class ReadFunction(Construct):
    """Reads the log and blobs (never writes them) and searches the belief index read-only."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: TenantConfig,
        storage: Storage,
        layers: Layers,
        api: Api,
        vectors: SearchDomain,
        models: BedrockModels,
    ) -> None:
        super().__init__(scope, construct_id)
        self.function = AgentmemFunction(
            self,
            "Function",
            config=config,
            code_dir=FUNCTIONS_DIR / "read",
            layers=layers.all,
            description="agentmem read path: beliefs and search by meaning (OpenSearch, Bedrock)",
            environment={
                "AGENTMEM_TABLE_NAME": storage.table.table_name,
                "AGENTMEM_BUCKET_NAME": storage.bucket.bucket_name,
                "AGENTMEM_INLINE_MAX_BYTES": str(config.inline_max_bytes),
                **vectors.environment,
                **models.environment,
            },
            # tiktoken, opensearch-py and the resolver load on a cold start; more memory is more CPU.
            memory_size=1024,
            timeout=TIMEOUT,
        )
        storage.grant_log_read(self.function.role)
        storage.grant_blob_read(self.function.role)
        acknowledge(
            self.function,
            "AwsSolutions-IAM5",
            "Blob keys are content hashes found in log entries; the bucket belongs to this tenant alone.",
            f"Resource::{logical_ref(storage.bucket)}/*",
        )
        vectors.grant_read(self.function.role)
        models.grant_invoke(self.function.role, self.function)
        self.methods = api.add_routes(self.function.invocable, function_routes("read"))
