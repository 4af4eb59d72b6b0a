"""Conversation bench: does a fact said in plain prose in session 1 reach a reader in session 10?

    .venv/bin/python bench/conversations.py [--subjects 20] [--sessions 10] [--quick] [--scale]

A seeded set of multi-agent conversations (bench/conversation_gen.py: a user, an assistant, tools
and specialist agents, a note-taker's third-person summaries; facts stated, restated in other
words, changed and contradicted; filler and near-miss distractors) is appended to agentmem over its
HTTP API (one event per turn, one session per conversation session, the local backend with the
embedded default: MiniLM, SQLite, the rules extractor, no explicit facts and no declared keys
beyond the defaults), the projector is drained, and each question is read from a new session of
the reader's at 1,000 / 2,000 / 4,000 tokens:

- agentmem with the default sources (episodic + semantic), and with `history` added when the server
  accepts it (reported "n/a" otherwise);
- the naive baseline over the same raw events in the same run: BM25 + MiniLM, RRF, greedy packing
  (bench/naive_retriever.py);
- pasting the whole history, for tokens.

Reported: evidence recall (share of the labelled evidence events that reached the reader; counted
by ids, see bench/conversation_score.py), answered (at least one evidence event reached), value
shown, current-value accuracy for changed and corrected facts (the new value shown, on a line
above any unlabelled old one), tokens against pasting the whole history, projection throughput,
and with `--scale` the read latency at 10,000 beliefs and 50,000 history passages, idle and
with a projection beside it (bench/conversation_scale.py, bench/scale_beside.py). Prints tables
and PASS/FAIL per bar, writes bench/results/conversations.json, and always exits 0."""

from __future__ import annotations

import argparse
import json
import logging
import os
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from statistics import mean
from typing import Any

from conversation_gen import Question, Subject, generate
from conversation_report import print_bars, print_main, print_scale
from conversation_run import (
    NO_HISTORY,
    WITH_HISTORY,
    Loaded,
    append_all,
    beliefs_of,
    detect_history,
    evidence_clauses,
    read_context,
    reader_session,
    verify_labels,
)
from conversation_score import Reading, Score, agentmem_reading, result_cell, score
from conversation_summary import belief_aims, by_group, summarise
from naive_retriever import HEADER, Doc, NaiveRetriever
from report import Latency, bar, environment, write_results

from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder
from agentmem.adapters.tokens import count_tokens
from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import LocalServer
from agentmem.settings import Settings
from agentmem.wiring import bootstrap

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "conversations.json"
SEED = 20261212
BUDGETS = (1000, 2000, 4000)
PROJECT_RATE_MIN = 300.0
SYSTEMS = ("agentmem", "agentmem+history", "naive")


def line_of(ref_session: str, seq: int, agent: str, content: str) -> str:
    return f"[{ref_session} #{seq}] {agent}: {content}"


def docs_of(subject: Subject, loaded: Loaded) -> list[Doc]:
    docs = []
    for turn in subject.turns():
        ref = loaded.refs[turn.turn_id]
        docs.append(Doc(ref.event_id, line_of(ref.session_id, ref.seq, turn.agent, turn.content)))
    return docs


def evaluate(
    client: MemoryClient,
    subjects: Sequence[Subject],
    loaded: Loaded,
    naive: NaiveRetriever,
    beliefs: dict[str, dict[str, dict[str, Any]]],
    modes: dict[str, list[str]],
    budgets: Sequence[int],
) -> tuple[list[dict[str, Any]], dict[tuple[str, int], list[tuple[Question, Score, int]]], list[float]]:
    per_question: list[dict[str, Any]] = []
    cells: dict[tuple[str, int], list[tuple[Question, Score, int]]] = {}
    latencies: list[float] = []
    by_seq = loaded.by_seq
    for subject in subjects:
        for q in subject.questions:
            evidence = [loaded.refs[t] for t in q.evidence]
            clauses = evidence_clauses(subject, q, loaded)
            results: dict[str, dict[str, Any]] = {}
            ranked = naive.rank(subject.subject_id, q.text)
            for budget in budgets:
                readings = {}
                for system, include in modes.items():
                    response, took = read_context(client, subject, q, budget, include)
                    latencies.append(took)
                    readings[system] = agentmem_reading(
                        response, q, beliefs[subject.subject_id], by_seq, clauses
                    )
                packed = naive.pack(ranked, budget)
                readings["naive"] = Reading(
                    packed.markdown, packed.tokens, dict.fromkeys(packed.event_ids, "event_id")
                )
                for system, reading in readings.items():
                    s = score(q, reading, evidence)
                    cells.setdefault((system, budget), []).append((q, s, reading.tokens))
                    results.setdefault(system, {})[str(budget)] = result_cell(s, reading.tokens)
            per_question.append(
                {
                    "question_id": q.question_id,
                    "slot": q.slot,
                    "category": q.category,
                    "first_session": q.first_session,
                    "question": q.text,
                    "current": q.current.text,
                    "superseded": q.superseded.text if q.superseded else None,
                    "evidence": [vars(e) for e in evidence],
                    "superseded_evidence": [vars(loaded.refs[t]) for t in q.superseded_evidence],
                    "results": results,
                }
            )
    return per_question, cells, latencies


