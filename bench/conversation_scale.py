"""`--scale`: one reader's context read for a subject holding 10,000 current beliefs and 50,000
history passages, p50 and p99, over HTTP and in process.

The subject gets N synthetic beliefs written straight into the active index (one-version chains
with seeded random unit vectors, as bench/tokens.py does; their sentences are the fact sentences
of the generated conversations, each with a reference of its own) and P events appended through
`EpisodicService`: the turns of as many generated subjects as it takes, in their sessions,
relabelled to this subject. When the server has
the `history` source the projector is drained so that every event becomes passages, and that drain
is timed (projection throughput with passages indexed); without it the events stay in the log,
the history reads are n/a, and the read is measured with the default sources only. With
`fill="index"` the events' passages (cut as the projector cuts them) are written straight into
the active passage index with seeded random unit vectors, as the beliefs are, instead of being
drained: 50,000 passages then take a minute, not the drain's MiniLM hour on a 2-core machine, and
the read's cost (an exact scan of every vector, FTS5 over every passage) does not depend on the
vectors' values. Projection throughput is then bench/project_passages.py's to measure. Reads come from
a new session at 2,000 tokens, asking the generated questions; each row samples until its count
or its time budget runs out (at least 3 samples)."""

from __future__ import annotations

import os
import random
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from conversation_gen import Subject, generate_subject
from conversation_run import NO_HISTORY, READER_AGENT, WITH_HISTORY, detect_history
from report import bar, percentile
from scale_beside import reads_beside_projection
from synthetic import synthetic_belief

from agentmem.adapters.local.sqlite_log import SqliteEventLog
from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import LocalServer
from agentmem.model.context import ContextRequest
from agentmem.model.events import AppendEventRequest
from agentmem.semantic.passages import passages_of
from agentmem.semantic.worker import ProjectorWorker, checkpoint_name, passages_checkpoint_name
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

SUBJECT = "scale-subject"
BUDGET = 2000
DIMENSIONS = 384
SAMPLES, SAMPLE_SECONDS = 50, 30.0
READ_P50_MS_MAX = 60.0
PROJECT_RATE_MIN = 300.0


def _subjects(seed: int) -> Iterator[Subject]:
    index = 0
    while True:
        yield generate_subject(seed + 1, index, 10)
        index += 1


