"""Knowledge-update bench: a knowledge base kept in plain prose about named entities, changed over
time. Does a reader asking "Who is the CEO of Velmora?" get the current value?

    .venv/bin/python bench/knowledge_updates.py [--statements 500,2000] [--questions 300] [--seed N]

A seeded generator (bench/knowledge_gen.py: invented entities and values, 36 relation phrasings,
several shapes per relation, updates that often restate the relation in another shape) gives N
statements about (entity, relation) pairs, 40% of them updated 1-3 times later. Each statement is
appended as one event of subject `kb` through the public HTTP API (a local server on the embedded
default: SQLite, MiniLM, the rules), twice, each time into a fresh store:

- `prose`: the event's text only, no `facts`: what the extractor makes of it;
- `facts`: the same text with one explicit fact (`ceo_of_velmora`, "The CEO of Velmora is ..."),
  the reference.

The projector is drained, then one question per pair (a seeded sample of at most `--questions`,
half of them updated pairs) is asked through the beliefs search route (top-1: is its value the
current one?) and `/v1/context` at 500 and 1,000 tokens from a session of the reader's with no
events (is the current value in the document; for an updated pair, is a superseded value shown
on a line of its own without a label: bench/conversation_score.py's rule). Prints a table, writes
bench/results/knowledge_updates.json, and always exits 0."""

from __future__ import annotations

import argparse
import logging
import os
import random
import re
import time
from pathlib import Path
from typing import Any

from knowledge_gen import Dataset, Pair, generate
from local_stack import local_stack
from report import environment, print_table, write_results

from agentmem.client import MemoryClient
from agentmem.model.beliefs import normalise_value

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "knowledge_updates.json"
SEED = 20261202
SUBJECT = "kb"
SESSION_SIZE = 100  # statements per writer session
BUDGETS = (500, 1000)
RUNS = ("prose", "facts")
LABELS = ("superseded", "changed from", "previously", "no longer", "outdated", "⚠")  # conversation_score


