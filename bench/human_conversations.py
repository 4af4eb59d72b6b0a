"""Human-conversation bench: real multi-session telephone dialogue (Switchboard), hand-labelled
questions about what a caller said in an earlier conversation, read from the caller's last one.

    .venv/bin/python bench/human_conversations.py [--split dev|test|test2|all] [--budgets 1000,2000,4000]

Each subject is one Switchboard caller; each of their conversations (in date order) is a session,
and every utterance one event (kind "message"; agent = the subject's id for the caller's own
utterances, so that "I" there is the subject, and the partner's caller id for the other side),
appended over the HTTP API to the local backend with the embedded defaults. The projector is
drained, then each labelled question (bench/data/human_conversations/labels.json) is read with
POST /v1/context from the subject's LAST session, agent "reader", the default `include`, at each
budget: as an agent taking part in that conversation would read, so that session's own events are
in the read. The naive baseline (bench/naive_retriever.py: BM25 + MiniLM, RRF, greedy packing)
ranks all the subject's raw events for the same question at the same budgets.

Reported per system and budget: evidence recall (share of the labelled evidence utterances that
reached the reader: by event id in an item's ref, or through a belief's provenance, as
bench/conversation_score.py counts it), answered (at least one did), value shown (one of the
answer's literal forms in the text), and for changed facts the current-first rate
(conversation_score's rule); read latency p50/p95 over every /v1/context call. Writes
bench/results/human_conversations.json and, for whoever wants to see what a read lost, every
missed evidence utterance to /tmp/agentmem-human-conversations-misses-<split>.txt. Exits 0.

The corpus text lives outside the repository ($AGENTMEM_EVAL_DATA/conversations, default
/work/evaldata): bench/human_corpus.py builds it from the fetched snapshots and says how when it
is missing."""

from __future__ import annotations

import argparse
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import mean
from typing import Any

from conversation_score import EventRef, Reading, agentmem_reading, result_cell, score
from conversation_summary import summarise
from conversation_text import Value, says
from conversations import line_of
from human_corpus import LABELS, load_subjects
from local_stack import local_stack
from naive_retriever import HEADER, Doc, NaiveRetriever
from report import environment, percentile, print_table, write_results

from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder
from agentmem.adapters.tokens import count_tokens
from agentmem.client import MemoryApiError, MemoryClient

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "human_conversations.json"
BUDGETS = (1000, 2000, 4000)
READER = "reader"
SYSTEMS = {"agentmem": "agentmem /v1/context (default include)", "naive": "naive BM25+MiniLM, raw events"}

Key = tuple[str, int, int]  # (subject_id, conversation_id, utterance index)


@dataclass(frozen=True)
class Question:
    """One label, shaped for conversation_score (`current`, `superseded` as Values)."""

    question_id: str
    subject_id: str
    text: str
    answer: str
    current: Value
    superseded: Value | None
    evidence: tuple[Key, ...]
    superseded_evidence: tuple[Key, ...]
    first_session: int
    category: str


def questions_of(labels: dict[str, Any], subject_ids: set[str]) -> list[Question]:
    out = []
    for q in labels["questions"]:
        if q["subject_id"] not in subject_ids:
            continue
        sid = q["subject_id"]
        old = q.get("superseded")
        out.append(
            Question(
                question_id=q["question_id"],
                subject_id=sid,
                text=q["question"],
                answer=q["answer"],
                current=Value(q["answer"], tuple(q["answer_forms"])),
                superseded=Value(old, tuple(q["superseded_forms"])) if old else None,
                evidence=tuple((sid, e["conversation_id"], e["utterance_index"]) for e in q["evidence"]),
                superseded_evidence=tuple(
                    (sid, e["conversation_id"], e["utterance_index"])
                    for e in q.get("superseded_evidence", [])
                ),
                first_session=int(q["first_session"]),
                category=q["category"],
            )
        )
    return out


def session_id(subject: dict[str, Any], number: int) -> str:
    return f"{subject['subject_id']}-s{number:02d}"


def last_session(subject: dict[str, Any]) -> str:
    return session_id(subject, len(subject["sessions"]))


@dataclass
class Loaded:
    refs: dict[Key, EventRef]
    text: dict[Key, tuple[str, str]]  # key -> (agent, content)
    docs: dict[str, list[Doc]]
    seconds: float

    @property
    def by_seq(self) -> dict[tuple[str, int], str]:
        return {(r.session_id, r.seq): r.event_id for r in self.refs.values()}


