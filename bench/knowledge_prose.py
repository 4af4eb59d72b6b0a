"""Knowledge-prose bench: real encyclopedic text about countries, stated and later updated (CIA World
Factbook entries, editions 2001-2025), labelled by hand. Does agentmem keep the current value, join
the versions of one fact, and keep apart facts that only look alike?

    .venv/bin/python bench/knowledge_prose.py [--split dev|test|all]

The statements come from $AGENTMEM_EVAL_DATA/knowledge/statements.jsonl (default /work/evaldata),
built by bench/knowledge_corpus.py; the labels (entity, attribute, value, edition, questions, pairs)
from bench/data/knowledge_prose/labels.json (README.md beside it). Entities are split 60/40 into
dev and test; a run reads one split's statements only.

Each statement is appended, oldest edition first, as one event of subject `kb` through the HTTP API
(a local server on 127.0.0.1, embedded default: SQLite, MiniLM, the rules), text only, one writer
session per 100 statements; the projector is drained. Then per question:

- top-1 belief: the beliefs search route, k = 1 (as bench/knowledge_updates.py asks): does the top
  belief's value say the current value;
- `/v1/context` from a reader session with no events, at 1,000 and 2,000 tokens, default include:
  is the current statement reached (by event id, bench/conversation_score.py's agentmem_reading),
  and, for an updated fact, does the current value rank first and is an old value shown unlabelled
  (conversation_score's rules);
- the naive retriever (bench/naive_retriever.py: BM25 + MiniLM, RRF) over the same statements, same
  budgets, same scoring.

Values are matched whole-word, case-insensitively: the labelled value, and for a person also the
surname the Factbook writes in capitals when no other value of that fact shares it. The document
is scored on its lines minus those that name another country of the set and not the asked one
("Canada — chief of state: Queen ELIZABETH II" says nothing about Australia).

After the reads the subject's beliefs are listed with their version chains: a belief is correct
when every statement in its provenance carries one labelled (entity, attribute) and its value says
one of their labelled values; one with several versions (an UPDATE or CONFLICT chain) only when all
versions are of that same pair. Each labelled pair of statements is joined when both sit in one
belief's chain. Prints a table, writes bench/results/knowledge_prose.json, dumps the misses to
/tmp/knowledge_prose_misses.json, and exits 0."""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conversation_gen import Question
from conversation_score import EventRef, Reading, agentmem_reading, score
from conversation_text import Value, says
from conversations import line_of
from knowledge_corpus import load_labels, statements_path, text_hash
from local_stack import local_stack
from naive_retriever import Doc, NaiveRetriever
from report import Latency, bar, environment, print_table, write_results

from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder
from agentmem.adapters.tokens import count_tokens
from agentmem.client import MemoryClient
from agentmem.context.versions import version_of

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "knowledge_prose.json"
MISSES = Path(tempfile.gettempdir()) / "knowledge_prose_misses.json"
SUBJECT = "kb"
SESSION_SIZE = 100
BUDGETS = (1000, 2000)
READER_SESSION = "kb-reader"
CAPS = re.compile(r"^[A-Z][A-Z'-]+$")  # a surname as the Factbook writes it: MERKEL, VAN, DER, BELLEN


@dataclass(frozen=True)
class Statement:
    id: str
    entity: str
    attribute: str
    value: str
    as_of: int
    split: str
    text: str

    @property
    def pair(self) -> tuple[str, str]:
        return (self.entity, self.attribute)


def surname(value: str) -> str | None:
    """The longest run of capitalised words ("LOPEZ OBRADOR", "ELIZABETH II" has none beyond itself)."""
    best: list[str] = []
    run: list[str] = []
    for word in value.replace(",", " ").split():
        if CAPS.match(word) or (run and re.fullmatch(r"[IVX]+", word)):
            run.append(word)
            best = run if len(run) > len(best) else best
        else:
            run = []
    return " ".join(best) if best and " ".join(best) != value else None


def forms(value: str, others: Sequence[str]) -> tuple[str, ...]:
    """How `value` counts as said: itself, and its capitalised surname when no other value of the
    same fact says that surname (FERNANDEZ is in both FERNANDEZ DE KIRCHNER and Alberto FERNANDEZ)."""
    out = [value]
    name = surname(value)
    if name and not any(says((name,), other) for other in others if other != value):
        out.append(name)
    return tuple(out)


