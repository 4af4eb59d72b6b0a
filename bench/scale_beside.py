"""Reads under load: the scale subject's context read over HTTP while the local worker projects
a batch of other subjects' events in its background thread, as `agentmem serve` does.

Each run appends `events` turns of newly generated subjects (ten sessions each, so a few
subjects) and starts a projector worker in its own thread; one reader then reads the scale
subject back to back, over HTTP, until the worker has projected every event and stored every
passage vector, and for at least `min_reads` reads. Two set-ups alternate, run by run, so that
the machine's load falls on both alike:
- `as before`: the worker thread at the server's own CPU priority;
- `background`: as the server now runs it: the model calls of the worker's thread run on threads
  of lowered CPU priority (adapters/local/thread_priority.py), and its drain lets the requests in
  flight go first (semantic/foreground.py; the server counts them).
Reported per set-up: the reads' p50 / p99 / max (medians over its runs) and the events per
second until every vector was in (the projection's rate while it yields)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from conversation_gen import generate_subject
from report import bar, percentile

from agentmem.adapters.local.thread_priority import work_in_background
from agentmem.model.events import AppendEventRequest
from agentmem.semantic.worker import ProjectorWorker, checkpoint_name
from agentmem.wiring import Services

READ_P50_MS_MAX, READ_P99_MS_MAX = 60.0, 150.0
SETUPS = ("as before", "background")


def _append(services: Services, events: int, seed: int, run: int) -> None:
    appended, index = 0, 0
    while appended < events:
        subject = generate_subject(seed + 100 + run, index, 10)
        for number, turns in enumerate(subject.sessions):
            for round_, turn in enumerate(turns):
                if appended == events:
                    return
                services.episodic.append(
                    f"beside-r{run}-s{index}-{number}",
                    AppendEventRequest(
                        subject_id=f"beside-r{run}-{index}",
                        round=round_,
                        agent=turn.agent,
                        kind=turn.kind,
                        content=turn.content,
                    ),
                )
                appended += 1
        index += 1


def _one_run(
    services: Services,
    read: Callable[[int], None],
    setup: str,
    events: int,
    seed: int,
    run: int,
    min_reads: int,
) -> dict[str, Any]:
    ports, semantic = services.ports, services.semantic
    generation = semantic.store.active().generation
    assert semantic.passages is not None
    passages = semantic.passages.generation(generation)
    _append(services, events, seed, run)
    now = setup == "background"
    worker = ProjectorWorker(
        ports.log_tail,
        semantic,
        ports.checkpoints,
        background=work_in_background if now else None,
        foreground=services.foreground if now else None,
    )

    def busy() -> bool:
        behind = ports.checkpoints.load(checkpoint_name(generation)) < ports.log_tail.head_position()
        return behind or bool(passages.pending(1))

    latencies: list[float] = []
    start = time.perf_counter()
    worker.start()
    done_at = None
    try:
        while done_at is None or len(latencies) < min_reads:
            began = time.perf_counter()
            read(len(latencies))
            latencies.append(time.perf_counter() - began)
            if done_at is None and not busy():
                done_at = time.perf_counter()
    finally:
        worker.stop()
    latencies.sort()
    seconds = done_at - start
    return {
        "setup": setup,
        "run": run,
        "reads": len(latencies),
        "p50_ms": round(percentile(latencies, 50) * 1e3, 1),
        "p99_ms": round(percentile(latencies, 99) * 1e3, 1),
        "max_ms": round(latencies[-1] * 1e3, 1),
        "projection_seconds": round(seconds, 2),
        "events_per_s": round(events / seconds, 1),
    }


def reads_beside_projection(
    services: Services,
    read: Callable[[int], None],
    *,
    events: int = 1000,
    rounds: int = 1,
    seed: int = 0,
    min_reads: int = 50,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Runs alternate between the set-ups (the first one alternating too); returns the result
    and its bars (the `background` set-up's p50 and p99 against the bars)."""
    runs = []
    for number in range(rounds):
        order = SETUPS if number % 2 == 0 else SETUPS[::-1]
        for setup in order:
            runs.append(_one_run(services, read, setup, events, seed, len(runs), min_reads))
            print(
                f"  beside {events} events, {setup:<10} p50 {runs[-1]['p50_ms']:>7.1f} ms, p99 "
                f"{runs[-1]['p99_ms']:>7.1f} ms, projection {runs[-1]['events_per_s']} events/s",
                flush=True,
            )
    summary = {}
    for setup in SETUPS:
        mine = [r for r in runs if r["setup"] == setup]
        summary[setup] = {
            key: round(statistics.median(r[key] for r in mine), 1)
            for key in ("p50_ms", "p99_ms", "max_ms", "events_per_s")
        }
    now = summary["background"]
    bars = {
        "scale_read_p50_ms_http_beside_projection": bar(now["p50_ms"], READ_P50_MS_MAX, "<=", "ms"),
        "scale_read_p99_ms_http_beside_projection": bar(now["p99_ms"], READ_P99_MS_MAX, "<=", "ms"),
    }
    return {"events": events, "rounds": rounds, "runs": runs, "summary": summary}, bars
