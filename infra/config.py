"""Per-tenant deployment settings, parsed once: `tenants/<tenant>.json` if there is one, then CDK context
(`cdk synth -c tenant=acme -c key=value ...`), which overrides the file key by key."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

import aws_cdk as cdk
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from agentmem.model.beliefs import FactType
from infra.config_types import (
    DEFAULT_EMBEDDING_MODEL,
    DEFAULT_LLM_MODEL,
    DEV_SEARCH,
    EMAIL_PATTERN,
    MODEL_ID_PATTERN,
    PRODUCTION_SEARCH,
    SEARCH_INSTANCE_PATTERN,
    TENANT_PATTERN,
    TOPIC_ARN_PATTERN,
    AccountId,
    ArnPattern,
    FunctionName,
    Principal,
    ProvisionedConcurrency,
    Region,
    ReservedConcurrency,
    SearchCapacity,
    SnapStartFunction,
    UsagePlanConfig,
    json_or_commas,
)
from infra.paths import TENANTS_DIR

__all__ = ["APP_NAME", "SearchCapacity", "TenantConfig", "TenantConfigError", "wants_account_stack"]

APP_NAME = "agentmem"
EXAMPLE = "cdk synth -c tenant=acme"
CONTEXT = "-c"  # how an error names a key that came from the command line (or cdk.json)
# A share of Lambda's 4 KB for all of a function's variables, leaving room for the others.
FACT_TYPES_MAX_BYTES = 2500


def fact_types_json(fact_types: list[FactType]) -> str:
    """What agentmem.settings.Settings.declared_fact_types parses back."""
    return json.dumps([t.model_dump(mode="json") for t in fact_types], separators=(",", ":"))


class ContextSource(Protocol):
    """The one method of `constructs.Node` used here, so the parser is testable without an App."""

    def try_get_context(self, key: str) -> Any: ...


class TenantConfigError(ValueError):
    """The CDK context does not describe a deployable tenant; the message names the key and the rule."""


def wants_account_stack(node: ContextSource) -> bool:
    """`-c account=true`: synthesize the account stack (infra/account.py) rather than a tenant's."""
    value = node.try_get_context("account")
    if value is None or value is False:
        return False
    if value is True or str(value).strip().lower() in {"true", "1", "yes"}:
        return True
    if str(value).strip().lower() in {"false", "0", "no", ""}:
        return False
    raise TenantConfigError(f"invalid CDK context for {APP_NAME}: -c account={value!r} must be true or false")


