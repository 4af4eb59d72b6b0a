"""`agentmem serve | project --once | replay` as a user runs them: real processes, real HTTP."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentmem.client import MemoryApiError, MemoryClient
from tests.functional.serve_process import agentmem_serve

FACT = {"key": "risk_tolerance", "text": "Priya is cautious about investment risk.", "value": "cautious"}


def agentmem(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentmem.entrypoints.cli", *args, "--data-dir", str(data_dir)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[MemoryClient, Path]]:
    with agentmem_serve(tmp_path / "data", start_seconds=30) as url:
        yield MemoryClient(url, retries=0), tmp_path / "data"


def wait_for_belief(client: MemoryClient, key: str, timeout: float = 30) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    while True:
        try:
            chain: dict[str, object] = client.request("GET", f"/v1/subjects/priya/beliefs/{key}")
            return chain
        except MemoryApiError as exc:
            if exc.status != 404 or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_serve_projects_appended_facts_in_the_background(served: tuple[MemoryClient, Path]) -> None:
    client, _ = served
    body = {"subject_id": "priya", "round": 0, "agent": "intake", "kind": "profile", "content": "noted"}
    client.request("POST", "/v1/sessions/S1/events", {**body, "facts": [FACT]})
    chain = wait_for_belief(client, "risk_tolerance")
    assert chain["current"][0]["value"] == "cautious"  # type: ignore[index]


def test_project_once_then_replay_switch_generations(tmp_path: Path) -> None:
    from agentmem.model.events import AppendEventRequest
    from agentmem.settings import Settings
    from agentmem.wiring import bootstrap

    data = tmp_path / "data"
    services = bootstrap(Settings(data_dir=data))
    for session, value in (("S1", "cautious"), ("S2", "aggressive")):
        services.episodic.append(
            session,
            AppendEventRequest.model_validate(
                {"subject_id": "priya", "round": 0, "agent": "a", "kind": "k", "content": "x",
                 "facts": [{**FACT, "value": value}]}
            ),
        )  # fmt: skip
    assert "projected 2 events" in agentmem("project", "--once", data_dir=data).stdout
    assert "projected 0 events" in agentmem("project", "--once", data_dir=data).stdout
    out = agentmem("replay", data_dir=data).stdout
    assert "replayed 2 events into generation 2 (was 1)" in out
    history = bootstrap(Settings(data_dir=data)).semantic.store.active().history("priya", "risk_tolerance")
    assert [(b.value, b.current) for b in history] == [("cautious", False), ("aggressive", True)]


def test_replay_of_one_subject_rebuilds_it_and_keeps_the_others(tmp_path: Path) -> None:
    from agentmem.model.events import AppendEventRequest
    from agentmem.settings import Settings
    from agentmem.wiring import bootstrap

    data = tmp_path / "data"
    services = bootstrap(Settings(data_dir=data))
    for subject, value in (("priya", "cautious"), ("sam", "aggressive"), ("priya", "balanced")):
        services.episodic.append(
            f"{subject}-S1",
            AppendEventRequest.model_validate(
                {"subject_id": subject, "round": 0, "agent": "a", "kind": "k", "content": "x",
                 "facts": [{**FACT, "value": value}]}
            ),
        )  # fmt: skip
    agentmem("project", "--once", data_dir=data)
    before = {s: services.semantic.store.active().history(s, "risk_tolerance") for s in ("priya", "sam")}
    out = agentmem("replay", "--subject", "priya", data_dir=data).stdout
    assert "into generation 2" in out
    after_index = bootstrap(Settings(data_dir=data)).semantic.store.active()
    assert after_index.generation == 2
    assert {s: after_index.history(s, "risk_tolerance") for s in before} == before
