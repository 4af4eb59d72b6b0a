"""Read-window benchmark: does one context read cost the same at 455 events as at 10,000?

    .venv/bin/python bench/read_window.py [--sizes 455,2310,4580,10000] [--samples 15]

One session grows to each size in turn (appended through `EpisodicService`, the team's varied
outputs from bench/tokens.py) for a subject with a few hundred current beliefs; at each size,
`POST /v1/context` is built in process (`services.context.build`, both default sources) three
ways, in the same run:
- previous: the behaviour this replaces, as a baseline: the session's first 5,000 events read
  from seq 0 and tokenised afresh on every read (what `/v1/context` did before the window);
- cold: the bounded window (the newest 1,000 events, read from the newest end), with nothing
  cached: the first read in a new process;
- warm: the same window while the session keeps growing: before each sample (untimed) the team
  appends one round of 6 events, so each read fetches and tokenises only those.

Reports wall-clock p50 / p99 and the process CPU time per read (both cores are shared with other
work, so CPU time is the steadier figure), checks that the trace counts the events outside the
window, prints a table with PASS/FAIL on the bar (warm p50 <= 60 ms at 10,000 events), writes
bench/results/read_window.json, and always exits 0. The default run takes 20-40 s."""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from report import bar, environment, percentile, print_table
from synthetic import synthetic_belief
from tokens import AGENTS, BIG_SUBJECT, DIMENSIONS, QUERY, event_text

from agentmem.context.service import ContextService
from agentmem.context.session_window import EventTerms, SessionWindow, SessionWindows
from agentmem.model.context import ContextRequest
from agentmem.model.events import AppendEventRequest, Event
from agentmem.ports.log import EventLog
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "read_window.json"
SEED = 20261201
SESSION = "growing"
BELIEFS = 300
SIZES = (455, 2310, 4580, 10_000)
PREVIOUS_CAP, PREVIOUS_PAGE = 5000, 1000
BAR_AT, BAR_P50_MS = 10_000, 60.0


class PreviousReads(SessionWindows):
    """The read this replaces: the first 5,000 events from seq 0, tokenised on every read."""

    def __init__(self, log: EventLog) -> None:
        super().__init__(log, size=PREVIOUS_CAP)
        self._previous_log = log

    def read(self, session_id: str) -> SessionWindow:
        events: list[Event] = []
        while len(events) < PREVIOUS_CAP:
            page = self._previous_log.list_events(
                session_id, after=events[-1].seq if events else 0, limit=PREVIOUS_PAGE
            )
            events.extend(page)
            if len(page) < PREVIOUS_PAGE:
                break
        return SessionWindow(PREVIOUS_CAP, tuple(EventTerms.of(e) for e in events))


@dataclass(frozen=True)
class Row:
    events: int
    mode: str
    samples: int
    p50_ms: float
    p99_ms: float
    cpu_p50_ms: float
    ranked: int
    outside: int
    used_tokens: int