class TenantConfig(BaseModel):
    """What may vary between tenant stacks. Context keys are the camelCase field names."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel, validate_by_name=True, validate_by_alias=True
    )

    # Lower case only: the id ends up in the stack name and in generated S3 bucket names.
    tenant: Annotated[str, StringConstraints(pattern=TENANT_PATTERN)]
    # Same bounds as agentmem.settings.Settings: a bad value fails at synth, not at the first cold start.
    inline_max_bytes: int = Field(default=32 * 1024, ge=256, le=300 * 1024)
    # Gates the procedural tier's resources; parsed now so the context contract does not change later.
    procedural: bool = True
    # retain for anything holding tenant data; destroy is for throwaway dev stacks.
    removal_policy: Literal["retain", "destroy"] = "retain"
    # Stage-wide API Gateway throttling (steady requests/s and burst), per tenant stack.
    throttle_rate_limit: int = Field(default=50, ge=1, le=10_000)
    throttle_burst_limit: int = Field(default=100, ge=1, le=5_000)
    # What the semantic tier calls on Bedrock, and the only models its functions may invoke. Outside the US,
    # pass the geography's inference profile for the LLM (`eu.`, `apac.`, `global.` ...).
    bedrock_embedding_model: Annotated[str, StringConstraints(pattern=MODEL_ID_PATTERN)] = (
        DEFAULT_EMBEDDING_MODEL
    )
    bedrock_llm_model: Annotated[str, StringConstraints(pattern=MODEL_ID_PATTERN)] = DEFAULT_LLM_MODEL
    # More Bedrock models the replay worker alone may invoke: a shadow replay with a new embedding model or
    # LLM (docs/deploy.md, "Embedder rotation") names them; the live functions keep the two above.
    replay_models: Annotated[
        list[Annotated[str, StringConstraints(pattern=MODEL_ID_PATTERN)]] | None,
        BeforeValidator(json_or_commas),
    ] = None
    # The composer's optional LLM steps (relevance filter, LLM ranker) through the tenant's LLM.
    composer_llm: Literal["off", "filter", "rank"] = "off"
    # A Bedrock Rerank model id (e.g. `amazon.rerank-v1:0`); unset, the composer ranks by fused BM25 + vector.
    bedrock_rerank_model: Annotated[str, StringConstraints(pattern=MODEL_ID_PATTERN)] | None = None
    # Who may read and write what (docs/access.md): IAM caller ARNs (fnmatch patterns) mapped to their
    # principals, e.g. {"arn:aws:sts::123456789012:assumed-role/catalogue-loader/*": ["writer", "finance"]},
    # and the principals that make a caller a writer (unset: the functions' default, `writer`).
    principal_map: Annotated[dict[ArnPattern, list[Principal]] | None, BeforeValidator(json_or_commas)] = None
    writer_principals: Annotated[list[Principal] | None, BeforeValidator(json_or_commas)] = None
    # Whether extraction may store facts under keys nobody declared (docs/extraction-rules.md, open keys):
    # on by default, as agentmem.settings has it; false keeps Bedrock to the declared fact keys.
    allow_undeclared_facts: bool = True
    # The tenant's fact types ([{"key", "description", "cardinality": "single" | "set"}], as the local
    # AGENTMEM_FACT_TYPES has them; docs/deploy.md, "Declaring fact types"); unset, the built-in defaults.
    fact_types: Annotated[list[FactType] | None, BeforeValidator(json_or_commas), Field(min_length=1)] = None
    # Days raw events and blobs are kept (DynamoDB TTL on each event, an S3 lifecycle rule on blobs);
    # unset keeps them for good. Beliefs distilled from expired events survive (docs/erasure.md).
    retention_days: int | None = Field(default=None, ge=1, le=36_500)
    # The belief index's OpenSearch Service data nodes; unset, see PRODUCTION_SEARCH and DEV_SEARCH.
    search_instance_type: Annotated[str, StringConstraints(pattern=SEARCH_INSTANCE_PATTERN)] | None = None
    search_data_nodes: int | None = Field(default=None, ge=1, le=80)
    # gp3 EBS per data node; 10 GiB is OpenSearch Service's minimum, the maximum depends on the instance type.
    search_volume_gib: int | None = Field(default=None, ge=10, le=24_576)

    # The SNS topic every alarm notifies (state changes to ALARM and back to OK): an existing topic's ARN,
    # or an e-mail address subscribed to a topic the stack creates. Neither: the stack's topic has no
    # subscriber yet (its ARN is the AlarmTopicArn output); subscribe to it before relying on the alarms.
    alarm_topic_arn: Annotated[str, StringConstraints(pattern=TOPIC_ARN_PATTERN)] | None = None
    alarm_email: Annotated[str, StringConstraints(pattern=EMAIL_PATTERN)] | None = None

    # The stack's `env`: unset, the CLI's credentials and region decide at deploy time, and the template
    # stays environment-agnostic. Set, a deploy with credentials for another account fails early.
    account: AccountId | None = None
    region: Region | None = None
    # Per function (by its folder under functions/): concurrency reserved for it, which is also its cap.
    # A cap on the projector bounds the OpenSearch and Bedrock load a burst of appends can cause.
    reserved_concurrency: Annotated[
        dict[FunctionName, ReservedConcurrency] | None, BeforeValidator(json_or_commas)
    ] = None
    # Per function: environments Lambda keeps initialized on the alias `live`, which API Gateway and the
    # event sources then invoke; no cold start up to that many concurrent requests. Off by default: it
    # is billed per hour configured (docs/deploy.md, "Cold start").
    provisioned_concurrency: Annotated[
        dict[FunctionName, ProvisionedConcurrency] | None, BeforeValidator(json_or_commas)
    ] = None
    # Functions whose published version Lambda snapshots after init and restores from (SnapStart, Python
    # 3.12+), invoked through the alias `live` like provisioned concurrency, and exclusive with it.
    snap_start: Annotated[list[SnapStartFunction] | None, BeforeValidator(json_or_commas)] = None
    # API keys and a usage plan with per-key quotas; unset, SigV4 alone admits a caller.
    usage_plan: Annotated[UsagePlanConfig | None, BeforeValidator(json_or_commas)] = None

    @model_validator(mode="after")
    def _one_alarm_destination(self) -> TenantConfig:
        if self.alarm_topic_arn and self.alarm_email:
            raise ValueError("set alarmTopicArn or alarmEmail, not both (subscribe the address to the topic)")
        return self

    @model_validator(mode="after")
    def _provisioned_within_reserved(self) -> TenantConfig:
        reserved = self.reserved_concurrency or {}
        over = [
            f"provisionedConcurrency.{name}={count} exceeds reservedConcurrency.{name}={reserved[name]}"
            for name, count in (self.provisioned_concurrency or {}).items()
            if name in reserved and count > reserved[name]
        ]
        if over:
            raise ValueError("; ".join(over) + " (Lambda cannot provision more than the function may run)")
        return self

    @model_validator(mode="after")
    def _snap_start_or_provisioned(self) -> TenantConfig:
        both = sorted(set(self.snap_start or []) & set(self.provisioned_concurrency or {}))
        if both:
            raise ValueError(
                f"snapStart and provisionedConcurrency both name {', '.join(both)}: Lambda runs a version "
                "with one or the other"
            )
        return self

    @field_validator("fact_types")
    @classmethod
    def _fact_types_fit(cls, value: list[FactType] | None) -> list[FactType] | None:
        if value is None:
            return value
        keys = [fact_type.key for fact_type in value]
        if repeated := sorted({key for key in keys if keys.count(key) > 1}):
            raise ValueError(f"each key once; repeated: {', '.join(repeated)}")
        size = len(fact_types_json(value).encode())
        if size > FACT_TYPES_MAX_BYTES:
            raise ValueError(
                f"{size} bytes as JSON, over {FACT_TYPES_MAX_BYTES}: Lambda allows 4 KB of environment per "
                "function in all; shorten the descriptions"
            )
        return value

    @field_validator("search_data_nodes")
    @classmethod
    def _one_or_even(cls, value: int | None) -> int | None:
        if value is not None and value > 1 and value % 2:
            raise ValueError("1, or an even number (the nodes are spread over two availability zones)")
        return value

    @property
    def semantic_environment(self) -> dict[str, str]:
        """AGENTMEM_FACT_TYPES when the tenant declares its own fact types."""
        return {} if self.fact_types is None else {"AGENTMEM_FACT_TYPES": fact_types_json(self.fact_types)}

    @property
    def access_environment(self) -> dict[str, str]:
        """The AGENTMEM_* variables of the access rule, for the ones the context sets."""
        env: dict[str, str] = {}
        if self.principal_map is not None:
            env["AGENTMEM_PRINCIPAL_MAP"] = json.dumps(self.principal_map, sort_keys=True)
        if self.writer_principals is not None:
            env["AGENTMEM_WRITER_PRINCIPALS"] = json.dumps(self.writer_principals)
        return env

    @property
    def environment(self) -> cdk.Environment | None:
        if self.account is None and self.region is None:
            return None
        return cdk.Environment(account=self.account, region=self.region)

    @property
    def stack_name(self) -> str:
        return f"{APP_NAME}-{self.tenant}"

    @property
    def retain(self) -> bool:
        return self.removal_policy == "retain"

    @property
    def search_capacity(self) -> SearchCapacity:
        default = PRODUCTION_SEARCH if self.retain else DEV_SEARCH
        return SearchCapacity(
            instance_type=self.search_instance_type or default.instance_type,
            data_nodes=self.search_data_nodes or default.data_nodes,
            volume_gib=self.search_volume_gib or default.volume_gib,
        )

    @classmethod
    def context_keys(cls) -> list[str]:
        return [field.alias or name for name, field in cls.model_fields.items()]

    @classmethod
    def from_context(cls, node: ContextSource, tenants_dir: Path = TENANTS_DIR) -> TenantConfig:
        """`tenants/<tenant>.json` (if present), then the known context keys over it. Only known keys are
        read from context: it also carries feature flags and CLI internals."""
        context = {
            key: value for key in cls.context_keys() if (value := node.try_get_context(key)) is not None
        }
        from_file, file_label = _tenant_file(context.get("tenant"), tenants_dir)
        raw = {**from_file, **context}
        if isinstance(raw.get("removalPolicy"), str):
            raw["removalPolicy"] = raw["removalPolicy"].strip().lower()
        sources = {key: (CONTEXT if key in context else file_label) for key in raw}
        try:
            return cls.model_validate(raw)
        except ValidationError as exc:
            raise TenantConfigError(_describe(exc, sources)) from exc


def _tenant_file(tenant: Any, tenants_dir: Path) -> tuple[dict[str, Any], str]:
    """The tenant's JSON file (its keys as in context), or nothing. The tenant id is checked first: it
    becomes a path, so `../x` must never reach the file system."""
    if not isinstance(tenant, str) or not re.fullmatch(TENANT_PATTERN, tenant):
        return {}, CONTEXT  # validation reports the bad id
    path = tenants_dir / f"{tenant}.json"
    label = f"{tenants_dir.name}/{path.name}"
    if not path.is_file():
        return {}, label
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise TenantConfigError(f"invalid {label}: not JSON ({exc.msg}, line {exc.lineno})") from exc
    if not isinstance(data, dict):
        raise TenantConfigError(f"invalid {label}: must be a JSON object of context keys")
    if data.get("tenant", tenant) != tenant:
        raise TenantConfigError(f"invalid {label}: tenant={data['tenant']!r} is not {tenant!r}")
    return {key: value for key, value in data.items() if not key.startswith("$")}, label  # "$comment"


def _describe(exc: ValidationError, sources: dict[str, str]) -> str:
    problems = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"])
        source = sources.get(str(error["loc"][0]), CONTEXT) if error["loc"] else CONTEXT
        where = f"-c {key}" if source == CONTEXT else f"{source}: {key}"
        if not key:  # a rule across fields: its message names them
            problems.append(error["msg"].removeprefix("Value error, "))
        elif error["type"] == "missing":
            problems.append(f"{where}=... is required")
        elif error["type"] == "string_pattern_mismatch":
            rule = f"must match {error.get('ctx', {}).get('pattern', '')}"
            rule += " (lower-case letters, digits, '-')" if key == "tenant" else ""
            problems.append(f"{where}={error['input']!r} {rule}")
        else:
            problems.append(f"{where}={error['input']!r}: {error['msg']}")
    return f"invalid CDK context for {APP_NAME}: " + "; ".join(problems) + f" (example: {EXAMPLE})"
