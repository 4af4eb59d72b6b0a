"""Reads that spend a small budget: is the answer in the document, and how many lines are ids only?

    .venv/bin/python bench/small_budget.py [--label NAME]

(1) One subject (`dana`) holds 40 beliefs whose keys are opaque (`k_<sha1>`, as extraction
    without declared keys makes them): each topic ("favourite colour", "home city", ...) was
    stated once and later changed to another value, so every belief is a knowledge update,
    flagged as contradicted. Explicit facts on the events make the projection exact.
(2) Two sessions to read from: `log`, which holds the subject's whole log (5,000 events: the 80
    statements among varied notes), and `new`, a session with no events yet.
(3) 12 questions, one per topic ("What is Dana's home city now?"); the answer is the topic's
    latest value. Each is read through `ContextService.build` at 500 and 1,000 tokens from each
    session (default split 0.5, episodic + semantic). Per cell: how often the answer's value is
    in the document at all, how often its belief renders in full, how often it ranks first among
    the beliefs (the ranking is not what this measures, so it should be near 100%), and the
    mean number of lines at each level.
(4) Skill search at 500 tokens (a 200-function, 40-guidance synthetic library, bench/
    synthetic_skills.py) at k=5 and k=50: items shown in detail (full or short) against how many
    items a plain top-k at full detail fits in the same budget.

Prints tables and writes bench/results/small_budget[-LABEL].json. Bounded: about 30 s."""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from report import environment, print_table
from synthetic_skills import generate

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.adapters.tokens import count_tokens
from agentmem.model.beliefs import FactInput
from agentmem.model.context import ContextRequest
from agentmem.model.events import AppendEventRequest
from agentmem.procedural.search_models import SkillSearchRequest
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261212
SUBJECT = "dana"
LOG_EVENTS = 5000
QUESTIONS = 12
BUDGETS = (500, 1000)
SKILL_BUDGET = 500
SKILL_KS = (5, 50)
LEVELS = ("full", "short", "identity")

TOPICS = (
    "favourite colour", "home city", "employer", "preferred airline", "gym", "car model",
    "dentist", "bank", "phone carrier", "pet's name", "favourite restaurant", "coffee order",
    "reading list focus", "running route", "yoga teacher", "preferred seat", "hotel chain",
    "streaming service", "insurance provider", "accountant", "weekend hobby", "favourite band",
    "doctor", "landlord", "child's school", "commute mode", "laptop brand", "chess opening",
    "garden project", "language course", "volunteer group", "savings goal", "holiday destination",
    "bike shop", "barber", "tea brand", "piano teacher", "hiking club", "book club", "pharmacy",
)  # fmt: skip
VALUES = (
    "teal", "Lisbon", "Northwind", "Aerolux", "Ironworks", "Corvette", "Dr Okafor", "Monzo",
    "Vodafone", "Biscuit", "Osteria Nonna", "flat white", "Roman history", "river loop",
    "Priyanka", "aisle", "Marriott", "Criterion", "Aviva", "Hallam", "pottery", "Low", "Dr Ruiz",
    "Mr Petrov", "Hillcrest", "tram", "Framework", "Sicilian", "herb spiral", "Portuguese",
    "Food Rescue", "roof repair", "Kyoto", "Spokes", "Tony", "Assam", "Mrs Lind", "Peak Walkers",
    "Thursday Readers", "Boots", "magenta", "Porto", "Fabrikam", "Skyward", "PureGym", "Mustang",
    "Dr Chen", "Starling", "EE", "Pepper", "Dishoom", "cortado", "Byzantium", "canal path",
    "Marcus", "window", "Hilton", "Mubi", "Direct Line", "Baxter", "woodturning", "Idles",
    "Dr Haas", "Ms Gray", "Riverside", "cycling", "ThinkPad", "Caro-Kann", "pond build",
    "Japanese", "Street Kitchen", "new boiler", "Hokkaido", "Cog & Chain", "Sami", "Darjeeling",
    "Mr Abbot", "Fell Runners", "Page Turners", "Superdrug",
)  # fmt: skip


def key_of(topic: str) -> str:
    return "k_" + hashlib.sha1(topic.encode()).hexdigest()[:12]


def note(rng: random.Random, words: list[str]) -> str:
    sentences = [" ".join(rng.choices(words, k=rng.randint(9, 18))).capitalize() + "." for _ in range(2)]
    return " ".join(sentences)


