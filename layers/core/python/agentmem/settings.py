"""Runtime configuration, parsed once from AGENTMEM_* environment variables."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from agentmem.context.session_window import WINDOW_EVENTS
from agentmem.model.beliefs import FactType
from agentmem.model.common import Identifier
from agentmem.semantic.fact_types import DEFAULT_FACT_TYPES

ENV_PREFIX = "AGENTMEM_"
SHOWN_VALUE_CHARS = 60


class SettingsError(ValueError):
    """A setting that is missing or invalid, in one line that names its variable: what a process
    says before it starts, instead of pydantic's report or a traceback."""


def _principal_list(value: Any) -> Any:
    """`writer,admin` or `["writer", "admin"]` as an environment variable gives; lists pass through."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        return json.loads(text)
    return [part.strip() for part in text.split(",") if part.strip()]


def _json_as(kind: Any, value: str, wanted: str) -> None:
    try:
        TypeAdapter(kind).validate_json(value)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ValueError(f"not {wanted}: {where + ': ' if where else ''}{first['msg']}") from None


class Settings(BaseModel):
    """Plain pydantic rather than pydantic-settings: that package adds ~85 ms to every Lambda
    cold start for what `from_env` does in a few lines."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: Literal["local", "aws"] = "local"
    tenant_id: Identifier = "local"

    # Content over this many UTF-8 bytes goes to the blob store; stays well under DynamoDB's 400 KB item.
    inline_max_bytes: int = Field(default=32 * 1024, ge=256, le=300 * 1024)
    # Requests over this are refused with 413. API Gateway caps REST payloads at 10 MB and Lambda at 6 MB.
    max_request_bytes: int = Field(default=5 * 1024 * 1024, ge=1024, le=6 * 1024 * 1024)

    # local backend
    data_dir: Path = Path(".agentmem")
    # NORMAL (WAL): an acknowledged append survives a crash of any agentmem process (pinned by the
    # SIGKILL test) but not an OS crash or power loss. FULL fsyncs every commit and survives those
    # too, at 0.1-4 ms per append on these disks. The durable production log is DynamoDB.
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "NORMAL"
    host: str = "127.0.0.1"
    port: int = Field(default=8787, ge=0, le=65535)
    # `agentmem serve` off loopback: a JSON object (or the path of a file holding one) mapping each
    # API key to what it grants, {"<key>": {"principals": ["analyst"], "role": "reader"}}. Set, every
    # route but /v1/health needs a key (docs/local-server.md). Secret: never shown in a repr or log.
    api_keys: SecretStr | None = None
    # Headers must arrive within this many seconds of a connection (or a request's first byte), and
    # the body within this of the headers; slower clients get 408 and are disconnected.
    http_read_timeout_seconds: float = Field(default=30.0, gt=0, le=600)
    # Open connections past this get an immediate 503; each costs a socket, never a thread.
    http_max_connections: int = Field(default=2048, ge=16, le=65536)

    # procedural tier: a tenant may switch it off; its routes then answer 404 saying so
    procedural_enabled: bool = True
    # MCP server (docs/mcp.md): a session sees only the skill searches until it has run the search of
    # each library holding entries (with both empty, every tool from the start). off (false) lists
    # every tool from the start regardless; `agentmem mcp --no-gate` does so for one server.
    mcp_search_gate: bool = True

    # context reads: how many of a session's newest events one read ranks (the rest is counted in
    # the trace); the window keeps read latency independent of the session's length.
    context_window_events: int = Field(default=WINDOW_EVENTS, ge=10, le=5000)
    # retention of raw events and blobs, in days; unset keeps them for good. Beliefs distilled
    # from expired events survive (docs/erasure.md). AWS: a TTL on each event, a bucket lifecycle.
    retention_days: int | None = Field(default=None, ge=1, le=36_500)

    # semantic tier
    # Keys nobody declared are projected as single-valued facts unless the tenant refuses them.
    allow_undeclared_facts: bool = True
    # JSON list of fact types, e.g. [{"key": "goal", "cardinality": "set"}]; unset: the defaults.
    fact_types: str | None = None
    embedder: Literal["minilm", "bedrock", "openai"] | None = Field(
        default=None, description="Default by backend."
    )
    llm: Literal["rules", "bedrock", "openai"] | None = Field(default=None, description="Default by backend.")
    # `openai`: any OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio, LiteLLM, OpenAI),
    # e.g. http://localhost:11434/v1 (docs/openai-compatible.md). The embedder uses the LLM's base
    # URL and key unless it has its own; its dimensions are what its model returns, and required.
    llm_base_url: str | None = Field(default=None, pattern=r"^https?://")
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_seconds: float = Field(default=120.0, gt=0, le=3600)
    embedder_base_url: str | None = Field(default=None, pattern=r"^https?://")
    embedder_model: str | None = None
    embedder_api_key: SecretStr | None = None
    embedder_dimensions: int | None = Field(default=None, ge=1, le=16_384)

    # aws backend
    table_name: str = "agentmem-log"
    # The projection's vector cache table (the stack sets it for the projector, the replay worker
    # and the erasure function); unset, projection on AWS embeds every text without a cache.
    vector_table_name: str | None = None
    bucket_name: str = "agentmem-blobs"
    aws_region: str | None = None
    endpoint_url: str | None = None
    opensearch_url: str | None = None
    opensearch_prefix: str = "agentmem"
    bedrock_embedding_model: str = "amazon.titan-embed-text-v2:0"
    bedrock_llm_model: str | None = None
    # The queue an accepted erasure is handed to (the erasure function consumes it); unset, an
    # erasure runs inline in the request, as it does locally.
    erasure_queue_url: str | None = None
    # Bedrock Rerank model ARN for the composer; unset, the composer ranks by fused BM25 + vector.
    bedrock_rerank_model: str | None = None

    # composer: the LLM port's optional steps (Bedrock or `openai`): `filter` judges pools of
    # hundreds for relevance, `rank` also adds an LLM ranking (two views of 15,000-token chunks,
    # fused by RRF).
    composer_llm: Literal["off", "filter", "rank"] = "off"
    # composer: days a kept compose report (GET /v1/compose/reports/{id}) and the record of a
    # retrieval cache entry's inputs live (docs/stale-dependents.md). AWS: the table's TTL
    # (`expires_at`); locally, the projector worker's sweep. 7, as its conversation memory.
    compose_report_ttl_days: int = Field(default=7, ge=1, le=3650)
    # composer: JSON object mapping an IAM caller ARN (fnmatch patterns allowed) to its principals,
    # e.g. {"arn:aws:sts::123456789012:assumed-role/analyst-agent/*": ["analyst"]}. A Lambda
    # authorizer that sets `principals` in its context takes precedence.
    principal_map: str | None = None
    # Principals that make a caller a writer (assets, composer skills, functions, guidance), unless
    # its authorizer context names a `role`: a comma list or a JSON list (docs/access.md).
    writer_principals: Annotated[tuple[Identifier, ...], BeforeValidator(_principal_list)] = ("writer",)

    @field_validator("fact_types")
    @classmethod
    def _fact_types_parse(cls, value: str | None) -> str | None:
        """Checked at startup: unchecked, a bad list failed first in the projector's thread."""
        if value is not None:
            _json_as(list[FactType], value, "a JSON list of fact types")
        return value

    @field_validator("principal_map")
    @classmethod
    def _principal_map_parses(cls, value: str | None) -> str | None:
        if value is not None:
            _json_as(dict[str, list[str]], value, "a JSON object of caller ARN patterns to principal lists")
        return value

    @model_validator(mode="after")
    def _openai_servers_named(self) -> Self:
        """`openai` for the LLM or the embedder fails at startup, naming every setting unset."""
        needed: dict[str, object] = {}
        if self.llm == "openai":
            needed |= {"LLM_BASE_URL": self.llm_base_url, "LLM_MODEL": self.llm_model}
        if self.embedder == "openai":
            needed |= {
                "EMBEDDER_BASE_URL (or AGENTMEM_LLM_BASE_URL)": self.embedder_base_url or self.llm_base_url,
                "EMBEDDER_MODEL": self.embedder_model,
                "EMBEDDER_DIMENSIONS": self.embedder_dimensions,
            }
        missing = [ENV_PREFIX + name for name, value in needed.items() if value is None or value == ""]
        if missing:
            raise ValueError(f"an OpenAI-compatible server needs {', '.join(missing)}")
        return self

    def declared_fact_types(self) -> list[FactType]:
        if self.fact_types is None:
            return list(DEFAULT_FACT_TYPES)
        return TypeAdapter(list[FactType]).validate_json(self.fact_types)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Self:
        """Settings from AGENTMEM_<FIELD> variables (validated like any input), then `overrides`.
        Raises SettingsError naming each variable at fault."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {
            name: environ[ENV_PREFIX + name.upper()]
            for name in cls.model_fields
            if ENV_PREFIX + name.upper() in environ
        }
        try:
            return cls.model_validate({**values, **overrides})
        except ValidationError as exc:
            raise SettingsError(_one_line(exc, set(overrides))) from None


def _one_line(exc: ValidationError, overridden: set[str]) -> str:
    """Each problem as `AGENTMEM_<FIELD>: what is wrong (got '<value>')`; a secret's value is never
    shown, and a value given as an argument is named as the argument's field."""
    problems: list[str] = []
    for error in exc.errors(include_url=False):
        message = str(error["msg"]).removeprefix("Value error, ")
        if not error["loc"]:  # a rule across settings: its message names the variables
            problems.append(message)
            continue
        field = str(error["loc"][0])
        name = field if field in overridden else ENV_PREFIX + field.upper()
        secret = Settings.model_fields[field].annotation in (SecretStr, SecretStr | None)
        given = error.get("input")
        if isinstance(given, str) and not secret:
            shown = given if len(given) <= SHOWN_VALUE_CHARS else given[:SHOWN_VALUE_CHARS] + "..."
            message += f" (got {shown!r})"
        problems.append(f"{name}: {message}")
    return "; ".join(dict.fromkeys(problems))
