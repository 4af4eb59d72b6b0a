"""Projection throughput with history passages: events/s with and without passages, same run.

    .venv/bin/python bench/project_passages.py [--subjects 3] [--sessions 4] [--rounds 2]

The conversation bench's generated prose (bench/conversation_gen.py: one event per turn, no
explicit facts, the rules extractor) is appended in process to a fresh local data dir, and the
projector worker drains it, timed, in three set-ups:

- `beliefs only`: the projector without a passage index (what projection cost before `history`);
- `passages, vectors in-line (before)`: every passage embedded inside the projection of its batch,
  as the projector did before the vector lane (the baseline);
- `passages, vectors behind`: the default. The drain projects beliefs and writes each passage's
  keywords (timed: that is the projection rate, the bar's figure); then the vector lane
  (`semantic.passage_vectors.embed_pending`, LANE_BATCH passages a call, as a worker round does)
  runs until no passage waits, timed apart: its catch-up rate, and the time from the start of
  the drain until every vector is in.

The set-ups run interleaved, `--rounds` times each, so the shared machine's load falls on all
of them alike; each reports its best and median round. The same run also times the embedder alone
on exactly the texts the in-line drain embedded (its ceiling), and counts their tokens. Prints a
table and the bar (>= 300 events/s with passages indexed), writes
bench/results/project_passages.json, and always exits 0."""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conversation_gen import Subject, generate
from project import TimedEmbedder
from report import bar, environment, print_table, write_results

from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder
from agentmem.model.events import AppendEventRequest
from agentmem.ports.embedding import Embedder
from agentmem.semantic.passage_vectors import LANE_BATCH, embed_pending
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import bootstrap

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "project_passages.json"
SEED = 20261212
PROJECT_RATE_MIN = 300.0  # events/s with passages indexed (issue 12)
INLINE, BEHIND = "passages, vectors in-line (before)", "passages, vectors behind"
SETUPS = ("beliefs only", INLINE, BEHIND)