def run(subjects_n: int, sessions_n: int, budgets: Sequence[int], seed: int) -> dict[str, Any]:
    """The whole measured run at one size; returns the results document (without `scale`)."""
    subjects = generate(seed, subjects_n, sessions_n)
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-conversations-") as tmp:
        services = bootstrap(Settings(data_dir=Path(tmp)))
        services.semantic.embedder.embed(["warm up: load the model once, outside the timings"])
        worker = local_worker(services)
        worker.run_once()  # prepares the store for writes, as a cold start does
        with LocalServer(lambda: build_resolver(services), port=0) as server:
            client = MemoryClient(server.url, timeout_seconds=120)
            loaded = append_all(client, subjects)
            print(f"  appended {len(loaded.refs):,} events in {loaded.append_seconds:.1f} s", flush=True)
            start = time.perf_counter()
            projected = worker.settle()  # beliefs, keywords and every passage vector
            project_seconds = time.perf_counter() - start
            print(f"  projected them in {project_seconds:.1f} s", flush=True)
            labels = verify_labels(client, subjects, loaded)
            history, history_note = detect_history(
                client, subjects[0].subject_id, reader_session(subjects[0])
            )
            beliefs = {s.subject_id: beliefs_of(client, s) for s in subjects}
            embedder = MiniLmEmbedder()
            naive = NaiveRetriever(embedder.embed, count_tokens)
            start = time.perf_counter()
            for subject in subjects:
                naive.index(subject.subject_id, docs_of(subject, loaded))
            naive_index_seconds = time.perf_counter() - start
            print(f"  indexed the baseline (BM25 + MiniLM) in {naive_index_seconds:.1f} s", flush=True)
            modes = {"agentmem": NO_HISTORY} | ({"agentmem+history": WITH_HISTORY} if history else {})
            per_question, cells, latencies = evaluate(
                client, subjects, loaded, naive, beliefs, modes, budgets
            )
    full = {
        s.subject_id: count_tokens(HEADER + "".join(f"- {d.line}\n" for d in docs_of(s, loaded)))
        for s in subjects
    }
    events = len(loaded.refs)
    rows = []
    for system in SYSTEMS:
        for budget in budgets:
            cell = cells.get((system, budget))
            if cell is None:
                rows.append({"system": system, "budget": budget, "status": "n/a", "reason": history_note})
                continue
            summary = summarise([s for _, s, _ in cell], [t for _, _, t in cell])
            rows.append({"system": system, "budget": budget, "status": "measured", **summary})
    breakdown = {f"{system}@{budget}": by_group(cell) for (system, budget), cell in cells.items()}
    rate = projected / project_seconds if project_seconds else 0.0
    return {
        "meta": {
            "subjects": subjects_n,
            "sessions": sessions_n,
            "seed": seed,
            "budgets": list(budgets),
            "encoding": "o200k_base",
            "llm": type(services.semantic.llm).__name__,
            "history_supported": history,
            "history_probe": history_note,
            "reader": "a new session per subject (no events of its own): only memory can answer",
        },
        "dataset": {
            "events": events,
            "questions": len(per_question),
            "categories": dict(Counter(q["category"] for q in per_question)),
            "labels_verified": labels,
            "full_history_tokens": {"mean": round(mean(full.values()), 1), "max": max(full.values())},
        },
        "projection": {
            "events": projected,
            "seconds": round(project_seconds, 3),
            "events_per_s": round(rate, 1),
            "passages_indexed": history,
            "append_seconds": round(loaded.append_seconds, 2),
            "naive_index_seconds": round(naive_index_seconds, 2),
        },
        "reads_http": vars(Latency.of(latencies)),
        "rows": rows,
        "breakdown": breakdown,
        "beliefs": belief_aims(subjects, beliefs),
        "bars": {
            "projection_events_per_s": bar(round(rate, 1), PROJECT_RATE_MIN, ">=", "events/s"),
            **never_below_naive(rows, "agentmem+history"),
        },
        "questions": per_question,
    }


