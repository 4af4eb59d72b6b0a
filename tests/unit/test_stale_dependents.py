"""The projection step that moves a belief marks what was built on it: a dependent is stale exactly
when a belief it used moved past the version it saw, or its subject was erased. Driven through the
real semantic service, erasure service and SQLite dependents index, with a flat embedder."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmem.model.beliefs import FactInput
from agentmem.model.dependents import BeliefRef, BeliefUse
from agentmem.model.events import Event
from agentmem.semantic.projector import Projector
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

SUBJECTS = ("priya", "omar")
KEYS = ("risk_tolerance", "city")
VALUES = ("cautious", "aggressive", "balanced")
REFS = [BeliefRef(subject_id=s, key=k) for s in SUBJECTS for k in KEYS]
DEPENDENTS = ("guidance:a", "guidance:b", "asset:c")


class FlatEmbedder:
    model_id, dimensions = "flat", 4

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[0.5, 0.5, 0.5, 0.5] for _ in texts]


def services_in(folder: Path) -> Services:
    return bootstrap(Settings(data_dir=folder), embedder=FlatEmbedder())


def statement(subject: str, key: str, value: str, n: int) -> Event:
    return Event(
        event_id=f"ev_{n}", session_id=f"{subject}-s1", seq=n, subject_id=subject, round=0, agent="a",
        kind="note", media_type="text/plain", content=f"{key} is {value}",
        created_at=f"2026-01-01T00:00:{n:02d}.000Z",
        facts=[FactInput(key=key, text=f"{subject}'s {key} is {value}.", value=value)],
    )  # fmt: skip


def record(services: Services, dependent: str, refs: Sequence[BeliefRef]) -> dict[BeliefRef, int]:
    seen = {ref: services.semantic.version_of(ref) for ref in refs}
    services.ports.dependents.record(dependent, [BeliefUse(ref, v) for ref, v in seen.items()])
    return seen


def test_a_new_version_marks_a_guidance_that_cites_the_old_one_in_the_same_step(tmp_path: Path) -> None:
    services = services_in(tmp_path)
    projector = services.semantic.projector()
    risk = BeliefRef(subject_id="priya", key="risk_tolerance")
    projector.project(statement("priya", "risk_tolerance", "cautious", 1))
    record(services, "guidance:g", [risk])

    projector.project(statement("priya", "risk_tolerance", "cautious", 2))  # SAME: no new version
    assert services.ports.dependents.stale_of("guidance:g") == []
    projector.project(statement("priya", "risk_tolerance", "aggressive", 3))

    (stale,) = services.ports.dependents.stale_of("guidance:g")
    assert (stale.belief, stale.from_version, stale.to_version) == ("priya/risk_tolerance", 1, 2)
    assert stale.reason in {"updated", "contradicted"}


def test_a_redelivered_event_marks_what_a_crash_left_unmarked(tmp_path: Path) -> None:
    services = services_in(tmp_path)
    risk = BeliefRef(subject_id="priya", key="risk_tolerance")
    services.semantic.projector().project(statement("priya", "risk_tolerance", "cautious", 1))
    services.ports.dependents.record("guidance:g", [BeliefUse(risk, 1)])
    # The belief moved without the marker (as if the process died between the write and the mark).
    semantic = services.semantic
    unmarked = Projector(semantic.store.active(), semantic.llm, semantic.embedder, semantic.fact_types)
    unmarked.project(statement("priya", "risk_tolerance", "aggressive", 2))
    assert services.ports.dependents.stale_of("guidance:g") == []

    services.semantic.project(statement("priya", "risk_tolerance", "aggressive", 2))  # redelivered

    assert services.ports.dependents.stale_of("guidance:g")[0].to_version == 2


Step = tuple[str, int, int, int]  # (op, a, b, c): append(subject, key, value), erase(subject), record(dep)

steps = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 1), st.integers(0, 1), st.integers(0, 2)),
        st.tuples(st.just("erase"), st.integers(0, 1), st.just(0), st.just(0)),
        st.tuples(st.just("record"), st.integers(0, 2), st.integers(1, 15), st.just(0)),
    ),
    max_size=14,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_exactly_the_dependents_whose_inputs_changed_are_stale(script: list[Step]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        services = services_in(Path(folder))
        recorded: dict[str, dict[BeliefRef, int]] = {}
        erased_since: dict[str, set[str]] = {d: set() for d in DEPENDENTS}
        for n, (op, a, b, c) in enumerate(script, start=1):
            if op == "append":
                event = statement(SUBJECTS[a], KEYS[b], VALUES[c], n)
                services.semantic.project(event)  # skipped once its subject is erased
            elif op == "erase":
                services.erasure.erase(SUBJECTS[a])
                for dependent in DEPENDENTS:
                    erased_since[dependent].add(SUBJECTS[a])
            else:
                dependent = DEPENDENTS[a]
                refs = [ref for i, ref in enumerate(REFS) if b >> i & 1]  # a non-empty subset
                recorded[dependent] = record(services, dependent, refs)
                erased_since[dependent] = set()
        for dependent, seen in recorded.items():
            changed = {
                ref.name
                for ref, version in seen.items()
                if services.semantic.version_of(ref) != version or ref.subject_id in erased_since[dependent]
            }
            stale = {s.belief for s in services.ports.dependents.stale_of(dependent)}
            assert stale == changed, (dependent, script)