def drain_once(subjects: Sequence[Subject], setup: str, embedder: Embedder) -> dict[str, Any]:
    """A fresh data dir, every turn appended, one timed drain of the projector worker (its
    rounds embed no passage: the lane is timed apart), then the vector lane until done."""
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-project-passages-") as tmp:
        services = bootstrap(Settings(data_dir=Path(tmp)))
        semantic = services.semantic
        recorder = TimedEmbedder(embedder)
        semantic.embedder = recorder  # the projector takes the service's embedder
        if setup == "beliefs only":
            semantic.passages = None
        elif setup == INLINE:
            # The projector embeds in-line for an index that does not defer vectors (as on AWS).
            semantic.passages.generation(1).defers_vectors = False  # type: ignore[union-attr,misc]
        # The worker as wired, but with rounds that embed no passage: the lane is timed apart.
        lane_free = ProjectorWorker(
            services.ports.log_tail, semantic, services.ports.checkpoints, vector_batch=0
        )
        lane_free.run_once()  # prepares the store for writes, as a cold start does
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
        projected = lane_free.run_once()
        seconds = time.perf_counter() - start
        drain_texts, drain_embed_seconds = list(recorder.texts), recorder.seconds
        index = semantic.passages.active() if semantic.passages is not None else None
        pending = sum(index.pending_count(s.subject_id) for s in subjects) if index is not None else 0
        lane_start = time.perf_counter()
        lane_calls = 0
        if index is not None:
            while embed_pending(index, recorder, LANE_BATCH):
                lane_calls += 1
        lane_seconds = time.perf_counter() - lane_start
        passages = sum(index.count(s.subject_id) for s in subjects) if index is not None else 0
        left = sum(index.pending_count(s.subject_id) for s in subjects) if index is not None else 0
    return {
        "events": projected,
        "appended": events,
        "seconds": seconds,
        "embed_seconds": drain_embed_seconds,  # inside the timed drain; the lane's are apart
        "texts": drain_texts,
        "lane_texts": len(recorder.texts) - len(drain_texts),
        "passages": passages,
        "pending_after_drain": pending,
        "lane_seconds": lane_seconds,
        "lane_calls": lane_calls,
        "pending_at_end": left,
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
    done = sorted(r["seconds"] + r["lane_seconds"] for r in rounds)
    summary = {
        "events": rounds[0]["events"],
        "passages": rounds[0]["passages"],
        "texts_embedded_in_projection": len(rounds[0]["texts"]),
        "rounds_seconds": [round(r["seconds"], 2) for r in rounds],
        "best_events_per_s": round(rates[-1], 1),
        "median_events_per_s": round(statistics.median(rates), 1),
        "pending_vectors_after_projection": rounds[0]["pending_after_drain"],
        "seconds_until_every_vector_in_median": round(statistics.median(done), 2),
        "seconds_until_every_vector_in_best": round(done[0], 2),
    }
    if any(r["lane_calls"] for r in rounds):
        lane = sorted(r["pending_after_drain"] / r["lane_seconds"] for r in rounds)
        summary |= {
            "lane_passages_embedded": rounds[0]["pending_after_drain"],
            "lane_texts_embedded": rounds[0]["lane_texts"],
            "lane_calls": rounds[0]["lane_calls"],
            "lane_seconds": [round(r["lane_seconds"], 2) for r in rounds],
            "lane_passages_per_s_median": round(statistics.median(lane), 1),
            "lane_passages_per_s_best": round(lane[-1], 1),
            "pending_at_end": max(r["pending_at_end"] for r in rounds),
        }
    return summary


def run(subjects_n: int, sessions_n: int, rounds: int, seed: int) -> dict[str, Any]:
    subjects = generate(seed, subjects_n, sessions_n)
    wired = MiniLmEmbedder()
    wired.embed(["warm up: load the model once, outside the timings"])
    measured: dict[str, list[dict[str, Any]]] = {s: [] for s in SETUPS}
    ceilings: list[dict[str, Any]] = []
    for number in range(1, rounds + 1):
        for setup in SETUPS:
            measured[setup].append(drain_once(subjects, setup, wired))
            r = measured[setup][-1]
            lane = (
                f", lane {r['pending_after_drain']} vectors in {r['lane_seconds']:.2f} s"
                if r["lane_calls"]
                else ""
            )
            print(
                f"  round {number} {setup:<36} {r['events']:>5} events {r['seconds']:>7.2f} s"
                f" ({r['events'] / r['seconds']:.1f}/s, embedding {r['embed_seconds']:.2f} s{lane})",
                flush=True,
            )
        ceilings.append(ceiling(measured[INLINE][-1]["texts"], wired))
    best_ceiling = min(ceilings, key=lambda c: c["seconds"])
    events = measured[INLINE][0]["events"]
    return {
        "meta": {"subjects": subjects_n, "sessions": sessions_n, "rounds": rounds, "seed": seed,
                 "lane_batch": LANE_BATCH},
        "setups": {setup: summarise(rows) for setup, rows in measured.items()},
        "embedder_ceiling": {
            "texts": best_ceiling["texts"],
            "tokens": best_ceiling["tokens"],
            "tokens_per_event": round(best_ceiling["tokens"] / events, 1),
            "best_seconds": round(best_ceiling["seconds"], 2),
            "tokens_per_s": round(best_ceiling["tokens"] / best_ceiling["seconds"]),
            "events_per_s": round(events / best_ceiling["seconds"], 1),
        },
    }  # fmt: skip


def print_report(document: dict[str, Any]) -> None:
    rows = []
    for setup, s in document["setups"].items():
        rows.append(
            [
                setup,
                f"{s['events']:,}",
                f"{s['passages']:,}",
                f"{s['texts_embedded_in_projection']:,}",
                f"{s['median_events_per_s']:.1f}",
                f"{s['best_events_per_s']:.1f}",
                f"{s['lane_passages_per_s_median']:.1f}" if "lane_calls" in s else "",
                f"{s['seconds_until_every_vector_in_median']:.2f}" if s["passages"] else "",
            ]
        )
    c = document["embedder_ceiling"]
    rows.append(
        ["embedder alone (ceiling)", "", "", f"{c['texts']:,}", "", f"{c['events_per_s']:.1f}", "", ""]
    )
    print()
    print_table(
        ["set-up", "events", "passages", "texts embedded in projection", "projection events/s median",
         "best", "lane passages/s median", "s until every vector in, median"],
        rows,
    )  # fmt: skip
    print(
        f"\nembedder alone: {c['tokens']:,} tokens ({c['tokens_per_event']} a event) in"
        f" {c['best_seconds']} s = {c['tokens_per_s']:,} tokens/s"
    )
    for name, b in document["bars"].items():
        print(
            f"bar: {name} {b['value']} {b['unit']} {b['op']} {b['limit']}: {'PASS' if b['pass'] else 'FAIL'}"
        )


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

    behind = document["setups"][BEHIND]
    document["bars"] = {
        # The bar's figure: beliefs projected and every passage keyword-indexed, vectors pending.
        "projection_events_per_s_with_passages_keyword_indexed": bar(
            behind["median_events_per_s"], PROJECT_RATE_MIN, ">=", "events/s"
        ),
        # The same bar against the time until the last passage vector is in (drain + lane).
        "events_per_s_until_every_passage_vector_in": bar(
            round(behind["events"] / behind["seconds_until_every_vector_in_median"], 1),
            PROJECT_RATE_MIN,
            ">=",
            "events/s",
        ),
    }
    document["projection_speedup_over_in_line"] = round(
        behind["median_events_per_s"] / document["setups"][INLINE]["median_events_per_s"], 2
    )
    document["meta"] |= {
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),  # the machine is shared
        **environment(time.perf_counter() - started),
    }
    print_report(document)
    write_results(document, args.out, started)


if __name__ == "__main__":
    main()
