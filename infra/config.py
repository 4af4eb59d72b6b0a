"""Per-tenant deployment settings, parsed once from CDK context (`cdk synth -c tenant=acme ...`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError
from pydantic.alias_generators import to_camel

TENANT_PATTERN = r"^[a-z0-9-]{1,32}$"

# A Bedrock foundation model id or inference profile id; no `*` or `/`, so it cannot widen an IAM resource.
MODEL_ID_PATTERN = r"^[a-z0-9][a-z0-9.:-]{2,127}$"
# The defaults of agentmem.adapters.aws (bedrock_embedder, bedrock_llm); a test pins that they agree.
DEFAULT_EMBEDDING_MODEL = "amazon.titan-embed-text-v2:0"
DEFAULT_LLM_MODEL = "us.anthropic.claude-haiku-4-5-20251001-v1:0"

APP_NAME = "agentmem"
EXAMPLE = "cdk synth -c tenant=acme"


class ContextSource(Protocol):
    """The one method of `constructs.Node` used here, so the parser is testable without an App."""

    def try_get_context(self, key: str) -> Any: ...


class TenantConfigError(ValueError):
    """The CDK context does not describe a deployable tenant; the message names the key and the rule."""


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

    @property
    def stack_name(self) -> str:
        return f"{APP_NAME}-{self.tenant}"

    @property
    def retain(self) -> bool:
        return self.removal_policy == "retain"

    @classmethod
    def context_keys(cls) -> list[str]:
        return [field.alias or name for name, field in cls.model_fields.items()]

    @classmethod
    def from_context(cls, node: ContextSource) -> TenantConfig:
        """Read the known keys only: CDK context also carries feature flags and CLI internals."""
        raw = {key: value for key in cls.context_keys() if (value := node.try_get_context(key)) is not None}
        if isinstance(raw.get("removalPolicy"), str):
            raw["removalPolicy"] = raw["removalPolicy"].strip().lower()
        try:
            return cls.model_validate(raw)
        except ValidationError as exc:
            raise TenantConfigError(_describe(exc)) from exc


def _describe(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"]) or "context"
        if error["type"] == "missing":
            problems.append(f"-c {key}=... is required")
        elif error["type"] == "string_pattern_mismatch":
            rule = f"must match {error.get('ctx', {}).get('pattern', '')}"
            rule += " (lower-case letters, digits, '-')" if key == "tenant" else ""
            problems.append(f"-c {key}={error['input']!r} {rule}")
        else:
            problems.append(f"-c {key}={error['input']!r}: {error['msg']}")
    return f"invalid CDK context for {APP_NAME}: " + "; ".join(problems) + f" (example: {EXAMPLE})"
