"""Two projectors updating one key at once lose nothing: compare-and-set, then a retry."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from agentmem.errors import VersionConflictError
from agentmem.model.beliefs import Belief, FactInput
from agentmem.model.events import Event
from agentmem.ports.semantic import BeliefIndex
from agentmem.settings import Settings
from agentmem.wiring import bootstrap


class RacingIndex:
    """Delegates to a real index, but holds each thread's first write until both threads are
    about to write: both read the chain before either wrote, so one of the two writes must lose."""

    def __init__(self, inner: BeliefIndex, parties: int) -> None:
        self._inner = inner
        self._barrier = threading.Barrier(parties, timeout=10)
        self._seen: set[int] = set()
        self.conflicts = 0
        self.generation = inner.generation

    def chain(self, subject_id: str, key: str, member: str) -> tuple[int, list[Belief]]:
        return self._inner.chain(subject_id, key, member)

    def replace_chain(self, *args: Any, **kwargs: Any) -> None:
        if threading.get_ident() not in self._seen:
            self._seen.add(threading.get_ident())
            self._barrier.wait()
        try:
            self._inner.replace_chain(*args, **kwargs)
        except VersionConflictError:
            self.conflicts += 1
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def event(n: int, value: str) -> Event:
    return Event(
        event_id=f"ev{n}", session_id=f"S{n}", seq=1, subject_id="priya", round=0, agent="intake",
        kind="profile", media_type="text/plain", content="noted", created_at=f"2026-11-30T00:00:0{n}.000Z",
        facts=[FactInput(key="risk_tolerance", text=f"Priya is {value}.", value=value)],
    )  # fmt: skip


def test_concurrent_projectors_on_one_key_converge_to_the_serial_result(tmp_path: Path) -> None:
    semantic = bootstrap(Settings(data_dir=tmp_path / "data")).semantic
    events = [event(1, "cautious"), event(2, "aggressive")]

    racing = RacingIndex(semantic.store.active(), parties=2)
    threads = [
        threading.Thread(target=semantic.projector(racing).project, args=(e,))  # type: ignore[arg-type]
        for e in events
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)

    serial = semantic.store.new_generation()
    for e in events:
        semantic.projector(serial).project(e)
    assert racing.conflicts >= 1, "the race did not happen, so the test proved nothing"
    assert semantic.store.active().history("priya", "risk_tolerance") == serial.history(
        "priya", "risk_tolerance"
    )
    assert [b.value for b in serial.history("priya", "risk_tolerance")] == ["cautious", "aggressive"]