def populate_beliefs(services: Services, rng: random.Random) -> None:
    index = services.semantic.store.active()
    vectors = np.random.default_rng(SEED).standard_normal((BELIEFS, DIMENSIONS), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for i in range(BELIEFS):
        belief = synthetic_belief(BIG_SUBJECT, i, f"Priya holds position {i} ({rng.random():.3f}).")
        index.replace_chain(
            BIG_SUBJECT, belief.key, "", expected_revision=0, chain=[belief], vector=vectors[i].tolist()
        )


def grow(services: Services, to: int, rng: random.Random) -> None:
    for i in range(services.event_log.last_seq(SESSION), to):
        agent, content = event_text(i, rng)
        services.episodic.append(
            SESSION,
            AppendEventRequest(
                subject_id=BIG_SUBJECT, round=i // AGENTS, agent=agent, kind="note", content=content
            ),
        )


def measure(label: str, size: int, read: Callable[[], Any], before: Callable[[], None], samples: int) -> Row:
    read()  # warm-up: the query embedding, connections, the window of a warm reader
    wall: list[float] = []
    cpu: list[float] = []
    trace = None
    for _ in range(samples):
        before()
        start, start_cpu = time.perf_counter(), time.process_time()
        trace = read().trace
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    wall.sort()
    cpu.sort()
    window = trace.episodic_window if trace is not None else None
    return Row(
        events=size,
        mode=label,
        samples=samples,
        p50_ms=round(percentile(wall, 50) * 1e3, 1),
        p99_ms=round(percentile(wall, 99) * 1e3, 1),
        cpu_p50_ms=round(percentile(cpu, 50) * 1e3, 1),
        ranked=window.ranked if window else 0,
        outside=window.outside if window else 0,
        used_tokens=trace.used_tokens if trace is not None else 0,
    )


def measure_size(
    services: Services,
    request: ContextRequest,
    size: int,
    previous: ContextService,
    warm: ContextService,
    reader: Callable[[SessionWindows], ContextService],
    samples: int,
) -> list[Row]:
    cold_windows = SessionWindows(services.event_log)
    cold = reader(cold_windows)

    def forget() -> None:
        cold_windows.forget_subject(BIG_SUBJECT)

    def one_round() -> None:
        grow(services, services.event_log.last_seq(SESSION) + AGENTS, rng=random.Random(size))

    return [
        # The baseline is slow and steady: a third of the samples gives its median.
        measure("previous", size, lambda: previous.build(request), lambda: None, max(3, samples // 3)),
        measure("cold", size, lambda: cold.build(request), forget, samples),
        measure("warm", size, lambda: warm.build(request), one_round, samples),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="session sizes to read at")
    parser.add_argument("--samples", type=int, default=12, help="timed reads per mode and size")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
    logging.getLogger("agentmem").setLevel(logging.WARNING)
    started = time.perf_counter()
    rng = random.Random(SEED)
    rows: list[Row] = []
    checks: list[str] = []
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-window-") as tmp:
        services = bootstrap(Settings(data_dir=Path(tmp)))
        populate_beliefs(services, rng)
        request = ContextRequest(
            subject_id=BIG_SUBJECT, session_id=SESSION, agent="compliance", query=QUERY, budget_tokens=1500
        )

        def reader(windows: SessionWindows) -> ContextService:
            return ContextService(
                services.event_log, services.episodic, lambda: services.semantic, services.context._count,
                windows=windows,
            )  # fmt: skip

        previous = reader(PreviousReads(services.event_log))
        warm = reader(SessionWindows(services.event_log))
        for size in sizes:
            grow(services, size, rng)
            last = services.event_log.last_seq(SESSION)
            rows += measure_size(services, request, size, previous, warm, reader, args.samples)
            final = services.event_log.last_seq(SESSION)
            expected_outside = max(final - warm.windows.size, 0)
            if rows[-1].outside != expected_outside:
                checks.append(f"{size}: trace says {rows[-1].outside} outside, expected {expected_outside}")
            print(
                f"  {size:>6,} events (+{final - last} appended while measuring)", file=sys.stderr, flush=True
            )

    print(f"\none context read (both sources, budget 1,500 tokens), subject with {BELIEFS} beliefs")
    print_table(
        ["events", "mode", "samples", "p50 ms", "p99 ms", "cpu p50 ms", "ranked", "outside", "tokens"],
        [
            [f"{r.events:,}", r.mode, str(r.samples), f"{r.p50_ms:.1f}", f"{r.p99_ms:.1f}",
             f"{r.cpu_p50_ms:.1f}", f"{r.ranked:,}", f"{r.outside:,}", str(r.used_tokens)]
            for r in rows
        ],
    )  # fmt: skip
    warm_rows = [r for r in rows if r.mode == "warm"]
    at_bar = next((r for r in warm_rows if r.events >= BAR_AT), warm_rows[-1] if warm_rows else None)
    bars: dict[str, Any] = {}
    if at_bar is not None:
        bars["warm_read_p50_ms"] = bar(at_bar.p50_ms, BAR_P50_MS, "<=", "ms") | {"events": at_bar.events}
        print(
            f"\nbar: warm read p50 at {at_bar.events:,} events {at_bar.p50_ms:.1f} ms <= {BAR_P50_MS:.0f} ms:"
            f" {'PASS' if bars['warm_read_p50_ms']['pass'] else 'FAIL'}"
        )
    baseline = {r.events: r for r in rows if r.mode == "previous"}
    for r in warm_rows:
        if r.events in baseline and r.p50_ms > 0:
            speedup = baseline[r.events].p50_ms / r.p50_ms
            print(f"  {r.events:>6,} events: warm p50 {speedup:.1f}x faster than previous")
    for problem in checks:
        print(f"CHECK FAILED: {problem}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {"meta": environment(time.perf_counter() - started), "rows": [asdict(r) for r in rows],
             "bars": bars, "checks_failed": checks},
            indent=2,
        )
    )  # fmt: skip
    print(f"wrote {RESULTS.relative_to(ROOT)} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