def build_subject(services: Services) -> dict[str, str]:
    """The subject's log in session `log`; returns topic -> its latest value."""
    rng = random.Random(SEED)
    vocabulary = [
        w for line in (ROOT / "bench/data/skill_vocabulary.txt").read_text().splitlines()
        for w in line.replace("|", " ").lower().split() if w.isalpha() and len(w) > 3
    ]  # fmt: skip
    vocabulary = sorted(set(vocabulary))
    first, latest = VALUES[: len(TOPICS)], VALUES[len(TOPICS) :]
    # The first statements fall in the first half of the log, the changes in the second half.
    slots = rng.sample(range(LOG_EVENTS // 2), len(TOPICS)) + rng.sample(
        range(LOG_EVENTS // 2, LOG_EVENTS), len(TOPICS)
    )
    statements = dict(zip(slots, [(t, v) for t, v in zip(TOPICS, first, strict=True)]
                          + [(t, v) for t, v in zip(TOPICS, latest, strict=True)], strict=True))  # fmt: skip
    for n in range(LOG_EVENTS):
        if n in statements:
            topic, value = statements[n]
            text = f"Dana's {topic} is {value}."
            request = AppendEventRequest(
                subject_id=SUBJECT, round=n // 50, agent="intake", kind="note", content=text,
                facts=[FactInput(key=key_of(topic), text=text, value=value)],
            )  # fmt: skip
        else:
            request = AppendEventRequest(
                subject_id=SUBJECT, round=n // 50, agent=rng.choice(["research", "planner", "ops"]),
                kind="note", content=note(rng, vocabulary),
            )  # fmt: skip
        services.episodic.append("log", request)
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    ProjectorWorker(log, services.semantic, SqliteCheckpoints(log.database, "local")).settle()
    return dict(zip(TOPICS, latest, strict=True))


def read_cells(services: Services, latest: dict[str, str]) -> list[dict[str, Any]]:
    topics = list(TOPICS)[:QUESTIONS]
    cells = []
    for session in ("new", "log"):
        for budget in BUDGETS:
            present = full = first = 0
            levels: dict[str, list[int]] = {"full": [], "short": [], "identity": []}
            started = time.perf_counter()
            for topic in topics:
                query = f"What is Dana's {topic} now?"
                response = services.context.build(
                    ContextRequest(
                        subject_id=SUBJECT, session_id=session, agent="qa", query=query, budget_tokens=budget
                    )
                )
                assert count_tokens(response.markdown) == response.trace.used_tokens <= budget
                present += latest[topic] in response.markdown
                answer = [i for i in response.items if i.ref.get("key") == key_of(topic)]
                full += bool(answer) and answer[0].level == "full"
                beliefs = [i for i in response.items if i.source == "semantic"]
                first += bool(beliefs) and beliefs[0].ref.get("key") == key_of(topic)
                for level, counts in levels.items():
                    counts.append(sum(i.level == level for i in response.items))
            cells.append(
                {
                    "session": session,
                    "budget": budget,
                    "answer_present": present / len(topics),
                    "answer_in_full": full / len(topics),
                    "answer_first_belief": first / len(topics),
                    "mean_lines": {level: statistics.mean(c) for level, c in levels.items()},
                    "mean_read_ms": round((time.perf_counter() - started) * 1000 / len(topics), 1),
                }
            )
    return cells


def skill_cells(services: Services) -> list[dict[str, Any]]:
    library = generate(200, 40, 12, SEED)
    for f in library.functions:
        services.skills.put_function(f.spec)
    for g in library.guidance:
        services.skills.put_guidance(g.spec)
    search = services.skill_search
    cells = []
    for k in SKILL_KS:
        detailed, plain = [], []
        for query in library.queries:
            response = search.search(SkillSearchRequest(task=query.text, k=k, budget_tokens=SKILL_BUDGET))
            assert response.markdown is not None and (response.used_tokens or 0) <= SKILL_BUDGET
            lines = set(response.markdown.splitlines())
            candidates = search.candidates_of(response)
            detailed.append(sum(any(f"- {r}" in lines for r in c.renders[:-1]) for c in candidates))
            # A plain top-k: the found items at full detail, best first, until one does not fit.
            doc, fits = "# Skills\n\n## Skills\n", 0
            for c in sorted(candidates, key=lambda c: -c.score):
                doc += f"- {c.renders[0]}\n"
                if count_tokens(doc) > SKILL_BUDGET:
                    break
                fits += 1
            plain.append(fits)
        cells.append(
            {
                "k": k,
                "budget": SKILL_BUDGET,
                "mean_items_in_detail": statistics.mean(detailed),
                "mean_plain_top_k_fits": statistics.mean(plain),
            }
        )
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="", help="suffix of the result file, e.g. 'head'")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-small-") as tmp:
        services = bootstrap(Settings(data_dir=Path(tmp) / "data"))
        latest = build_subject(services)
        print(
            f"wrote and projected {LOG_EVENTS:,} events in {time.perf_counter() - started:.1f} s", flush=True
        )
        reads = read_cells(services, latest)
        print(f"read {len(reads) * QUESTIONS} contexts by {time.perf_counter() - started:.1f} s", flush=True)
        skills = skill_cells(services)
    print(f"\ncontext reads ({QUESTIONS} knowledge-update questions, split 0.5)")
    headers = ["session", "budget", "answer present", "answer in full", "ranked 1st", "full", "short"]
    print_table(
        [*headers, "id-only", "ms"],
        [
            [c["session"], str(c["budget"]), f"{c['answer_present']:.0%}", f"{c['answer_in_full']:.0%}",
             f"{c['answer_first_belief']:.0%}", *(f"{c['mean_lines'][lv]:.1f}" for lv in LEVELS),
             f"{c['mean_read_ms']:.0f}"]
            for c in reads
        ],
    )  # fmt: skip
    print(f"\nskill search at {SKILL_BUDGET} tokens")
    print_table(
        ["k", "items in detail", "plain top-k fits"],
        [
            [str(c["k"]), f"{c['mean_items_in_detail']:.1f}", f"{c['mean_plain_top_k_fits']:.1f}"]
            for c in skills
        ],
    )
    out = ROOT / "bench" / "results" / f"small_budget{'-' + args.label if args.label else ''}.json"
    out.write_text(
        json.dumps(
            {"reads": reads, "skills": skills, "meta": environment(time.perf_counter() - started)}, indent=2
        )
    )
    print(f"\nwrote {out.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
