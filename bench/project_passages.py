"""Projection throughput with history passages: events/s with and without passages, same run.

    .venv/bin/python bench/project_passages.py [--subjects 3] [--sessions 4] [--rounds 2]

The conversation bench's generated prose (bench/conversation_gen.py: one event per turn, no
explicit facts, the rules extractor) is appended in process to a fresh local data dir, and the
projector worker drains it, timed, in three set-ups:

- `beliefs only`: the projector without a passage index (what projection cost before `history`);
- `passages, fixed batches`: passages indexed, MiniLM called in fixed batches of 64 texts as it was
  before its batches were bounded by padded tokens (the baseline for that change);
- `passages`: passages indexed with the embedder as wired (the default).

The set-ups run interleaved, `--rounds` times each, so the shared machine's load falls on all of
them alike; each reports its best and median round. The same run also times the embedder alone
on exactly the texts the `passages` drain embedded (its ceiling: projection with passages cannot
beat the model), and counts their tokens. Prints a table and the bar (>= 300 events/s with
passages), writes bench/results/project_passages.json, and always exits 0."""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conversation_gen import Subject, generate
from report import bar, environment, print_table

from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder
from agentmem.entrypoints.cli import local_worker
from agentmem.model.events import AppendEventRequest
from agentmem.ports.embedding import Embedder
from agentmem.settings import Settings
from agentmem.wiring import bootstrap

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "project_passages.json"
SEED = 20261212
PROJECT_RATE_MIN = 300.0  # events/s with passages indexed (issue 12)
SETUPS = ("beliefs only", "passages, fixed batches", "passages")


