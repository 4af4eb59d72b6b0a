"""The tenant's declared fact types, and what happens to keys nobody declared."""

from __future__ import annotations

from collections.abc import Iterable

from agentmem.model.beliefs import Cardinality, FactType

DEFAULT_FACT_TYPES = (
    FactType(key="risk_tolerance", description="How much investment risk the subject accepts."),
    FactType(key="goal", cardinality=Cardinality.SET, description="A financial goal the subject pursues."),
    FactType(key="city", description="Where the subject lives."),
    FactType(key="income", description="The subject's regular income."),
    FactType(key="employer", description="Who the subject works for."),
    FactType(key="dependents", description="People who depend on the subject financially."),
    FactType(
        key="investment_preference", cardinality=Cardinality.SET, description="A stated like or dislike."
    ),
)


class FactTypeCatalog:
    def __init__(self, declared: Iterable[FactType], *, allow_undeclared: bool = True) -> None:
        self._types = {t.key: t for t in declared}
        self.allow_undeclared = allow_undeclared

    def get(self, key: str) -> FactType | None:
        """The declared type, a single-valued stand-in for an undeclared key when that is allowed,
        or None when the tenant refuses undeclared keys."""
        declared = self._types.get(key)
        if declared is not None:
            return declared
        return FactType(key=key) if self.allow_undeclared else None

    def declared_type(self, key: str) -> FactType | None:
        return self._types.get(key)

    def for_observation(self, key: str, member: str) -> FactType:
        """The type an observation was stored under: declared, or inferred from its member (an
        undeclared key is set-valued exactly when its observations carry members)."""
        return self._types.get(key) or FactType(
            key=key, cardinality=Cardinality.SET if member else Cardinality.SINGLE
        )

    def declared(self) -> list[FactType]:
        return sorted(self._types.values(), key=lambda t: t.key)