def append_all(client: MemoryClient, subjects: Sequence[dict[str, Any]]) -> Loaded:
    loaded = Loaded({}, {}, {}, 0.0)
    start = time.perf_counter()
    for subject in subjects:
        sid = subject["subject_id"]
        docs = loaded.docs.setdefault(sid, [])
        for session in subject["sessions"]:
            session_ = session_id(subject, session["number"])
            for round_, u in enumerate(session["utterances"]):
                # The caller's own turns are logged as the subject's (as a deployment logs its user's
                # turns), so "I" there is the subject; the partner's under their own caller id.
                agent = sid if u["speaker"] == subject["caller"] else u["speaker"]
                ack = client.request(
                    "POST",
                    f"/v1/sessions/{session_}/events",
                    {
                        "subject_id": sid,
                        "round": round_,
                        "agent": agent,
                        "kind": "message",
                        "content": u["text"],
                        "idempotency_key": f"{sid}:sw{session['conversation_id']}:u{u['index']}",
                    },
                )
                key = (sid, int(session["conversation_id"]), int(u["index"]))
                ref = EventRef(session_, int(ack["seq"]), str(ack["event_id"]))
                loaded.refs[key] = ref
                loaded.text[key] = (u["speaker"], u["text"])
                docs.append(Doc(ref.event_id, line_of(ref.session_id, ref.seq, u["speaker"], u["text"])))
    loaded.seconds = time.perf_counter() - start
    return loaded


def verify_labels(
    client: MemoryClient, subjects: Sequence[dict[str, Any]], questions: Sequence[Question], loaded: Loaded
) -> int:
    """Every evidence label is a stored event whose content is the utterance and says the value."""
    stored: dict[tuple[str, int], dict[str, Any]] = {}
    for subject in subjects:
        for session in subject["sessions"]:
            session_, after = session_id(subject, session["number"]), 0
            while True:
                page = client.request("GET", f"/v1/sessions/{session_}/events", query={"after": after})
                stored.update({(session_, int(e["seq"])): e for e in page["items"]})
                if not page["next"]:
                    break
                after = int(page["next"])
    checked = 0
    for q in questions:
        pairs = [(k, q.current) for k in q.evidence] + [(k, q.superseded) for k in q.superseded_evidence]
        for key, value in pairs:
            ref = loaded.refs.get(key)
            if ref is None:
                raise AssertionError(f"{q.question_id}: {key} is not an utterance of the built corpus")
            event = stored.get((ref.session_id, ref.seq))
            if event is None or event["event_id"] != ref.event_id or event["content"] != loaded.text[key][1]:
                raise AssertionError(f"{q.question_id}: {key} is not the event at {ref}")
            if value is None or not says(value.forms, event["content"]):
                raise AssertionError(f"{q.question_id}: {key} does not say {value}")
            checked += 1
    return checked


def read(
    client: MemoryClient, subject: dict[str, Any], q: Question, budget: int
) -> tuple[dict[str, Any], float]:
    body = {
        "subject_id": subject["subject_id"],
        "session_id": last_session(subject),
        "agent": READER,
        "query": q.text,
        "budget_tokens": budget,
    }
    start = time.perf_counter()
    try:
        response: dict[str, Any] = client.request("POST", "/v1/context", body)
    except MemoryApiError as exc:
        if exc.status != 404 or exc.field != "subject_id":
            raise
        response = {"markdown": "", "items": [], "trace": {"used_tokens": 0}}
    return response, time.perf_counter() - start


def beliefs_of(client: MemoryClient, subject_id: str) -> dict[str, dict[str, Any]]:
    listed = client.request("GET", f"/v1/subjects/{subject_id}/beliefs")
    return {str(b["doc_id"]): b for b in listed["items"]}


