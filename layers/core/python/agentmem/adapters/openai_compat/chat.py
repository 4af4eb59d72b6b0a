"""The LLM port on an OpenAI-compatible chat completions server, through the official SDK.

Every call is temperature 0 with a fixed seed (Ollama, vLLM, llama.cpp and OpenAI document one),
with the system rules and the user prompt that the Bedrock adapter sends
(`agentmem.adapters.llm_prompts`), and the same checks on the answer.

Structured output: the schema goes first as `response_format={"type": "json_schema", ...,
"strict": true}`, which OpenAI, vLLM, Ollama, llama.cpp and LM Studio document. A server that
does not take it answers 400 or 422 naming `response_format`, `json_schema` or structured output
(e.g. a LiteLLM proxy in front of a provider without it); the adapter then asks again with a
forced tool call (`tools` + a named `tool_choice`) and keeps to tool calls for the rest of its
life, so each process pays for the probe once (the factory shares one adapter between the LLM
port's duties). Any other refusal is an error, never a reason to switch."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import openai

from agentmem.adapters.llm_prompts import facts, keys
from agentmem.adapters.llm_prompts.answers import ModelOutputError, OutputTool
from agentmem.adapters.openai_compat.errors import Target, translate_openai_error
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
    from openai.types.chat import ChatCompletion
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

logger = logging.getLogger(__name__)

StructuredOutput = Literal["json_schema", "tool"]
# What a server says when it does not take JSON-schema output (in its message or its `param`).
SCHEMA_REFUSED = re.compile(r"response.?format|json.?schema|structured output", re.IGNORECASE)
# Finish reasons that mean the answer is cut short. Servers vary in the rest (stop, tool_calls,
# eos, none at all), so anything else is read and then checked against the schema.
UNFINISHED = frozenset({"length", "content_filter"})
FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


class OpenAICompatLLM:
    def __init__(
        self,
        model: str,
        *,
        client: openai.OpenAI,
        seed: int | None = 7,
        structured_output: StructuredOutput = "json_schema",
        settings: str = "AGENTMEM_LLM",
    ) -> None:
        self.model = model
        self._client = client
        self._seed = seed
        self._target = Target(str(client.base_url), model, settings)
        self.structured_output: StructuredOutput = structured_output
        """How answers are bound to their schema; learnt on the first refusal, kept after."""

    def extract_facts(
        self, event: Event, fact_types: Sequence[FactType], *, allow_undeclared: bool = False
    ) -> list[FactInput]:
        return facts.extract_facts(self.answer, event, fact_types, allow_undeclared=allow_undeclared)

    def decide(self, current: Belief, candidate: Observation, fact_type: FactType) -> Verdict:
        return facts.decide(self.answer, current, candidate, fact_type)

    def resolve_key(self, proposal: KeyProposal, candidates: Sequence[KeyCandidate]) -> KeyChoice:
        return keys.resolve_key(self.answer, proposal, candidates)

    def request(
        self, prompt: str, tool: OutputTool, mode: StructuredOutput | None = None
    ) -> CompletionCreateParamsNonStreaming:
        """The chat completion parameters for one call (public so tests can inspect them)."""
        params: CompletionCreateParamsNonStreaming = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": tool.system},
                {"role": "user", "content": prompt},
            ],
            "temperature": 0,
            "max_tokens": tool.max_tokens,
        }
        if self._seed is not None:
            params["seed"] = self._seed
        if (mode or self.structured_output) == "json_schema":
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": tool.name,
                    "description": tool.description,
                    "schema": tool.schema,
                    "strict": True,
                },
            }
        else:
            # No `strict` here: the servers this fallback is for are the ones least likely to take it.
            params["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.schema,
                    },
                }
            ]
            params["tool_choice"] = {"type": "function", "function": {"name": tool.name}}
        return params

    def answer(self, action: str, prompt: str, tool: OutputTool) -> Any:
        mode = self.structured_output
        try:
            completion = self._client.chat.completions.create(**self.request(prompt, tool, mode))
        except openai.OpenAIError as exc:
            if mode != "json_schema" or not _refuses_json_schema(exc):
                raise translate_openai_error(exc, action, self._target) from exc
            logger.info(
                "server refused json_schema output; using a forced tool call from now on",
                extra={"base_url": self._target.base_url, "model": self.model, "action": action},
            )
            self.structured_output = mode = "tool"
            try:
                completion = self._client.chat.completions.create(**self.request(prompt, tool, mode))
            except openai.OpenAIError as retry_exc:
                raise translate_openai_error(retry_exc, action, self._target) from retry_exc
        return _payload(action, tool.name, mode, completion)


def _refuses_json_schema(exc: openai.OpenAIError) -> bool:
    if not isinstance(exc, openai.BadRequestError | openai.UnprocessableEntityError):
        return False
    said = " ".join(str(part) for part in (exc.param, exc.message, exc.body) if part)
    return bool(SCHEMA_REFUSED.search(said))


def _payload(action: str, name: str, mode: StructuredOutput, completion: ChatCompletion) -> Any:
    if not completion.choices:
        raise ModelOutputError(f"{action}: the server answered no choices")
    choice = completion.choices[0]
    if choice.finish_reason in UNFINISHED:
        raise ModelOutputError(
            f"{action}: the model stopped without a complete answer ({choice.finish_reason})"
        )
    message = choice.message
    if message.refusal:
        raise ModelOutputError(f"{action}: the model refused to answer")
    if mode == "tool":
        for call in message.tool_calls or []:
            if call.type == "function" and call.function.name == name:
                return _json(action, call.function.arguments)
        raise ModelOutputError(f"{action}: the model did not call {name}")
    return _json(action, message.content or "")


def _json(action: str, text: str) -> Any:
    """The answer's JSON. A fenced block (```json ... ```) is unwrapped first: some models write
    one even under a schema, and the fence is no part of the answer."""
    fenced = FENCE.match(text.strip())
    try:
        return json.loads(fenced.group(1) if fenced else text)
    except json.JSONDecodeError as exc:
        raise ModelOutputError(f"{action}: the model's answer is not JSON") from exc
