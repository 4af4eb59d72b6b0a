"""Token benchmark: what the six-agent team's prompts cost by reference against by value, and what
one context read costs at scale.

    .venv/bin/python bench/tokens.py [--quick]

(1) The demo team (`agentmem.demo`: intake, transaction-analysis, goal-planning, market-context,
    recommendation, compliance) advises one client for 1..20 sessions (quick: 1..10) over HTTP
    against the local server, the projector drained after every agent. Every agent prompt is
    counted (o200k_base) two ways:
    - by reference: the agent's instruction plus the context slice it read from `POST /v1/context`,
      capped by a 1,500-token prompt budget;
    - by value, the naive chain: the instruction plus every earlier output of this session plus a
      replay of all earlier sessions' outputs, the 41 KB bank export (session 1) and the monthly
      statements pasted as a chain that passes context along would paste them. Also reported
      with the statements left out, the chain's text alone.
    A run of 20 sessions gives every shorter sweep too: session N's figures never depend on later
    sessions. Per round = one session, summed over its 6 agent prompts; cumulative = sessions 1..N.
(2) A PNG of tokens per round and cumulative tokens against sessions, one line per mode, the
    by-reference budget drawn as a horizontal line: docs/tokens.png.
(3) Read latency of one context read on the local backend for a subject holding 10,000 current
    beliefs (written straight into the index with seeded random unit vectors, as bench/project.py
    does) and a session of 1,000 events (appended through `EpisodicService`): in-process
    (`services.context.build`) and over HTTP (`POST /v1/context` through `MemoryClient`), p50 and
    p99. For information, the same read at 10, 100 and 300 events and with one source only.
    Each row takes samples until its count or its time budget runs out, at least 3.

Prints tables and PASS/FAIL per bar, writes bench/results/tokens.json, and always exits 0."""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from report import bar, percentile, print_table
from synthetic import synthetic_belief

from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.demo import PROMPT_BUDGET, Step, fresh_data_dir, run_sessions
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import LocalServer
from agentmem.model.context import ContextRequest
from agentmem.model.events import AppendEventRequest
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "tokens.json"
PLOT = ROOT / "docs" / "tokens.png"
AGENTS = 6
SEED = 20261130
BIG_SUBJECT = "priya"
BELIEFS = 10_000
SESSION_SIZES = (10, 100, 300, 1000)
DIMENSIONS = 384
QUERY = "does the recommendation fit her risk tolerance and preferences; did she change her mind"

# Bars.
REDUCTION_AT = 10
REDUCTION_MIN = 0.90
READ_P50_MS_MAX = 50.0


# -- (1) the sweep ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Round:
    session: int
    by_reference: int
    by_value: int
    by_value_no_statements: int
    cumulative_by_reference: int
    cumulative_by_value: int
    cumulative_by_value_no_statements: int
    cumulative_reduction: float
    cumulative_reduction_no_statements: float
    max_prompt_by_reference: int
    max_context_tokens: int


def rounds_of(steps: list[Step]) -> list[Round]:
    out: list[Round] = []
    totals = [0, 0, 0]
    for number in sorted({s.session for s in steps}):
        mine = [s for s in steps if s.session == number]
        per = [
            sum(s.by_reference for s in mine),
            sum(s.by_value for s in mine),
            sum(s.by_value_no_statements for s in mine),
        ]
        totals = [t + p for t, p in zip(totals, per, strict=True)]
        out.append(
            Round(
                session=number,
                by_reference=per[0],
                by_value=per[1],
                by_value_no_statements=per[2],
                cumulative_by_reference=totals[0],
                cumulative_by_value=totals[1],
                cumulative_by_value_no_statements=totals[2],
                cumulative_reduction=round(1 - totals[0] / totals[1], 4),
                cumulative_reduction_no_statements=round(1 - totals[0] / totals[2], 4),
                max_prompt_by_reference=max(s.by_reference for s in mine),
                max_context_tokens=max(s.context_tokens for s in mine),
            )
        )
    return out