def load(split: str) -> tuple[dict[str, Any], list[Statement]]:
    labels = load_labels()
    path = statements_path()
    if not path.exists():
        raise SystemExit(
            f"{path} is missing: build it with `.venv/bin/python bench/knowledge_corpus.py` "
            f"(reads {labels['source']['repo']}@{labels['source']['commit'][:12]}; "
            "set AGENTMEM_EVAL_DATA to build or read it elsewhere)"
        )
    texts = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts[row["id"]] = row["text"]
    statements = []
    for s in labels["statements"]:
        text = texts.get(s["id"])
        if text is None or text_hash(text) != s["sha256"]:
            raise SystemExit(
                f"{path} does not match the labels at {s['id']}: rebuild it (bench/knowledge_corpus.py)"
            )
        if split in ("all", s["split"]):
            statements.append(
                Statement(s["id"], s["entity"], s["attribute"], s["value"], s["as_of"], s["split"], text)
            )
    return labels, statements


def append(client: MemoryClient, statements: Sequence[Statement]) -> tuple[dict[str, EventRef], float]:
    started = time.perf_counter()
    refs: dict[str, EventRef] = {}
    for n, s in enumerate(statements):
        session = f"kb-notes-{n // SESSION_SIZE}"
        body = {
            "subject_id": SUBJECT, "round": n % SESSION_SIZE, "agent": "research", "kind": "note",
            "content": s.text, "idempotency_key": f"kb-{s.id}",
        }  # fmt: skip
        ack = client.request("POST", f"/v1/sessions/{session}/events", body)
        refs[s.id] = EventRef(session, int(ack["seq"]), str(ack["event_id"]))
    return refs, time.perf_counter() - started


def scoped(markdown: str, entity: str, entities: Sequence[str]) -> str:
    """The document without the lines that name another entity of the set and not `entity`."""
    others = [e for e in entities if e != entity and not says((e,), entity)]
    return "\n".join(
        line
        for line in markdown.splitlines()
        if says((entity,), line) or not any(says((e,), line) for e in others)
    )


