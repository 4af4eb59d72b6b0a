"""`--scale`: one reader's context read for a subject holding 10,000 current beliefs and 50,000
history passages, p50 and p99, over HTTP and in process.

The subject gets N synthetic beliefs written straight into the active index (one-version chains
with seeded random unit vectors, as bench/tokens.py does; their sentences are the fact sentences
of the generated conversations, each with a reference of its own) and P events appended through
`EpisodicService`: the turns of as many generated subjects as it takes, in their sessions,
relabelled to this subject. When the server has
the `history` source the projector is drained so that every event becomes passages, and that drain
is timed (projection throughput with passages indexed); without it the events stay in the log,
the history reads are n/a, and the read is measured with the default sources only. Reads come from
a new session at 2,000 tokens, asking the generated questions; each row samples until its count
or its time budget runs out (at least 3 samples)."""

from __future__ import annotations

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
from synthetic import synthetic_belief

from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import LocalServer
from agentmem.model.context import ContextRequest
from agentmem.model.events import AppendEventRequest
from agentmem.semantic.worker import ProjectorWorker
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


def sample(call: Callable[[str], int], questions: list[str]) -> tuple[list[float], int]:
    used = call(questions[0])  # warm-up: first embedding, caches, connections
    out: list[float] = []
    deadline = time.perf_counter() + SAMPLE_SECONDS
    while len(out) < SAMPLES and (len(out) < 3 or time.perf_counter() < deadline):
        start = time.perf_counter()
        call(questions[len(out) % len(questions)])
        out.append(time.perf_counter() - start)
    return sorted(out), used


def _drain(worker: ProjectorWorker) -> tuple[dict[str, Any], dict[str, Any]]:
    """Project every appended event (the history source makes passages of them), timed."""
    start = time.perf_counter()
    projected = worker.run_once()
    seconds = time.perf_counter() - start
    rate = round(projected / seconds, 1) if seconds else 0.0
    figures = {"events": projected, "seconds": round(seconds, 2), "events_per_s": rate}
    return figures, bar(rate, PROJECT_RATE_MIN, ">=", "events/s")


def _read(
    services: Services, client: MemoryClient, mode: str, include: list[str], questions: list[str]
) -> dict[str, Any]:
    def call(query: str) -> int:
        body = {
            "subject_id": SUBJECT,
            "session_id": "scale-reader",
            "agent": READER_AGENT,
            "query": query,
            "budget_tokens": BUDGET,
            "include": include,
        }
        if mode == "in-process":
            return services.context.build(ContextRequest.model_validate(body)).trace.used_tokens
        return int(client.request("POST", "/v1/context", body)["trace"]["used_tokens"])

    lat, used = sample(call, questions)
    return {
        "mode": mode,
        "include": "+".join(include),
        "samples": len(lat),
        "p50_ms": round(percentile(lat, 50) * 1e3, 1),
        "p99_ms": round(percentile(lat, 99) * 1e3, 1),
        "max_ms": round(lat[-1] * 1e3, 1),
        "used_tokens": used,
    }


def run_scale(beliefs: int, passages: int, seed: int) -> dict[str, Any]:
    print(f"\nscale: populating {beliefs:,} beliefs and {passages:,} events of one subject", flush=True)
    result: dict[str, Any] = {"beliefs": beliefs, "passages": passages}
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
            if history:
                result["projection"], bars["scale_projection_events_per_s_with_passages"] = _drain(worker)
            result["setup_note"] = (
                f"{beliefs:,} beliefs in {timings['populate_beliefs_seconds']} s, {passages:,} events "
                f"appended in {timings['append_events_seconds']} s; "
                + (
                    "history passages indexed by the projector"
                    if history
                    else "history n/a: passages not indexed"
                )
            )
            for include in (NO_HISTORY, WITH_HISTORY) if history else (NO_HISTORY,):
                for mode in ("http", "in-process"):
                    reads.append(_read(services, client, mode, include, questions))
                    print(
                        f"  {mode:<10} {reads[-1]['include']:<26} p50 {reads[-1]['p50_ms']:>8.1f} ms",
                        flush=True,
                    )
    result["reads"] = reads
    headline = reads[-2]  # over HTTP, with every source this server has
    bars[f"scale_read_p50_ms_http_{headline['include'].replace('+', '_')}"] = bar(
        headline["p50_ms"], READ_P50_MS_MAX, "<=", "ms"
    )
    if not history:
        bars["scale_read_p50_ms_http_with_history"] = {
            "value": None, "limit": READ_P50_MS_MAX, "op": "<=", "unit": "ms (history n/a)", "pass": None
        }  # fmt: skip
    result["bars"] = bars
    return result