def run_sweep(sessions: int) -> tuple[list[Step], float]:
    data_dir = fresh_data_dir("agentmem-bench-tokens")  # blob URIs are rendered: same path, same counts
    try:
        services = bootstrap(Settings(data_dir=data_dir))
        worker = local_worker(services)
        with LocalServer(lambda: build_resolver(services), port=0) as server:
            start = time.perf_counter()
            run = run_sessions(MemoryClient(server.url, timeout_seconds=120), worker.settle, sessions)
            return run.steps, time.perf_counter() - start
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def plot(rounds: list[Round], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r.session for r in rounds]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5.2), dpi=110)
    left.plot(x, [r.by_value for r in rounds], "o-", color="#c0392b", label="by value (naive chain)")
    left.plot(
        x,
        [r.by_value_no_statements for r in rounds],
        "o--",
        color="#e67e22",
        label="by value, statements left out",
    )
    left.plot(x, [r.by_reference for r in rounds], "o-", color="#2471a3", label="by reference (agentmem)")
    left.axhline(
        AGENTS * PROMPT_BUDGET,
        color="#2471a3",
        linestyle=":",
        label=f"by-reference budget: {AGENTS} x {PROMPT_BUDGET:,} per round",
    )
    left.set_title(f"Tokens per round (one session: {AGENTS} agent prompts summed)")
    right.plot(
        x, [r.cumulative_by_value for r in rounds], "o-", color="#c0392b", label="by value (naive chain)"
    )
    right.plot(
        x,
        [r.cumulative_by_value_no_statements for r in rounds],
        "o--",
        color="#e67e22",
        label="by value, statements left out",
    )
    right.plot(
        x, [r.cumulative_by_reference for r in rounds], "o-", color="#2471a3", label="by reference (agentmem)"
    )
    right.plot(x, [AGENTS * PROMPT_BUDGET * n for n in x], color="#2471a3", linestyle=":")
    right.set_title("Cumulative prompt tokens, sessions 1..N")
    left.set_xlabel("session (one round of 6 agents)")
    right.set_xlabel("sessions run (N)")
    for ax in (left, right):
        ax.set_yscale("log")
        ax.set_ylabel("prompt tokens (o200k_base, log scale)")
        ax.set_xticks(x[:: 1 if len(x) <= 10 else 2])
        ax.grid(True, which="major", alpha=0.3)
    handles, labels = left.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


# -- (3) read latency at scale ------------------------------------------------------------------------

WHO = ("Priya", "The client", "She")
VERBS = ("prefers", "avoids", "holds", "wants more", "is worried about", "asked about", "plans to sell")
THINGS = (
    "low-cost index funds",
    "municipal bonds",
    "individual tech stocks",
    "rental real estate",
    "a high-yield savings account",
    "gold",
    "dividend stocks",
    "target-date funds",
    "treasury bills",
    "emerging market equities",
    "a 529 college plan",
    "bitcoin",
)
TAILS = (
    "for retirement",
    "before the house purchase",
    "because of high fees",
    "after the annual bonus",
    "while rates are high",
    "for the emergency fund",
    "ahead of the baby",
)