def says(value: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", text, re.IGNORECASE) is not None


def labelled(line: str) -> bool:
    return any(label in line.casefold() for label in LABELS)


def superseded_unlabelled(markdown: str, pair: Pair) -> bool:
    current, old = pair.values[-1], pair.values[:-1]
    return any(
        says(value, line) and not says(current, line) and not labelled(line)
        for line in markdown.splitlines()
        for value in old
    )


def fact_text(pair: Pair, value: str, changed: bool) -> str:
    return f"The {pair.relation} of {pair.entity} is {'now ' if changed else ''}{value}."


def append(client: MemoryClient, data: Dataset, explicit: bool) -> float:
    started = time.perf_counter()
    for n, statement in enumerate(data.statements):
        pair = data.pairs[statement.pair]
        body: dict[str, Any] = {
            "subject_id": SUBJECT, "round": n % SESSION_SIZE, "agent": "research", "kind": "note",
            "content": statement.text, "idempotency_key": f"kb-{n}",
        }  # fmt: skip
        if explicit:
            text = fact_text(pair, statement.value, statement.changed)
            body["facts"] = [{"key": pair.key, "text": text, "value": statement.value}]
        client.request("POST", f"/v1/sessions/kb-notes-{n // SESSION_SIZE}/events", body)
    return time.perf_counter() - started


def questions(data: Dataset, limit: int, seed: int) -> list[Pair]:
    """At most `limit` pairs, half of them updated ones when there are enough."""
    rng = random.Random(seed)
    stated = [p for p in data.pairs if p.values]
    updated = [p for p in stated if len(p.values) > 1]
    plain = [p for p in stated if len(p.values) == 1]
    take = min(len(updated), limit // 2)
    chosen = rng.sample(updated, take) + rng.sample(plain, min(len(plain), limit - take))
    return sorted(chosen, key=lambda p: p.key)


def ask(client: MemoryClient, pair: Pair) -> dict[str, Any]:
    current = normalise_value(pair.values[-1])
    hits = client.request("POST", f"/v1/subjects/{SUBJECT}/beliefs/search", {"query": pair.question, "k": 1})
    top = hits["items"][0]["belief"] if hits["items"] else None
    row: dict[str, Any] = {
        "key": pair.key, "question": pair.question, "values": pair.values,
        "top1": top is not None and normalise_value(top["value"]) == current,
        "top1_key": top["key"] if top else None,
    }  # fmt: skip
    for budget in BUDGETS:
        body = {"subject_id": SUBJECT, "session_id": "kb-reader", "agent": "reader", "query": pair.question,
                "budget_tokens": budget}  # fmt: skip
        markdown = str(client.request("POST", "/v1/context", body)["markdown"])
        row[f"present@{budget}"] = says(pair.values[-1], markdown)
        row[f"old_unlabelled@{budget}"] = len(pair.values) > 1 and superseded_unlabelled(markdown, pair)
    return row


def run(data: Dataset, explicit: bool, asked: list[Pair]) -> dict[str, Any]:
    with local_stack("agentmem-bench-knowledge-") as stack:
        client = stack.client
        append_seconds = append(client, data, explicit)
        started = time.perf_counter()
        stack.worker.settle()
        project_seconds = time.perf_counter() - started
        beliefs = client.request("GET", f"/v1/subjects/{SUBJECT}/beliefs")["items"]
        started = time.perf_counter()
        rows = [ask(client, pair) for pair in asked]
        read_seconds = time.perf_counter() - started
    updated = [r for r in rows if len(r["values"]) > 1]

    def share(chosen: list[dict[str, Any]], field: str) -> float:
        return round(sum(bool(r[field]) for r in chosen) / len(chosen), 4) if chosen else 0.0

    return {
        "run": "facts" if explicit else "prose",
        "beliefs": len(beliefs),
        "append_seconds": round(append_seconds, 2),
        "project_seconds": round(project_seconds, 2),
        "read_seconds": round(read_seconds, 2),
        "questions": len(rows),
        "updated_questions": len(updated),
        "top1_current": share(rows, "top1"),
        "top1_current_updated": share(updated, "top1"),
        **{f"present@{b}": share(rows, f"present@{b}") for b in BUDGETS},
        **{f"old_unlabelled@{b}": share(updated, f"old_unlabelled@{b}") for b in BUDGETS},
        "per_question": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--statements", default="500,2000", help="sizes, comma-separated")
    parser.add_argument("--questions", type=int, default=300, help="questions per size (a seeded sample)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    logging.getLogger("agentmem").setLevel(logging.WARNING)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    started = time.perf_counter()
    sizes: list[dict[str, Any]] = []
    for size in (int(s) for s in args.statements.split(",")):
        data = generate(args.seed, size)
        asked = questions(data, args.questions, args.seed)
        stated = [p for p in data.pairs if p.values]
        entry: dict[str, Any] = {
            "statements": len(data.statements), "pairs": len(stated),
            "updated_pairs": sum(len(p.values) > 1 for p in stated),
            "updates": sum(s.changed for s in data.statements), "runs": [],
        }  # fmt: skip
        for name in RUNS:
            result = run(data, name == "facts", asked)
            entry["runs"].append(result)
            print(f"  {size:,} statements, {name}: {result['top1_current']:.0%} top-1 current "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)  # fmt: skip
        sizes.append(entry)
    headers = ["statements", "pairs", "updated", "run", "beliefs", "questions", "top-1 current",
               "top-1 (updated)", "ctx@500", "ctx@1000", "old unlabelled@500",
               "old unlabelled@1000"]  # fmt: skip
    print_table(
        headers,
        [
            [f"{s['statements']:,}", str(s["pairs"]), str(s["updated_pairs"]), r["run"], str(r["beliefs"]),
             str(r["questions"]), f"{r['top1_current']:.1%}", f"{r['top1_current_updated']:.1%}",
             f"{r['present@500']:.1%}", f"{r['present@1000']:.1%}", f"{r['old_unlabelled@500']:.1%}",
             f"{r['old_unlabelled@1000']:.1%}"]
            for s in sizes for r in s["runs"]
        ],
    )  # fmt: skip
    document = {
        "meta": {"seed": args.seed, "questions_cap": args.questions, "subject": SUBJECT,
                 "load_average_1m_at_end": round(os.getloadavg()[0], 2),
                 **environment(time.perf_counter() - started)},
        "sizes": sizes,
    }  # fmt: skip
    write_results(document, args.out, started)


if __name__ == "__main__":
    main()
