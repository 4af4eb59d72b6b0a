"""The record of shadow generations: which exist, with what settings, and whether they are whole."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from pydantic import JsonValue

from agentmem.model.generations import ShadowBuild


class ShadowLedger(Protocol):
    """One tenant's shadow builds. A build is `building` from `begin` until `complete`; a build
    that died on the way stays `building`, and promotion refuses it."""

    def begin(
        self,
        generation: int,
        live_generation: int,
        overrides: Mapping[str, str],
        settings: Mapping[str, JsonValue],
    ) -> ShadowBuild:
        """Record that `generation` is being built with `overrides` (as given) and `settings` (every
        setting projection reads, in effect); a second begin of one generation restarts it."""
        ...

    def complete(self, generation: int, events_read: int) -> ShadowBuild:
        """Mark the build whole (it holds the log up to its checkpoint). KeyError if never begun."""
        ...

    def get(self, generation: int) -> ShadowBuild | None: ...

    def builds(self) -> list[ShadowBuild]:
        """Every recorded build, oldest generation first."""
        ...
