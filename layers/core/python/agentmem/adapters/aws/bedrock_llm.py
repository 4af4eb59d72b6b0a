"""The LLM port on Amazon Bedrock: the Converse API, temperature 0, output bound to a JSON schema.

Structured output: by default the schema goes in Converse's native `outputConfig.textFormat`
(`json_schema`). Bedrock decodes under a grammar compiled from it, so the answer parses by
construction; the first call with a new schema waits for the compile, then Bedrock caches it for
24 hours. Only some models take it (Claude 4.5 and later, some open-weight models); for any other
tool-capable model, `structured_output="tool"` forces a `record_facts` / `record_verdict` tool
call. The rules, prompts and schemas, and the checks on every answer (grounding, declared keys),
are shared with the OpenAI-compatible adapter (`agentmem.adapters.llm_prompts`): this module is
only the Converse transport.

Determinism: temperature 0 always. Seed support is model dependent: the seed goes in
`additionalModelRequestFields` only for families known to take one (Cohere: `seed`), or under the
field `seed_field` names. Anthropic models refuse unknown fields ("seed: Extra inputs are not
permitted"), so a seed sent to Claude would fail every call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.errors import translate_client_error
from agentmem.adapters.llm_prompts import facts, keys
from agentmem.adapters.llm_prompts.answers import ModelOutputError, OutputTool
from agentmem.model.beliefs import (
    Belief,
    FactInput,
    FactType,
    KeyCandidate,
    KeyChoice,
    KeyProposal,
    Observation,
    Verdict,
)
from agentmem.model.events import Event

if TYPE_CHECKING:
    from mypy_boto3_bedrock_runtime.client import BedrockRuntimeClient
    from mypy_boto3_bedrock_runtime.type_defs import ConverseResponseTypeDef

# Claude Haiku 4.5 through the US cross-region inference profile: the small current Claude, and
# one that takes native structured output on Converse. It has no in-region on-demand throughput,
# hence the `us.` profile; stacks elsewhere set `eu.`, `apac.` or `global.` in settings.
DEFAULT_MODEL_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
SEED_FIELDS = {"cohere": "seed"}  # providers whose native body takes a seed, and its field name
REGION_PREFIXES = frozenset({"us", "eu", "apac", "global", "us-gov", "jp", "au", "ca"})
StructuredOutput = Literal["json_schema", "tool"]


class BedrockLLM:
    def __init__(
        self,
        model_id: str = DEFAULT_MODEL_ID,
        *,
        client: BedrockRuntimeClient | None = None,
        seed: int | None = 7,
        seed_field: str | None = None,
        structured_output: StructuredOutput = "json_schema",
    ) -> None:
        self.model_id = model_id
        self._client: BedrockRuntimeClient = client or boto3.client(
            "bedrock-runtime", config=Config(retries={"mode": "standard"})
        )
        self._seed = seed
        self._seed_field = seed_field or SEED_FIELDS.get(_provider(model_id))
        self._structured_output = structured_output

    def extract_facts(
        self, event: Event, fact_types: Sequence[FactType], *, allow_undeclared: bool = False
    ) -> list[FactInput]:
        return facts.extract_facts(self.answer, event, fact_types, allow_undeclared=allow_undeclared)

    def decide(self, current: Belief, candidate: Observation, fact_type: FactType) -> Verdict:
        return facts.decide(self.answer, current, candidate, fact_type)

    def resolve_key(self, proposal: KeyProposal, candidates: Sequence[KeyCandidate]) -> KeyChoice:
        return keys.resolve_key(self.answer, proposal, candidates)

    def request(self, prompt: str, tool: OutputTool) -> dict[str, Any]:
        """The Converse parameters for one call (public so tests can inspect them)."""
        params: dict[str, Any] = {
            "modelId": self.model_id,
            "system": [{"text": tool.system}],
            "messages": [{"role": "user", "content": [{"text": prompt}]}],
            "inferenceConfig": {"temperature": 0, "maxTokens": tool.max_tokens},
        }
        if self._structured_output == "json_schema":
            schema = {"schema": json.dumps(tool.schema), "name": tool.name, "description": tool.description}
            params["outputConfig"] = {
                "textFormat": {"type": "json_schema", "structure": {"jsonSchema": schema}}
            }
        else:
            spec = {"name": tool.name, "description": tool.description, "inputSchema": {"json": tool.schema}}
            params["toolConfig"] = {
                "tools": [{"toolSpec": spec}],
                "toolChoice": {"tool": {"name": tool.name}},
            }
        if self._seed is not None and self._seed_field:
            params["additionalModelRequestFields"] = {self._seed_field: self._seed}
        return params

    def answer(self, action: str, prompt: str, tool: OutputTool) -> Any:
        try:
            response = self._client.converse(**self.request(prompt, tool))
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, action) from exc
        return self._payload(action, tool.name, response)

    def _payload(self, action: str, name: str, response: ConverseResponseTypeDef) -> Any:
        stop = response.get("stopReason", "")
        if stop not in ("end_turn", "tool_use", "stop_sequence"):
            # max_tokens, guardrail_intervened, content_filtered, malformed_*: no usable answer.
            raise ModelOutputError(f"{action}: the model stopped without a complete answer ({stop})")
        blocks = response.get("output", {}).get("message", {}).get("content", [])
        if self._structured_output == "tool":
            for block in blocks:
                if "toolUse" in block and block["toolUse"].get("name") == name:
                    return block["toolUse"].get("input")
            raise ModelOutputError(f"{action}: the model did not call {name}")
        text = "".join(block.get("text", "") for block in blocks)
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ModelOutputError(f"{action}: the model's answer is not JSON") from exc


def _provider(model_id: str) -> str:
    """`anthropic` for `us.anthropic.claude-...`; empty for an ARN, whose provider is not visible."""
    parts = model_id.split(".")
    return parts[1] if parts[0] in REGION_PREFIXES and len(parts) > 1 else parts[0]