def populate(
    services: Services, beliefs: int, passages: int, seed: int
) -> tuple[list[str], dict[str, float]]:
    """Returns the questions to ask and how long each step took."""
    timings: dict[str, float] = {}
    questions: list[str] = []
    texts: list[str] = []
    facts: list[str] = []  # the fact sentences of the conversations: what beliefs are made of
    start = time.perf_counter()
    session = 0
    for subject in _subjects(seed):
        questions += [q.text for q in subject.questions]
        for turns in subject.sessions:
            session += 1
            for round_, turn in enumerate(turns):
                if len(texts) >= passages:
                    break
                texts.append(turn.content)
                facts += [m.clause for m in turn.mentions]
                services.episodic.append(
                    f"scale-s{session:05d}",
                    AppendEventRequest(
                        subject_id=SUBJECT,
                        round=round_,
                        agent=turn.agent,
                        kind=turn.kind,
                        content=turn.content,
                    ),
                )
        if len(texts) >= passages:
            break
    timings["append_events_seconds"] = round(time.perf_counter() - start, 2)
    index = services.semantic.store.active()
    vectors = np.random.default_rng(seed).standard_normal((beliefs, DIMENSIONS), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    rng = random.Random(seed)
    start = time.perf_counter()
    for i in range(beliefs):
        belief = synthetic_belief(SUBJECT, i, f"{rng.choice(facts)} (ref{i:07d})", session_id="scale-beliefs")
        index.replace_chain(
            SUBJECT, belief.key, "", expected_revision=0, chain=[belief], vector=vectors[i].tolist()
        )
    timings["populate_beliefs_seconds"] = round(time.perf_counter() - start, 2)
    return questions, timings


def sample(call: Callable[[str], int], questions: list[str]) -> tuple[list[float], list[float], int]:
    """Wall-clock latencies and the process's CPU time per call (every thread: the server runs in
    this process too), both ascending, and the tokens the warm-up call used. On a shared machine
    the CPU time says what a read costs whatever the load; the latency, what a caller waited."""
    used = call(questions[0])  # warm-up: first embedding, caches, connections
    out: list[float] = []
    cpu: list[float] = []
    deadline = time.perf_counter() + SAMPLE_SECONDS
    while len(out) < SAMPLES and (len(out) < 3 or time.perf_counter() < deadline):
        start, start_cpu = time.perf_counter(), time.process_time()
        call(questions[len(out) % len(questions)])
        out.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return sorted(out), sorted(cpu), used


def index_passages(services: Services, seed: int) -> dict[str, Any]:
    """Every logged event's passages straight into the active passage index, with seeded random
    unit vectors (no embedder, no drain)."""
    log = services.event_log
    assert services.semantic.passages is not None and isinstance(log, SqliteEventLog)
    index = services.semantic.passages.active()
    rng = np.random.default_rng(seed + 7)
    start, position, added = time.perf_counter(), 0, 0
    while batch := log.read_since(position, 2000):
        position = batch[-1][0]
        passages = [p for _, event in batch for p in passages_of(event)]
        vectors = rng.standard_normal((len(passages), DIMENSIONS), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        added += index.add(passages, vectors.tolist())
    return {"passages": added, "seconds": round(time.perf_counter() - start, 2), "vectors": "random"}


def _drain(worker: ProjectorWorker) -> tuple[dict[str, Any], dict[str, Any]]:
    """Project every appended event (the history source makes passages of them), timed."""
    start = time.perf_counter()
    projected = worker.settle()  # until every passage vector is in: the whole cost
    seconds = time.perf_counter() - start
    rate = round(projected / seconds, 1) if seconds else 0.0
    figures = {"events": projected, "seconds": round(seconds, 2), "events_per_s": rate}
    return figures, bar(rate, PROJECT_RATE_MIN, ">=", "events/s")


def _body(query: str, include: list[str]) -> dict[str, Any]:
    return {
        "subject_id": SUBJECT,
        "session_id": "scale-reader",
        "agent": READER_AGENT,
        "query": query,
        "budget_tokens": BUDGET,
        "include": include,
    }


def _read(
    services: Services, client: MemoryClient, mode: str, include: list[str], questions: list[str]
) -> dict[str, Any]:
    def call(query: str) -> int:
        body = _body(query, include)
        if mode == "in-process":
            return services.context.build(ContextRequest.model_validate(body)).trace.used_tokens
        return int(client.request("POST", "/v1/context", body)["trace"]["used_tokens"])

    lat, cpu, used = sample(call, questions)
    return {
        "mode": mode,
        "include": "+".join(include),
        "samples": len(lat),
        "p50_ms": round(percentile(lat, 50) * 1e3, 1),
        "p99_ms": round(percentile(lat, 99) * 1e3, 1),
        "max_ms": round(lat[-1] * 1e3, 1),
        "cpu_p50_ms": round(percentile(cpu, 50) * 1e3, 1),
        "used_tokens": used,
    }


def _mark_projected(services: Services) -> None:
    """With `fill="index"` the synthetic beliefs and the directly written passages stand for the
    projection of the appended events: the checkpoint moves past them, so that a worker started
    later projects only what is appended after."""
    generation = services.semantic.store.active().generation
    head = services.ports.log_tail.head_position()
    services.ports.checkpoints.save(checkpoint_name(generation), head)
    services.ports.checkpoints.save(passages_checkpoint_name(generation), head)


def run_scale(
    beliefs: int,
    passages: int,
    seed: int,
    fill: str = "project",
    beside_events: int = 1000,
    beside_rounds: int = 1,
) -> dict[str, Any]:
    """`fill`: "project" drains the projector over the events (timed); "index" writes their
    passages straight into the index (see the module's docstring). With history, the read over
    HTTP is then measured again while `beside_events` more events are projected
    (bench/scale_beside.py), unless that is 0."""
    print(f"\nscale: populating {beliefs:,} beliefs and {passages:,} events of one subject", flush=True)
    result: dict[str, Any] = {"beliefs": beliefs, "passages": passages, "fill": fill}
    bars: dict[str, Any] = {}
    reads: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-conversations-scale-") as tmp:
        services = bootstrap(Settings(data_dir=Path(tmp)))
        services.semantic.embedder.embed(["warm up"])
        worker = local_worker(services)
        worker.run_once()
        questions, timings = populate(services, beliefs, passages, seed)
        result |= timings
        with LocalServer(lambda: build_resolver(services), port=0) as server:
            client = MemoryClient(server.url, timeout_seconds=300, retries=0)
            history, result["history_probe"] = detect_history(client, SUBJECT, "scale-reader")
            result["history_supported"] = history
            if history and fill == "index":
                result["indexed"] = index_passages(services, seed)
                _mark_projected(services)
                print(f"  indexed {result['indexed']['passages']:,} passages directly", flush=True)
            elif history:
                result["projection"], bars["scale_projection_events_per_s_with_passages"] = _drain(worker)
            result["setup_note"] = (
                f"{beliefs:,} beliefs in {timings['populate_beliefs_seconds']} s, {passages:,} events "
                f"appended in {timings['append_events_seconds']} s; "
                + (
                    "history n/a: passages not indexed"
                    if not history
                    else "history passages written to the index directly, random vectors"
                    if fill == "index"
                    else "history passages indexed by the projector"
                )
            )
            for include in (NO_HISTORY, WITH_HISTORY) if history else (NO_HISTORY,):
                for mode in ("http", "in-process"):
                    reads.append(_read(services, client, mode, include, questions))
                    print(
                        f"  {mode:<10} {reads[-1]['include']:<26} p50 {reads[-1]['p50_ms']:>8.1f} ms",
                        flush=True,
                    )
            if history and beside_events:

                def read_over_http(number: int) -> None:
                    client.request(
                        "POST", "/v1/context", _body(questions[number % len(questions)], WITH_HISTORY)
                    )

                result["beside"], beside_bars = reads_beside_projection(
                    services, read_over_http, events=beside_events, rounds=beside_rounds, seed=seed
                )
                bars.update(beside_bars)
    result["reads"] = reads
    headline = reads[-2]  # over HTTP, with every source this server has
    bars[f"scale_read_p50_ms_http_{headline['include'].replace('+', '_')}"] = bar(
        headline["p50_ms"], READ_P50_MS_MAX, "<=", "ms"
    )
    in_process = reads[-1]
    bars[f"scale_read_p50_ms_in_process_{in_process['include'].replace('+', '_')}"] = bar(
        in_process["p50_ms"], READ_P50_MS_MAX, "<=", "ms"
    )
    result["load_average_1m_after_reads"] = round(os.getloadavg()[0], 2)
    if not history:
        bars["scale_read_p50_ms_http_with_history"] = {
            "value": None, "limit": READ_P50_MS_MAX, "op": "<=", "unit": "ms (history n/a)", "pass": None
        }  # fmt: skip
    result["bars"] = bars
    return result