def chains(client: MemoryClient, beliefs: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Current doc id -> every version of its chain, oldest first (the current one included)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for key in dict.fromkeys(b["key"] for b in beliefs):
        view = client.request("GET", f"/v1/subjects/{SUBJECT}/beliefs/{key}", query={"history": "true"})
        history = view.get("history") or view["current"]
        for current in view["current"]:
            versions = [v for v in history if v.get("member", "") == current.get("member", "")]
            if not any(v["doc_id"] == current["doc_id"] for v in versions):
                versions.append(current)
            out[current["doc_id"]] = versions
    return out


def belief_audit(
    beliefs: Sequence[dict[str, Any]],
    versions: dict[str, list[dict[str, Any]]],
    by_event: dict[str, Statement],
    pair_values: dict[tuple[str, str], list[str]],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rows = []
    for b in beliefs:
        stated = [by_event[p["event_id"]] for p in b["provenance"] if p["event_id"] in by_event]
        pairs = {s.pair for s in stated}
        value_ok = any(says(forms(s.value, pair_values[s.pair]), b["value"]) for s in stated)
        chain = versions.get(b["doc_id"], [b])
        chain_pairs = {
            by_event[p["event_id"]].pair for v in chain for p in v["provenance"] if p["event_id"] in by_event
        }
        is_flagged = bool(b["flag"]) or any(v["verdict"] == "CONFLICT" or v["flag"] for v in chain)
        correct = len(pairs) == 1 and value_ok and chain_pairs == pairs
        rows.append({
            "doc_id": b["doc_id"], "key": b["key"], "value": b["value"], "verdict": b["verdict"],
            "versions": len(chain), "flagged": is_flagged, "correct": correct,
            "statements": [s.id for s in stated], "pairs": sorted(" / ".join(p) for p in chain_pairs),
        })  # fmt: skip
    made = len(rows)
    good = sum(r["correct"] for r in rows)
    flagged = [r for r in rows if r["flagged"]]
    chained = [r for r in rows if r["versions"] > 1]
    summary = {
        "beliefs": made, "correct": good, "precision": round(good / made, 4) if made else 0.0,
        "chained": len(chained), "chained_correct": sum(r["correct"] for r in chained),
        "flagged": len(flagged), "flagged_correct": sum(r["correct"] for r in flagged),
    }  # fmt: skip
    return summary, rows


def pair_audit(
    pairs: Sequence[dict[str, Any]], versions: dict[str, list[dict[str, Any]]], refs: dict[str, EventRef]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    groups: dict[str, set[str]] = defaultdict(set)  # event id -> the chains holding it
    for doc_id, chain in versions.items():
        for v in chain:
            for p in v["provenance"]:
                groups[p["event_id"]].add(doc_id)
    rows = []
    for p in pairs:
        joined = bool(groups[refs[p["a"]].event_id] & groups[refs[p["b"]].event_id])
        rows.append({**p, "joined": joined, "right": joined == p["join"]})
    apart = [r for r in rows if not r["join"]]
    together = [r for r in rows if r["join"]]
    summary = {
        "must_not_join": len(apart), "kept_apart": sum(r["right"] for r in apart),
        "join_precision": round(sum(r["right"] for r in apart) / len(apart), 4) if apart else 0.0,
        "must_join": len(together), "joined": sum(r["right"] for r in together),
        "join_recall": round(sum(r["right"] for r in together) / len(together), 4) if together else 0.0,
    }  # fmt: skip
    return summary, rows


def version_audit(pairs: Sequence[dict[str, Any]], by_id: dict[str, Statement]) -> dict[str, Any]:
    """The same pairs through the read's own test (agentmem.context.versions), which needs no
    extraction: would a read join the two statements as versions of one fact?"""
    rows = []
    for p in pairs:
        old, new = sorted((by_id[p["a"]], by_id[p["b"]]), key=lambda s: (s.as_of, s.id))
        rows.append((p["join"], version_of(old.text, new.text) is not None))
    apart = [joined for must, joined in rows if not must]
    together = [joined for must, joined in rows if must]
    return {
        "must_not_join": len(apart), "kept_apart": apart.count(False),
        "join_precision": round(apart.count(False) / len(apart), 4) if apart else 0.0,
        "must_join": len(together), "joined": together.count(True),
        "join_recall": round(together.count(True) / len(together), 4) if together else 0.0,
    }  # fmt: skip


def prose_bars(result: dict[str, Any]) -> dict[str, Any]:
    """The issue's bars, each measured in this run: evidence never below the naive retriever's at
    a budget, the current value first for 80% of the updated facts, and the versions test kept
    apart on 95% of the pairs that must not be joined."""
    cells = result["context"]
    bars = {
        f"evidence_vs_naive_at_{b}": bar(
            round(cells[f"agentmem@{b}"]["evidence"] - cells[f"naive@{b}"]["evidence"], 4),
            0.0,
            ">=",
            "(agentmem - naive)",
        )
        for b in BUDGETS
    }
    for b in BUDGETS:
        bars[f"current_first_at_{b}"] = bar(
            cells[f"agentmem@{b}"]["current_first"], 0.8, ">=", "of updated facts"
        )
    bars["versions_kept_apart"] = bar(
        result["version_pairs"]["join_precision"], 0.95, ">=", "of must_not_join pairs"
    )
    return bars


def share(rows: Sequence[dict[str, Any]], get: Any) -> float:
    values = [get(r) for r in rows]
    values = [v for v in values if v is not None]
    return round(sum(bool(v) for v in values) / len(values), 4) if values else 0.0


def run(labels: dict[str, Any], statements: list[Statement], split: str) -> dict[str, Any]:
    ids = {s.id for s in statements}
    by_id = {s.id: s for s in statements}
    pair_values: dict[tuple[str, str], list[str]] = defaultdict(list)
    for s in statements:
        pair_values[s.pair].append(s.value)
    entities = list(dict.fromkeys(s.entity for s in statements))
    asked = [q for q in labels["questions"] if q["current_statement"] in ids]
    pairs = [p for p in labels["pairs"] if p["a"] in ids and p["b"] in ids]
    with local_stack("agentmem-bench-knowledge-prose-") as stack:
        client, worker = stack.client, stack.worker
        refs, append_seconds = append(client, statements)
        started = time.perf_counter()
        while worker.settle():
            pass
        project_seconds = time.perf_counter() - started
        beliefs = client.request("GET", f"/v1/subjects/{SUBJECT}/beliefs")["items"]
        by_doc = {str(b["doc_id"]): b for b in beliefs}
        versions = chains(client, beliefs)
        by_event = {refs[s.id].event_id: s for s in statements}
        by_seq = {(r.session_id, r.seq): r.event_id for r in refs.values()}
        naive = NaiveRetriever(MiniLmEmbedder().embed, count_tokens)
        naive.index(
            SUBJECT,
            [
                Doc(
                    refs[s.id].event_id,
                    line_of(refs[s.id].session_id, refs[s.id].seq, "research", s.text),
                )
                for s in statements
            ],
        )
        started = time.perf_counter()
        rows = [
            ask(client, naive, q, by_id, refs, by_event, by_doc, by_seq, pair_values, entities) for q in asked
        ]
        read_seconds = time.perf_counter() - started
    belief_summary, belief_rows = belief_audit(beliefs, versions, by_event, pair_values)
    pair_summary, pair_rows = pair_audit(pairs, versions, refs)
    version_summary = version_audit(pairs, by_id)
    updated = [r for r in rows if r["superseded"]]
    cells = {}
    for system in ("agentmem", "naive"):
        for budget in BUDGETS:
            cell = f"{system}@{budget}"
            cells[cell] = {
                "evidence": share(rows, lambda r, c=cell: r[c]["evidence"]),
                "evidence_updated": share(updated, lambda r, c=cell: r[c]["evidence"]),
                "value_shown": share(rows, lambda r, c=cell: r[c]["value_shown"]),
                "current_first": share(updated, lambda r, c=cell: r[c]["current_first"]),
                "old_unlabelled": share(updated, lambda r, c=cell: r[c]["old_unlabelled"]),
                "tokens_mean": round(sum(r[cell]["tokens"] for r in rows) / len(rows), 1) if rows else 0.0,
            }
    covered = {p["event_id"] for v in versions.values() for b in v for p in b["provenance"]}
    return {
        "split": split, "statements": len(statements), "entities": len(entities),
        "questions": len(rows), "updated_questions": len(updated), "pairs": len(pairs),
        "append_seconds": round(append_seconds, 2), "project_seconds": round(project_seconds, 2),
        "read_seconds": round(read_seconds, 2),
        "context_read_ms": vars(Latency.of([ms / 1000 for r in rows for ms in r["read_ms"]])),
        "statements_in_a_belief": round(
            sum(refs[s.id].event_id in covered for s in statements) / len(statements), 4
        ),
        "top1_current": share(rows, lambda r: r["top1"]),
        "top1_current_updated": share(updated, lambda r: r["top1"]),
        "top1_right_fact": share(rows, lambda r: r["top1_fact"]),
        "context": cells, "beliefs": belief_summary, "pair_audit": pair_summary,
        "version_pairs": version_summary,
        "per_question": rows, "belief_rows": belief_rows, "pair_rows": pair_rows,
    }  # fmt: skip


def ask(
    client: MemoryClient,
    naive: NaiveRetriever,
    q: dict[str, Any],
    by_id: dict[str, Statement],
    refs: dict[str, EventRef],
    by_event: dict[str, Statement],
    by_doc: dict[str, dict[str, Any]],
    by_seq: dict[tuple[str, int], str],
    pair_values: dict[tuple[str, str], list[str]],
    entities: Sequence[str],
) -> dict[str, Any]:
    values = pair_values[(q["entity"], q["attribute"])]
    current = Value(q["current"], forms(q["current"], values))
    old_forms = tuple(f for v in q["superseded"] for f in forms(v, values) if not says(current.forms, f))
    superseded = Value(" / ".join(q["superseded"]), old_forms) if old_forms else None
    evidence = [refs[q["current_statement"]]]
    question = Question(
        question_id=q["id"], subject_id=SUBJECT, slot=q["attribute"], category="knowledge",
        text=q["question"],
        current=current, superseded=superseded, evidence=(q["current_statement"],),
        superseded_evidence=tuple(q["superseded_statements"]), first_session=0,
    )  # fmt: skip
    hits = client.request("POST", f"/v1/subjects/{SUBJECT}/beliefs/search", {"query": q["question"], "k": 1})
    top = hits["items"][0]["belief"] if hits["items"] else None
    top_pairs = {
        by_event[p["event_id"]].pair for p in (top["provenance"] if top else []) if p["event_id"] in by_event
    }
    row: dict[str, Any] = {
        "id": q["id"], "question": q["question"], "current": q["current"], "superseded": q["superseded"],
        "top1": top is not None and says(current.forms, top["value"]),
        "top1_fact": (q["entity"], q["attribute"]) in top_pairs and len(top_pairs) == 1,
        "top1_value": top["value"] if top else None, "top1_key": top["key"] if top else None,
    }  # fmt: skip
    clauses = {evidence[0].event_id: by_id[q["current_statement"]].text}
    ranked = naive.rank(SUBJECT, q["question"])
    for budget in BUDGETS:
        body = {"subject_id": SUBJECT, "session_id": READER_SESSION, "agent": "reader",
                "query": q["question"],
                "budget_tokens": budget}  # fmt: skip
        asked_at = time.perf_counter()
        response = client.request("POST", "/v1/context", body)
        row.setdefault("read_ms", []).append(round(1000 * (time.perf_counter() - asked_at), 2))
        full = agentmem_reading(response, question, by_doc, by_seq, clauses)
        packed = naive.pack(ranked, budget)
        readings = {
            "agentmem": (full, str(response["markdown"])),
            "naive": (Reading(packed.markdown, packed.tokens, dict.fromkeys(packed.event_ids, "event_id")),
                      packed.markdown),
        }  # fmt: skip
        for system, (reading, markdown) in readings.items():
            view = Reading(scoped(reading.markdown, q["entity"], entities), reading.tokens, reading.reached)
            s = score(question, view, evidence)
            row[f"{system}@{budget}"] = {
                "evidence": s.answered, "how": dict(s.matched_by), "value_shown": s.value_shown,
                "current_first": s.current_first, "old_unlabelled": s.superseded_unlabelled,
                "tokens": reading.tokens,
            }  # fmt: skip
            if system == "agentmem" and budget == BUDGETS[0]:
                row["agentmem_markdown"] = markdown
    return row


def misses(result: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for r in result["per_question"]:
        cells = {k: v for k, v in r.items() if "@" in k}
        if not r["top1"] or any(not c["evidence"] or c["current_first"] is False for c in cells.values()):
            out.append(r)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    logging.getLogger("agentmem").setLevel(logging.WARNING)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    started = time.perf_counter()
    labels, statements = load(args.split)
    print(f"  {len(statements)} statements ({args.split}), appending ...", flush=True)
    result = run(labels, statements, args.split)
    b, p = result["beliefs"], result["pair_audit"]
    print(f"\n{result['statements']} statements, {result['entities']} entities, "
          f"{result['questions']} questions "
          f"({result['updated_questions']} updated), {result['pairs']} pairs; "
          f"projected in {result['project_seconds']:.1f} s\n")  # fmt: skip
    print_table(
        ["beliefs", "correct", "precision", "chained", "chained ok", "flagged", "flagged ok",
         "stmts in a belief", "top-1 current", "top-1 (updated)", "top-1 right fact",
         "kept apart (must_not_join)", "joined (must_join)"],
        [[str(b["beliefs"]), str(b["correct"]), f"{b['precision']:.1%}", str(b["chained"]),
          str(b["chained_correct"]), str(b["flagged"]), str(b["flagged_correct"]),
          f"{result['statements_in_a_belief']:.1%}", f"{result['top1_current']:.1%}",
          f"{result['top1_current_updated']:.1%}", f"{result['top1_right_fact']:.1%}",
          f"{p['kept_apart']}/{p['must_not_join']} = {p['join_precision']:.1%}",
          f"{p['joined']}/{p['must_join']} = {p['join_recall']:.1%}"]],
    )  # fmt: skip
    print()
    print_table(
        ["reader", "evidence", "evidence (updated)", "value shown", "current first (updated)",
         "old unlabelled (updated)", "tokens"],
        [[cell, f"{c['evidence']:.1%}", f"{c['evidence_updated']:.1%}", f"{c['value_shown']:.1%}",
          f"{c['current_first']:.1%}", f"{c['old_unlabelled']:.1%}", f"{c['tokens_mean']:.0f}"]
         for cell, c in result["context"].items()],
    )  # fmt: skip
    v = result["version_pairs"]
    print(f"\nversions without extraction (context/versions.py) on the same pairs: kept apart "
          f"{v['kept_apart']}/{v['must_not_join']} = {v['join_precision']:.1%} (must_not_join), joined "
          f"{v['joined']}/{v['must_join']} = {v['join_recall']:.1%} (must_join)")  # fmt: skip
    print(f"\n/v1/context over HTTP: {result['context_read_ms']}")
    bars = prose_bars(result)
    print("\nbars")
    for name, b in bars.items():
        print(f"  {'PASS' if b['pass'] else 'FAIL'}  {name}: {b['value']} {b['op']} {b['limit']} {b['unit']}")
    result["bars"] = bars
    missed = misses(result)
    MISSES.write_text(json.dumps(missed, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\n{len(missed)} questions with a miss written to {MISSES}")
    document = {
        "meta": {"split": args.split, "subject": SUBJECT, "budgets": list(BUDGETS),
                 "source": labels["source"],
                 "load_average_1m_at_end": round(os.getloadavg()[0], 2),
                 **environment(time.perf_counter() - started)},
        **{k: v for k, v in result.items() if k != "per_question"},
        "per_question": [
            {k: v for k, v in r.items() if k != "agentmem_markdown"} for r in result["per_question"]
        ],
    }  # fmt: skip
    write_results(document, args.out, started)


if __name__ == "__main__":
    main()