class RecordingEmbedder:
    """Passes through, keeping each text it was asked for and the time spent."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.texts: list[str] = []
        self.seconds = 0.0

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        start = time.perf_counter()
        try:
            return self._inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - start
            self.texts.extend(texts)


def drain_once(subjects: Sequence[Subject], setup: str, embedders: dict[str, Embedder]) -> dict[str, Any]:
    """A fresh data dir, every turn appended, one timed drain of the projector worker."""
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-project-passages-") as tmp:
        services = bootstrap(Settings(data_dir=Path(tmp)))
        semantic = services.semantic
        recorder = RecordingEmbedder(embedders["fixed" if setup == "passages, fixed batches" else "wired"])
        semantic.embedder = recorder  # the projector takes the service's embedder
        if setup == "beliefs only":
            semantic.passages = None
        worker = local_worker(services)
        worker.run_once()  # prepares the store for writes, as a cold start does
        events = 0
        for subject in subjects:
            for number, session in enumerate(subject.sessions, start=1):
                for round_, turn in enumerate(session):
                    services.episodic.append(
                        subject.session_id(number),
                        AppendEventRequest(
                            subject_id=subject.subject_id,
                            round=round_,
                            agent=turn.agent,
                            kind=turn.kind,
                            content=turn.content,
                        ),
                    )
                    events += 1
        recorder.texts.clear()
        recorder.seconds = 0.0
        start = time.perf_counter()
        projected = worker.run_once()
        seconds = time.perf_counter() - start
        passages = (
            sum(semantic.passages.active().count(s.subject_id) for s in subjects)
            if semantic.passages is not None
            else 0
        )
    return {
        "events": projected,
        "appended": events,
        "seconds": seconds,
        "embed_seconds": recorder.seconds,
        "texts": list(recorder.texts),
        "passages": passages,
    }


def ceiling(texts: list[str], embedder: MiniLmEmbedder) -> dict[str, Any]:
    """The embedder alone on the drain's texts, in the calls' union: the best projection can do."""
    tokens = sum(len(ids) for ids in embedder._get_runtime().encode(texts))
    start = time.perf_counter()
    embedder.embed(texts)
    seconds = time.perf_counter() - start
    return {"texts": len(texts), "tokens": tokens, "seconds": seconds}


def summarise(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    rates = sorted(r["events"] / r["seconds"] for r in rounds)
    return {
        "events": rounds[0]["events"],
        "passages": rounds[0]["passages"],
        "texts_embedded": len(rounds[0]["texts"]),
        "rounds_seconds": [round(r["seconds"], 2) for r in rounds],
        "embed_share": round(sum(r["embed_seconds"] for r in rounds) / sum(r["seconds"] for r in rounds), 3),
        "best_events_per_s": round(rates[-1], 1),
        "median_events_per_s": round(statistics.median(rates), 1),
    }


def run(subjects_n: int, sessions_n: int, rounds: int, seed: int) -> dict[str, Any]:
    subjects = generate(seed, subjects_n, sessions_n)
    wired = MiniLmEmbedder()
    fixed = MiniLmEmbedder(batch_size=64, batch_tokens=1_000_000)  # the old fixed batches of 64
    embedders: dict[str, Embedder] = {"wired": wired, "fixed": fixed}
    for embedder in embedders.values():
        embedder.embed(["warm up: load the model once, outside the timings"])
    measured: dict[str, list[dict[str, Any]]] = {s: [] for s in SETUPS}
    ceilings: list[dict[str, Any]] = []
    for number in range(1, rounds + 1):
        for setup in SETUPS:
            measured[setup].append(drain_once(subjects, setup, embedders))
            r = measured[setup][-1]
            print(
                f"  round {number} {setup:<24} {r['events']:>5} events {r['seconds']:>7.2f} s"
                f" ({r['events'] / r['seconds']:.1f}/s, embedding {r['embed_seconds']:.2f} s)",
                flush=True,
            )
        ceilings.append(ceiling(measured["passages"][-1]["texts"], wired))
    best_ceiling = min(ceilings, key=lambda c: c["seconds"])
    events = measured["passages"][0]["events"]
    return {
        "meta": {"subjects": subjects_n, "sessions": sessions_n, "rounds": rounds, "seed": seed},
        "setups": {setup: summarise(rows) for setup, rows in measured.items()},
        "embedder_ceiling": {
            "texts": best_ceiling["texts"],
            "tokens": best_ceiling["tokens"],
            "tokens_per_event": round(best_ceiling["tokens"] / events, 1),
            "best_seconds": round(best_ceiling["seconds"], 2),
            "tokens_per_s": round(best_ceiling["tokens"] / best_ceiling["seconds"]),
            "events_per_s": round(events / best_ceiling["seconds"], 1),
        },
    }


def print_report(document: dict[str, Any]) -> None:
    rows = []
    for setup, s in document["setups"].items():
        rows.append(
            [
                setup,
                f"{s['events']:,}",
                f"{s['passages']:,}",
                f"{s['texts_embedded']:,}",
                f"{s['embed_share']:.0%}",
                f"{s['median_events_per_s']:.1f}",
                f"{s['best_events_per_s']:.1f}",
            ]
        )
    c = document["embedder_ceiling"]
    rows.append(
        ["embedder alone (ceiling)", "", "", f"{c['texts']:,}", "100%", "", f"{c['events_per_s']:.1f}"]
    )
    print()
    print_table(
        ["set-up", "events", "passages", "texts embedded", "embedding", "events/s median", "events/s best"],
        rows,
    )
    print(
        f"\nembedder alone: {c['tokens']:,} tokens ({c['tokens_per_event']} a event) in"
        f" {c['best_seconds']} s = {c['tokens_per_s']:,} tokens/s"
    )
    b = document["bars"]["projection_events_per_s_with_passages"]
    verdict = "PASS" if b["pass"] else "FAIL"
    print(f"bar: projection with passages {b['value']} events/s {b['op']} {b['limit']}: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--subjects", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    logging.getLogger("agentmem").setLevel(logging.WARNING)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    started = time.perf_counter()
    print(
        f"projection with passages: {args.subjects} subjects x {args.sessions} sessions,"
        f" {args.rounds} rounds, seed {args.seed}",
        flush=True,
    )
    document = run(args.subjects, args.sessions, args.rounds, args.seed)

    def rate(setup: str) -> float:
        return float(document["setups"][setup]["best_events_per_s"])

    document["bars"] = {
        "projection_events_per_s_with_passages": bar(rate("passages"), PROJECT_RATE_MIN, ">=", "events/s")
    }
    document["speedup_over_fixed_batches"] = round(rate("passages") / rate("passages, fixed batches"), 2)
    document["meta"] |= {
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),  # the machine is shared
        **environment(time.perf_counter() - started),
    }
    print_report(document)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    shown = args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out
    print(f"\nwrote {shown} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