def evaluate(
    client: MemoryClient,
    subjects: dict[str, dict[str, Any]],
    questions: Sequence[Question],
    loaded: Loaded,
    naive: NaiveRetriever,
    beliefs: dict[str, dict[str, dict[str, Any]]],
    budgets: Sequence[int],
) -> tuple[list[dict[str, Any]], dict[tuple[str, int], list[Any]], list[float], list[str]]:
    per_question: list[dict[str, Any]] = []
    cells: dict[tuple[str, int], list[Any]] = {}
    latencies: list[float] = []
    misses: list[str] = []
    by_seq = loaded.by_seq
    for q in questions:
        subject = subjects[q.subject_id]
        evidence = [loaded.refs[k] for k in q.evidence]
        clauses = {loaded.refs[k].event_id: loaded.text[k][1] for k in q.evidence}
        ranked = naive.rank(q.subject_id, q.text)
        results: dict[str, dict[str, Any]] = {}
        for budget in budgets:
            response, took = read(client, subject, q, budget)
            latencies.append(took)
            packed = naive.pack(ranked, budget)
            readings = {
                "agentmem": agentmem_reading(
                    response,
                    q,  # type: ignore[arg-type]  # duck-typed: `current` and `superseded` Values
                    beliefs[q.subject_id],
                    by_seq,
                    clauses,
                ),
                "naive": Reading(packed.markdown, packed.tokens, dict.fromkeys(packed.event_ids, "event_id")),
            }
            for system, reading in readings.items():
                s = score(q, reading, evidence)  # type: ignore[arg-type]  # the same duck typing
                cells.setdefault((system, budget), []).append((q, s, reading.tokens))
                lost = [
                    k for k, e in zip(q.evidence, evidence, strict=True) if e.event_id not in reading.reached
                ]
                results.setdefault(system, {})[str(budget)] = {
                    **result_cell(s, reading.tokens),
                    "missed": [[k[1], k[2]] for k in lost],
                }
                for k in lost:
                    agent, content = loaded.text[k]
                    misses.append(
                        f"{q.question_id}\t{system}@{budget}\tsw{k[1]}#{k[2]} ({loaded.refs[k].session_id})"
                        f"\t{q.text}\t-> {q.answer}\t| {agent}: {content}"
                    )
        per_question.append(
            {
                "question_id": q.question_id,
                "subject_id": q.subject_id,
                "category": q.category,
                "first_session": q.first_session,
                "question": q.text,
                "answer": q.answer,
                "superseded": q.superseded.text if q.superseded else None,
                "evidence": [vars(e) for e in evidence],
                "results": results,
            }
        )
    return per_question, cells, latencies, misses


def run(split: str, budgets: Sequence[int], limit: int | None = None) -> tuple[dict[str, Any], list[str]]:
    labels, built = load_subjects(split)
    built = built[:limit] if limit else built
    subjects = {s["subject_id"]: s for s in built}
    questions = questions_of(labels, set(subjects))
    with local_stack("agentmem-bench-human-") as stack:
        client = stack.client
        loaded = append_all(client, built)
        print(f"  appended {len(loaded.refs):,} events in {loaded.seconds:.1f} s", flush=True)
        start = time.perf_counter()
        projected = stack.worker.settle()
        project_seconds = time.perf_counter() - start
        print(f"  projected them in {project_seconds:.1f} s", flush=True)
        checked = verify_labels(client, built, questions, loaded)
        beliefs = {sid: beliefs_of(client, sid) for sid in subjects}
        naive = NaiveRetriever(MiniLmEmbedder().embed, count_tokens)
        start = time.perf_counter()
        for sid in subjects:
            naive.index(sid, loaded.docs[sid])
        naive_seconds = time.perf_counter() - start
        print(
            f"  indexed the baseline in {naive_seconds:.1f} s; reading {len(questions)} questions", flush=True
        )
        per_question, cells, latencies, misses = evaluate(
            client, subjects, questions, loaded, naive, beliefs, budgets
        )
        llm = type(stack.services.semantic.llm).__name__
    full = {
        sid: count_tokens(HEADER + "".join(f"- {d.line}\n" for d in docs))
        for sid, docs in loaded.docs.items()
    }
    rows = []
    for system in SYSTEMS:
        for budget in budgets:
            cell = cells[(system, budget)]
            rows.append(
                {
                    "system": system,
                    "budget": budget,
                    **summarise([s for _, s, _ in cell], [t for _, _, t in cell]),
                }
            )
    ordered = sorted(latencies)
    by_speaker = {
        "subject": sum(
            e["speaker"] == "subject"
            for q in labels["questions"]
            if q["subject_id"] in subjects
            for e in q["evidence"]
        ),
        "partner": sum(
            e["speaker"] == "partner"
            for q in labels["questions"]
            if q["subject_id"] in subjects
            for e in q["evidence"]
        ),
    }
    document = {
        "meta": {
            "split": split,
            "subjects_limit": limit,
            "budgets": list(budgets),
            "encoding": "o200k_base",
            "llm": llm,
            "reader": "agent 'reader' in the subject's last session (its events are in the read);"
            " default include",
            "source": labels["source"],
        },
        "dataset": {
            "subjects": len(subjects),
            "sessions": sum(len(s["sessions"]) for s in built),
            "events": len(loaded.refs),
            "questions": len(questions),
            "changed_questions": sum(q.superseded is not None for q in questions),
            "evidence_labels": by_speaker,
            "labels_verified": checked,
            "full_history_tokens": {"mean": round(mean(full.values()), 1), "max": max(full.values())},
        },
        "projection": {
            "events": projected,
            "seconds": round(project_seconds, 2),
            "events_per_s": round(projected / project_seconds, 1) if project_seconds else None,
            "append_seconds": round(loaded.seconds, 2),
            "naive_index_seconds": round(naive_seconds, 2),
        },
        "reads_http": {
            "samples": len(ordered),
            "p50_ms": round(percentile(ordered, 50) * 1e3, 2),
            "p95_ms": round(percentile(ordered, 95) * 1e3, 2),
            "max_ms": round(ordered[-1] * 1e3, 2),
        },
        "rows": rows,
        "questions": per_question,
    }
    return document, misses


