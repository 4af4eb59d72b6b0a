"""The value types of TenantConfig (infra/config.py): id patterns, OpenSearch sizing, the usage plan."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic.alias_generators import to_camel

TENANT_PATTERN = r"^[a-z0-9-]{1,32}$"

# A Bedrock foundation model id or inference profile id; no `*` or `/`, so it cannot widen an IAM resource.
MODEL_ID_PATTERN = r"^[a-z0-9][a-z0-9.:-]{2,127}$"
# The defaults of agentmem.adapters.aws (bedrock_embedder, bedrock_llm); a test pins that they agree.
DEFAULT_EMBEDDING_MODEL = "amazon.titan-embed-text-v2:0"
DEFAULT_LLM_MODEL = "us.anthropic.claude-haiku-4-5-20251001-v1:0"

# An OpenSearch Service instance type, e.g. `r7g.large.search`; OpenSearch Service checks that it exists.
SEARCH_INSTANCE_PATTERN = r"^[a-z][a-z0-9]*\.[a-z0-9]+\.search$"

# A principal, as agentmem ids are (agentmem.model.common.ID_PATTERN); an IAM caller ARN pattern (fnmatch).
PRINCIPAL_PATTERN = r"^[A-Za-z0-9._:-]{1,128}$"
ARN_PATTERN = r"^arn:[A-Za-z0-9+=,.@_/:*?-]{1,1000}$"
Principal = Annotated[str, StringConstraints(pattern=PRINCIPAL_PATTERN)]
ArnPattern = Annotated[str, StringConstraints(pattern=ARN_PATTERN)]
# Where alarms go: an SNS topic that exists already (same account), or an address the stack's own topic
# mails. A loose address check: SNS itself sends the confirmation that proves the address works.
TOPIC_ARN_PATTERN = r"^arn:aws[a-z-]*:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}$"
EMAIL_PATTERN = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"


def json_or_commas(value: Any) -> Any:
    """`-c key=value` passes strings: a JSON object or list as is, else a comma list."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith(("{", "[")):
        return json.loads(text)
    return [part.strip() for part in text.split(",") if part.strip()]


# An AWS account id and a commercial or GovCloud region, for the stack's `env`.
ACCOUNT_PATTERN = r"^[0-9]{12}$"
REGION_PATTERN = r"^[a-z]{2}(-gov)?-[a-z]+-[0-9]$"
AccountId = Annotated[str, StringConstraints(pattern=ACCOUNT_PATTERN)]
Region = Annotated[str, StringConstraints(pattern=REGION_PATTERN)]

# The tenant's functions, by their folder under functions/: what reservedConcurrency is keyed by.
FunctionName = Literal["write", "read", "projector", "erasure", "skills", "compose"]
# Lambda's default concurrency quota per account and region; a reservation over it cannot be granted.
ReservedConcurrency = Annotated[int, Field(ge=1, le=1000)]
# Environments Lambda keeps initialized (billed while configured, whether used or not).
ProvisionedConcurrency = Annotated[int, Field(ge=1, le=1000)]
# The functions SnapStart may snapshot: not the projector, whose init opens connections to OpenSearch
# (to prepare its indexes) that a snapshot would carry into every environment restored from it.
SnapStartFunction = Literal["write", "read", "erasure", "skills", "compose"]
API_KEY_NAME_PATTERN = r"^[A-Za-z0-9._-]{1,64}$"


class UsagePlanConfig(BaseModel):
    """API keys and one usage plan on the stage: every method then needs `x-api-key` as well as SigV4.
    The quota and rate limits apply to each key on its own (API Gateway meters usage plans per key)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel, validate_by_name=True, validate_by_alias=True
    )

    # One API key per name (API Gateway generates the value; `aws apigateway get-api-key --include-value`).
    keys: Annotated[
        list[Annotated[str, StringConstraints(pattern=API_KEY_NAME_PATTERN)]], Field(min_length=1)
    ]
    quota_per_day: int | None = Field(default=None, ge=1, le=1_000_000_000)
    # Per key, under the stage-wide throttle (throttleRateLimit / throttleBurstLimit).
    rate_limit: int | None = Field(default=None, ge=1, le=10_000)
    burst_limit: int | None = Field(default=None, ge=1, le=5_000)


@dataclass(frozen=True)
class SearchCapacity:
    """The OpenSearch Service domain's data nodes (infra/constructs/vectors.py)."""

    instance_type: str
    data_nodes: int
    volume_gib: int

    @property
    def zone_aware(self) -> bool:
        """More than one node: spread over two availability zones, so one zone can fail."""
        return self.data_nodes > 1


# Unset capacity keys follow removalPolicy: a retained stack holds a tenant's data in production and gets
# two memory-optimized nodes in two zones; a throwaway dev stack gets the smallest single node.
PRODUCTION_SEARCH = SearchCapacity(instance_type="r7g.large.search", data_nodes=2, volume_gib=20)
DEV_SEARCH = SearchCapacity(instance_type="t3.small.search", data_nodes=1, volume_gib=10)