def populate_beliefs(services: Services, count: int, rng: random.Random) -> float:
    """`count` one-version chains for BIG_SUBJECT, written straight into the active index."""
    index = services.semantic.store.active()
    vectors = np.random.default_rng(SEED).standard_normal((count, DIMENSIONS), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    start = time.perf_counter()
    for i in range(count):
        text = (
            f"{rng.choice(WHO)} {rng.choice(VERBS)} {rng.choice(THINGS)} {rng.choice(TAILS)}"
            f" (account ref{i:07d})."
        )
        belief = synthetic_belief(BIG_SUBJECT, i, text, session_id="bench-beliefs")
        index.replace_chain(
            BIG_SUBJECT, belief.key, "", expected_revision=0, chain=[belief], vector=vectors[i].tolist()
        )
    return time.perf_counter() - start


def event_text(i: int, rng: random.Random) -> tuple[str, str]:
    """(agent, content): a varied one-paragraph output, as the team would append."""
    n = rng.randint(40, 9000)
    pick = [
        (
            "transaction-analysis",
            f"Week {i}: {rng.choice(('groceries', 'dining', 'travel', 'shopping'))} "
            f"came to ${n:,} against a ${n + rng.randint(-300, 600):,} budget; {rng.choice(THINGS)} "
            f"contributions ran {rng.randint(1, 30)}% ahead of plan.",
        ),
        (
            "market-context",
            f"Note {i}: the Nasdaq-100 moved {rng.uniform(-4, 4):+.1f}% and the 10-year "
            f"yield sits at {rng.uniform(3.5, 4.8):.2f}%; {rng.choice(THINGS)} led while "
            f"{rng.choice(THINGS)} lagged {rng.choice(TAILS)}.",
        ),
        (
            "goal-planning",
            f"Check {i}: the {rng.choice(('house', 'baby', 'college', 'sabbatical'))} fund "
            f"holds ${n:,} of ${n * rng.randint(2, 9):,}, with {rng.randint(3, 200)} months left; "
            f"contribute ${rng.randint(100, 2500):,} a month {rng.choice(TAILS)}.",
        ),
        (
            "recommendation",
            f"Rebalance {i}: move {rng.randint(1, 15)}% from {rng.choice(THINGS)} to "
            f"{rng.choice(THINGS)} and keep {rng.randint(3, 20)}% in cash {rng.choice(TAILS)}.",
        ),
        (
            "compliance",
            f"Ticket {i}-{n}: the order for {rng.choice(THINGS)} is within limits; "
            f"concentration {rng.uniform(0.5, 9.5):.1f}% of the portfolio, reviewed {rng.choice(TAILS)}.",
        ),
    ]
    return pick[i % len(pick)]


def populate_session(services: Services, session_id: str, events: int, rng: random.Random) -> None:
    for i in range(events):
        agent, content = event_text(i, rng)
        services.episodic.append(
            session_id,
            AppendEventRequest(
                subject_id=BIG_SUBJECT, round=i // AGENTS, agent=agent, kind="note", content=content
            ),
        )


@dataclass(frozen=True)
class ReadLatency:
    mode: str  # "in-process" | "http"
    events: int
    include: str
    samples: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    used_tokens: int
    stopped_by_budget: bool


def sample(call: Callable[[], int], most: int, budget_s: float) -> tuple[list[float], int, bool]:
    used = call()  # warm-up: first embedding, caches, connections
    out: list[float] = []
    deadline = time.perf_counter() + budget_s
    while len(out) < most and (len(out) < 3 or time.perf_counter() < deadline):
        start = time.perf_counter()
        call()
        out.append(time.perf_counter() - start)
    return sorted(out), used, len(out) < most


def measure_reads(quick: bool) -> tuple[dict[str, Any], list[ReadLatency]]:
    rng = random.Random(SEED)
    most, budget_s = (10, 12.0) if quick else (50, 40.0)
    results: list[ReadLatency] = []
    setup: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-read-") as tmp:
        services = bootstrap(Settings(data_dir=Path(tmp)))
        setup["populate_beliefs_seconds"] = round(populate_beliefs(services, BELIEFS, rng), 2)
        start = time.perf_counter()
        for size in SESSION_SIZES:
            populate_session(services, f"read-{size}", size, rng)
        setup["append_events_seconds"] = round(time.perf_counter() - start, 2)
        setup["current_beliefs"] = len(services.semantic.store.active().current(BIG_SUBJECT))
        plan = [("in-process", size, "episodic+semantic") for size in SESSION_SIZES]
        plan += [
            ("in-process", 1000, "semantic"),
            ("in-process", 1000, "episodic"),
            ("http", 100, "episodic+semantic"),
            ("http", 1000, "episodic+semantic"),
        ]
        with LocalServer(lambda: build_resolver(services), port=0) as server:
            client = MemoryClient(server.url, timeout_seconds=300, retries=0)
            for mode, size, include in plan:
                body = {
                    "subject_id": BIG_SUBJECT,
                    "session_id": f"read-{size}",
                    "agent": "compliance",
                    "query": QUERY,
                    "budget_tokens": PROMPT_BUDGET,
                    "include": include.split("+"),
                }

                def call(mode: str = mode, body: dict[str, Any] = body) -> int:
                    if mode == "in-process":
                        return services.context.build(ContextRequest.model_validate(body)).trace.used_tokens
                    return int(client.request("POST", "/v1/context", body)["trace"]["used_tokens"])

                lat, used, cut = sample(call, most, budget_s)
                results.append(
                    ReadLatency(
                        mode,
                        size,
                        include,
                        len(lat),
                        round(percentile(lat, 50) * 1e3, 1),
                        round(percentile(lat, 99) * 1e3, 1),
                        round(lat[-1] * 1e3, 1),
                        used,
                        cut,
                    )
                )
                print(
                    f"  {mode:<10} {size:>5} events {include:<17} p50 {results[-1].p50_ms:>9,.1f} ms "
                    f"({len(lat)} samples)",
                    flush=True,
                )
    return setup, results


# -- report -------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="10 sessions and fewer read samples (a smoke run)"
    )
    args = parser.parse_args()
    sessions = 10 if args.quick else 20
    logging.getLogger("agentmem").setLevel(logging.WARNING)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")

    print(
        f"agentmem tokens bench ({'quick' if args.quick else 'full'}): {sessions} sessions x {AGENTS} agents,"
    )
    print(
        f"prompt budget {PROMPT_BUDGET:,} tokens (instruction + context), o200k_base; python "
        f"{platform.python_version()}, {os.cpu_count()} CPUs\n"
    )
    steps, sweep_seconds = run_sweep(sessions)
    rounds = rounds_of(steps)
    print(
        f"(1) tokens per round (one session, {AGENTS} prompts summed) and cumulative, "
        "by reference vs by value"
    )
    print_table(
        [
            "sessions",
            "round by ref",
            "round by value",
            "round no stmts",
            "cum by ref",
            "cum by value",
            "cum no stmts",
            "saved",
            "saved no stmts",
            "max prompt",
        ],
        [
            [
                str(r.session),
                f"{r.by_reference:,}",
                f"{r.by_value:,}",
                f"{r.by_value_no_statements:,}",
                f"{r.cumulative_by_reference:,}",
                f"{r.cumulative_by_value:,}",
                f"{r.cumulative_by_value_no_statements:,}",
                f"{r.cumulative_reduction:.1%}",
                f"{r.cumulative_reduction_no_statements:.1%}",
                f"{r.max_prompt_by_reference:,}",
            ]
            for r in rounds
        ],
    )
    print(
        f"no stmts: the naive chain with the bank statements (CSV) left out. max prompt: the largest "
        f"by-reference\nprompt of the round (budget {PROMPT_BUDGET:,}). The sweep took {sweep_seconds:.1f} s "
        "over HTTP."
    )
    last = rounds[-1]
    per_agent = {
        a: [s.by_reference for s in steps if s.agent == a] for a in dict.fromkeys(s.agent for s in steps)
    }
    print("\nby-reference prompt per agent over all sessions (min / median / max tokens)")
    print_table(
        ["agent", "min", "median", "max"],
        [[a, f"{min(v):,}", f"{sorted(v)[len(v) // 2]:,}", f"{max(v):,}"] for a, v in per_agent.items()],
    )

    plot(rounds, PLOT)
    print(f"\n(2) wrote {PLOT.relative_to(ROOT)}")

    print(
        f"\n(3) one context read, subject with {BELIEFS:,} current beliefs, budget {PROMPT_BUDGET:,} tokens"
    )
    setup, reads = measure_reads(args.quick)
    print(
        f"populated {setup['current_beliefs']:,} beliefs in {setup['populate_beliefs_seconds']} s, "
        f"{sum(SESSION_SIZES):,} events in {setup['append_events_seconds']} s"
    )
    print_table(
        ["mode", "events in session", "sources", "samples", "p50 ms", "p99 ms", "max ms", "tokens"],
        [
            [
                r.mode,
                str(r.events),
                r.include,
                str(r.samples),
                f"{r.p50_ms:,.1f}",
                f"{r.p99_ms:,.1f}",
                f"{r.max_ms:,.1f}",
                str(r.used_tokens),
            ]
            for r in reads
        ],
    )
    print("p99 of a few samples is their maximum; a row stops at its time budget after 3 samples.")

    at = next((r for r in rounds if r.session == REDUCTION_AT), last)

    def read(mode: str) -> ReadLatency:
        return next(r for r in reads if (r.mode, r.events, r.include) == (mode, 1000, "episodic+semantic"))

    bars = {
        "by_reference_prompt_max_tokens": bar(
            max(s.by_reference for s in steps), PROMPT_BUDGET, "<=", "tokens"
        ),
        f"cumulative_reduction_at_session_{at.session}": bar(
            at.cumulative_reduction, REDUCTION_MIN, ">=", "fraction"
        ),
        "context_read_p50_ms_in_process_10k_beliefs_1k_events": bar(
            read("in-process").p50_ms, READ_P50_MS_MAX, "<=", "ms"
        ),
    }
    # The bar is the read itself, measured locally in process; over loopback HTTP the same read
    # also pays for serialising a trace that names every dropped event, so it is reported beside it.
    info_bars = {
        "context_read_p50_ms_http_10k_beliefs_1k_events": bar(
            read("http").p50_ms, READ_P50_MS_MAX, "<=", "ms"
        ),
        f"cumulative_reduction_no_statements_at_session_{at.session}": bar(
            at.cumulative_reduction_no_statements, REDUCTION_MIN, ">=", "fraction"
        ),
    }
    print("\nbars")
    for name, b in {**bars, **{f"(info) {k}": v for k, v in info_bars.items()}}.items():
        print(f"  {'PASS' if b['pass'] else 'FAIL'}  {name}: {b['value']} {b['op']} {b['limit']} {b['unit']}")

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "meta": {
            "quick": args.quick,
            "sessions": sessions,
            "agents": AGENTS,
            "prompt_budget_tokens": PROMPT_BUDGET,
            "encoding": "o200k_base",
            "sweep_seconds": round(sweep_seconds, 2),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
        "rounds": [asdict(r) for r in rounds],
        "steps": [asdict(s) for s in steps],
        "read_setup": setup,
        "reads": [asdict(r) for r in reads],
        "plot": str(PLOT.relative_to(ROOT)),
        "bars": bars,
        "info_bars": info_bars,
    }
    RESULTS.write_text(json.dumps(document, indent=2) + "\n")
    print(f"\nwrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