def pct(value: float | None) -> str:
    return "" if value is None else f"{value:.1%}"


def print_report(doc: dict[str, Any]) -> None:
    data, lat = doc["dataset"], doc["reads_http"]
    print(
        f"\nsplit {doc['meta']['split']}: {data['subjects']} subjects, {data['sessions']} sessions, "
        f"{data['events']:,} events, {data['questions']} questions "
        f"({data['changed_questions']} changed facts); "
        f"{data['labels_verified']} evidence labels checked against the log"
    )
    full = data["full_history_tokens"]
    print(f"a subject's whole history: {full['mean']:,.0f} tokens on average (max {full['max']:,})\n")
    print_table(
        [
            "system",
            "budget",
            "evidence recall",
            "answered",
            "value shown",
            "current first (changed)",
            "tokens",
        ],
        [
            [
                SYSTEMS[r["system"]],
                f"{r['budget']:,}",
                pct(r["evidence_recall"]),
                pct(r["answered"]),
                pct(r["value_shown"]),
                f"{pct(r['current_value_accuracy'])} of {r['changed_questions']}"
                if r["changed_questions"]
                else "n/a",
                f"{r['mean_tokens']:,.0f}",
            ]
            for r in doc["rows"]
        ],
    )
    print(
        f"\n/v1/context over HTTP: p50 {lat['p50_ms']:.1f} ms, p95 {lat['p95_ms']:.1f} ms, "
        f"max {lat['max_ms']:.1f} ms "
        f"({lat['samples']} reads)"
    )
    print(
        "evidence recall: share of the labelled evidence utterances that reached the reader (ids, or a\n"
        "belief's provenance); answered: at least one did; value shown: a literal form of the answer is in\n"
        "the text (answers are paraphrases, so this undercounts); current first: the current value on a\n"
        "line above any unlabelled old one."
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", choices=("dev", "test", "test2", "all"), default="dev")
    parser.add_argument(
        "--budgets", default=",".join(map(str, BUDGETS)), help="token budgets, comma-separated"
    )
    parser.add_argument("--subjects", type=int, help="only the split's first N subjects (a smoke run)")
    parser.add_argument("--out", type=Path, help=f"where the JSON goes (default {RESULTS.name})")
    parser.add_argument("--misses", type=Path, help="debug file of missed evidence (default under /tmp)")
    args = parser.parse_args()
    logging.getLogger("agentmem").setLevel(logging.WARNING)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    budgets = tuple(int(b) for b in args.budgets.split(","))
    print(
        f"agentmem human-conversation bench: split {args.split}, budgets {budgets}, labels {LABELS.name}",
        flush=True,
    )
    started = time.perf_counter()
    document, misses = run(args.split, budgets, args.subjects)
    document["meta"] |= {
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),
        **environment(time.perf_counter() - started),
    }
    print_report(document)
    misses_path = args.misses or Path(f"/tmp/agentmem-human-conversations-misses-{args.split}.txt")
    misses_path.write_text(
        "question\tsystem@budget\tevidence (session)\tquestion\t-> answer\t| utterance\n"
        + "\n".join(misses)
        + "\n",
        encoding="utf-8",
    )
    print(f"missed evidence, one line each: {misses_path} ({len(misses)} lines)")
    write_results(document, args.out or RESULTS, started)


if __name__ == "__main__":
    main()
