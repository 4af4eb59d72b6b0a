"""What an authored item (a guidance entry, a knowledge asset) cites, recorded at the belief
versions current when it was written, and read back as its staleness."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agentmem.model.dependents import BeliefRef, BeliefUse, Staleness
from agentmem.ports.dependents import DependentsIndex


def guidance_dependent(guidance_id: str) -> str:
    return f"guidance:{guidance_id}"


def asset_dependent(asset_id: str) -> str:
    return f"asset:{asset_id}"


class Citations:
    """`version_of` reads a belief's current version (0: none), from the live generation."""

    def __init__(self, index: DependentsIndex, version_of: Callable[[BeliefRef], int]) -> None:
        self.index = index
        self._version_of = version_of

    def cite(self, dependent: str, refs: Sequence[BeliefRef], stamp: str) -> None:
        """Record `dependent`, written as `stamp` (its version), as built on `refs` now. The same
        stamp again is a restatement: it is still built on what it was, stale or not."""
        if not refs:
            if self.index.body_of(dependent) is not None:
                self.index.forget(dependent)  # rewritten to cite nothing
            return
        if self.index.body_of(dependent) == stamp:
            return
        uses = [BeliefUse(ref, self._version_of(ref)) for ref in dict.fromkeys(refs)]
        self.index.record(dependent, uses, body=stamp)

    def cite_guidance(self, guidance_id: str, refs: Sequence[BeliefRef], version: int) -> None:
        """Guidance's version `version`, however it was written (the routes, an Agent Skills
        import): one naming and one stamp, so a restatement by another path is still one."""
        self.cite(guidance_dependent(guidance_id), refs, f"v{version}")

    def cite_asset(self, asset_id: str, refs: Sequence[BeliefRef], revision: int) -> None:
        """An asset as written in catalogue revision `revision`: every write of it is a new build,
        at the versions now (its content is not versioned, the catalogue is)."""
        self.cite(asset_dependent(asset_id), refs, f"r{revision}")

    def stale(self, dependent: str) -> list[Staleness]:
        return self.index.stale_of(dependent)

    def forget(self, dependent: str) -> None:
        self.index.forget(dependent)
