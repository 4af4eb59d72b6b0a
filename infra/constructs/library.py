"""The functions that author and use libraries: the procedural tier's (functions, guidance, review,
search, Agent Skills import and export) and the composer's (knowledge assets, authored skills,
compose). Each reads the log table, writes only its library partitions, searches OpenSearch
read-only (the projector writes the indexes) and calls only the tenant's Bedrock models."""

from __future__ import annotations

from dataclasses import dataclass

import aws_cdk as cdk
from aws_cdk import aws_apigateway as apigw
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

TIMEOUT = cdk.Duration.seconds(29)  # API Gateway's integration limit


@dataclass(frozen=True)
class TenantParts:
    """What every library function is built from."""

    config: TenantConfig
    storage: Storage
    layers: Layers
    api: Api
    vectors: SearchDomain
    models: BedrockModels


class LibraryFunction(Construct):
    """One API function over a library: its routes, its grants."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        name: str,
        description: str,
        routes: list[tuple[str, str]],
        parts: TenantParts,
        blob_write: bool = False,
    ) -> None:
        super().__init__(scope, construct_id)
        config, storage, layers, api = parts.config, parts.storage, parts.layers, parts.api
        vectors, models = parts.vectors, parts.models
        self.function = AgentmemFunction(
            self,
            "Function",
            config=config,
            code_dir=FUNCTIONS_DIR / name,
            layers=layers.all,
            description=description,
            environment={
                "AGENTMEM_TABLE_NAME": storage.table.table_name,
                "AGENTMEM_BUCKET_NAME": storage.bucket.bucket_name,
                "AGENTMEM_INLINE_MAX_BYTES": str(config.inline_max_bytes),
                **vectors.environment,
                **models.environment,
            },
            memory_size=1024,  # tiktoken, opensearch-py and the resolver load on a cold start
            timeout=TIMEOUT,
        )
        role = self.function.role
        storage.grant_log_read(role)
        storage.grant_library_write(role)
        # Guidance and assets record what they cite; compose keeps reports and cache entries' inputs.
        storage.grant_dependents_record(role)
        (storage.grant_blob_read_put if blob_write else storage.grant_blob_read)(role)
        acknowledge(
            self.function,
            "AwsSolutions-IAM5",
            "Blob keys are content hashes; the bucket belongs to this tenant alone.",
            f"Resource::{logical_ref(storage.bucket)}/*",
        )
        vectors.grant_read(role)
        models.grant_invoke(role, self.function)
        self.methods: list[apigw.Method] = api.add_routes(self.function.invocable, routes)