def never_below_naive(rows: Sequence[dict[str, Any]], system: str) -> dict[str, Any]:
    """One bar per budget: the read's evidence recall at least the naive retriever's in this run."""
    recall = {(r["system"], r["budget"]): r["evidence_recall"] for r in rows if r.get("status") == "measured"}
    return {
        f"evidence_vs_naive_at_{budget}": bar(
            round(recall[(system, budget)] - recall[("naive", budget)], 4), 0.0, ">=", "(agentmem - naive)"
        )
        for budget in BUDGETS
        if (system, budget) in recall and ("naive", budget) in recall
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--subjects", type=int, help="subjects (default 20; quick 3)")
    parser.add_argument("--sessions", type=int, help="sessions per subject (default 10; quick 4)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--budgets", default=",".join(map(str, BUDGETS)), help="token budgets, comma-separated"
    )
    parser.add_argument("--quick", action="store_true", help="3 subjects x 4 sessions (a smoke run)")
    parser.add_argument(
        "--scale", action="store_true", help="also read latency at 10k beliefs / 50k passages"
    )
    parser.add_argument("--scale-only", action="store_true", help="only the --scale part")
    parser.add_argument("--scale-beliefs", type=int, default=10_000)
    parser.add_argument("--scale-passages", type=int, default=50_000)
    parser.add_argument(
        "--scale-beside",
        type=int,
        default=1000,
        help="events projected beside the reads under load (0: none)",
    )
    parser.add_argument("--scale-beside-rounds", type=int, default=1)
    parser.add_argument(
        "--scale-fill",
        choices=("project", "index"),
        default="project",
        help="project: drain the projector over the scale events (timed); index: write their"
        " passages straight into the index with random vectors (minutes, not hours, at 50k)",
    )
    parser.add_argument("--out", type=Path, help=f"where the JSON goes (default {RESULTS.name})")
    parser.add_argument("--dataset-out", type=Path, help="also write the generated conversations as JSONL")
    args = parser.parse_args()
    subjects_n = args.subjects or (3 if args.quick else 20)
    sessions_n = args.sessions or (4 if args.quick else 10)
    logging.getLogger("agentmem").setLevel(logging.WARNING)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    print(
        f"agentmem conversation bench: {subjects_n} subjects x {sessions_n} sessions, seed {args.seed}",
        flush=True,
    )
    started = time.perf_counter()
    budgets = tuple(int(b) for b in args.budgets.split(","))
    document: dict[str, Any] = {"meta": {}, "bars": {}}
    if not args.scale_only:
        document = run(subjects_n, sessions_n, budgets, args.seed)
    if args.scale or args.scale_only:
        from conversation_scale import run_scale

        document["scale"] = run_scale(
            args.scale_beliefs,
            args.scale_passages,
            args.seed,
            args.scale_fill,
            beside_events=args.scale_beside,
            beside_rounds=args.scale_beside_rounds,
        )
        document["bars"].update(document["scale"]["bars"])
    if args.dataset_out:  # one subject a line: its sessions of turns and its labelled questions
        lines = [
            json.dumps(asdict(s), ensure_ascii=False) for s in generate(args.seed, subjects_n, sessions_n)
        ]
        args.dataset_out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    document["meta"] |= {
        "quick": args.quick,
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),  # the machine is shared: timings vary
        **environment(time.perf_counter() - started),
    }
    if not args.scale_only:
        print_main(document)
    if "scale" in document:
        print_scale(document["scale"])
    print_bars(document["bars"])
    out: Path = args.out or (RESULTS.with_name("conversations-scale.json") if args.scale_only else RESULTS)
    write_results(document, out, started)


if __name__ == "__main__":
    main()
