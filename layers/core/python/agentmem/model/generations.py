"""What `agentmem replay --shadow` records about a belief generation it builds beside the live one."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue


class ShadowBuild(BaseModel):
    """A shadow generation: built from the log with `overrides` on top of the tenant's settings,
    never read until `replay --promote` switches readers to it."""

    model_config = ConfigDict(frozen=True)

    generation: int
    live_generation: int = Field(description="The generation readers used when the build began.")
    overrides: dict[str, str] = Field(
        description="The settings the shadow was built with, as given (`llm`, `embedder`, ...)."
    )
    settings: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="Every setting projection reads, as the build had them: promotion compares them.",
    )
    state: Literal["building", "complete"]
    events_read: int = 0
