"""An answer's schema, generated from the pydantic model the answer is parsed with, and the error
for an answer that does not fit it.

The schema is shaped for constrained decoding as the servers share it (Bedrock's native
structured output, OpenAI's `strict` mode, llama.cpp's grammar conversion): `$ref`s inlined,
every object closed with every property required, and only the keywords all of them take. Length
and range constraints (`minLength`, `minimum`, ...) are left to parsing, which checks them: a
decoder that refused the schema for them would fail every call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agentmem.errors import AgentMemError

# The schema keywords kept; the rest (titles, defaults, length and range limits) are dropped.
SCHEMA_KEYWORDS = frozenset({"type", "properties", "items", "enum", "description", "anyOf"})


class ModelOutputError(AgentMemError):
    """The model's answer did not fit the schema: truncated, refused, filtered, or malformed.

    Not retryable: at temperature 0 the same request tends to give the same answer, so a retry
    loop would only spend tokens. The stream projector still fails the record, which keeps it for
    the stream's retry policy and its on-failure destination; nothing is dropped silently."""

    code = "model_output_invalid"


def answer_schema(model: type[BaseModel]) -> dict[str, Any]:
    """`model`'s JSON schema as a decoder takes it (see the module docstring)."""
    full = model.model_json_schema()
    definitions: dict[str, Any] = full.get("$defs", {})

    def shaped(node: Any) -> Any:
        if isinstance(node, list):
            return [shaped(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return shaped(definitions[node["$ref"].rsplit("/", 1)[-1]])
        out: dict[str, Any] = {}
        for keyword, value in node.items():
            if keyword == "properties":
                out[keyword] = {name: shaped(sub) for name, sub in value.items()}
            elif keyword in SCHEMA_KEYWORDS:
                out[keyword] = shaped(value)
        if out.get("type") == "object":
            out["required"] = list(out.get("properties", {}))
            out["additionalProperties"] = False
        return out

    schema: dict[str, Any] = shaped(full)
    return schema


@dataclass(frozen=True)
class OutputTool:
    """One structured answer: its name and description (the tool or schema name a model sees),
    the pydantic model it is parsed with, the call's token ceiling and its system rules. The
    schema is generated from `answer`."""

    name: str
    description: str
    answer: type[BaseModel]
    max_tokens: int
    system: str
    schema: dict[str, Any] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "schema", answer_schema(self.answer))


Ask = Callable[[str, str, OutputTool], Any]
"""One structured call: (action, user prompt, tool) -> the answer's JSON payload, unparsed. The
adapter's transport; it raises domain errors (BackendUnavailableError, ModelOutputError, ...)."""

_Answer = TypeVar("_Answer", bound=BaseModel)


def parse(model: type[_Answer], payload: Any, action: str = "answer") -> _Answer:
    """The payload as `model`, or a ModelOutputError naming the first fields that do not fit. A
    field the schema requires must be present even where the model has a default: an answer that
    left a list out must not read as an empty list."""
    if isinstance(payload, dict):
        missing = [name for name in model.model_fields if name not in payload]
        if missing:
            raise ModelOutputError(f"{action}: the model's answer does not fit the schema ({missing[0]})")
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        fields = ", ".join(".".join(str(p) for p in e["loc"]) or "answer" for e in exc.errors()[:3])
        raise ModelOutputError(f"{action}: the model's answer does not fit the schema ({fields})") from exc
