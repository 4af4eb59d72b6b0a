"""Reads since a watermark: what an agent that re-reads with `since` spends against a full re-read,
and whether every change still reaches it.

    .venv/bin/python bench/since_reads.py [--sessions 10] [--since-budget 300]

The demo's six-agent team (`agentmem.demo`: intake, transaction-analysis, goal-planning,
market-context, recommendation, compliance) advises one client over N sessions through the HTTP
API against the local server, the projector drained after every agent, exactly as the demo and
bench/tokens.py run it. At each agent's turn, on the same state, two reads:

- full: today's read at the demo's budget (the 1,500-token prompt less the instruction); it is
  the one the agent acts on, so the story is the demo's whatever `since` does;
- since: the same query with `since` = the watermark of this agent's previous since read. First a
  probe at a budget below the document's title (an empty document, 0 tokens: only its trace,
  which says what changed and `trace.since.needed_tokens`, the budget that places every change
  at full detail), then a read at that budget, or `--since-budget` when it is smaller; again at
  the needed budget while the trace says a change was left out. All reads count.
- full at equal recall: the least budget (to 1%, by bisection) at which a full re-read places
  every change the since read placed, and its tokens. The full read at the demo's budget misses
  changes; this is what a full re-read costs to miss none.

A change to this agent is a belief whose version moved, or that was first stated, since its
previous read: the subject's current beliefs are listed through the API (`GET .../beliefs`) at
every read and compared, independently of the watermark. A change reached the agent when the
read placed the belief at its new version (`trace.belief_versions`). New events of the session
since the agent's previous read are counted the same way (placed = `event:<session>:<seq>`).
An agent's first read has no watermark: it is a full read in both arms and left out of the
comparison.

Prints a table per session and the totals with PASS/FAIL against the bar (since reads use at
most 50% of the tokens of a full re-read at equal recall, with 0 missed changes), writes
bench/results/since_reads.json, and always exits 0."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from report import bar, environment, print_table

from agentmem.adapters.tokens import count_tokens
from agentmem.api.app import build_resolver
from agentmem.client import MemoryApiError, MemoryClient
from agentmem.demo import PROMPT_BUDGET, fresh_data_dir
from agentmem.demo.agents import TEAM, Desk
from agentmem.demo.clock import StoryClock
from agentmem.demo.reading import Context
from agentmem.demo.runner import append
from agentmem.demo.script import SUBJECT, session_plan
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import LocalServer
from agentmem.model.context import ContextResponse
from agentmem.settings import Settings
from agentmem.wiring import bootstrap

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "since_reads.json"
MAX_SINCE_BUDGET = 50_000
TOKEN_BAR = 0.5  # since reads spend at most this share of a full re-read's tokens


@dataclass
class Turn:
    session: str
    agent: str
    full_tokens: int
    equal_recall_budget: int
    equal_recall_tokens: int  # a full re-read's tokens at the least budget placing every change
    since_tokens: int
    since_reads: int  # 1, or more when the budget was doubled
    changed_facts: int
    missed_since: int
    missed_full: int
    new_events: int
    events_missed_since: int
    events_missed_full: int


@dataclass
class Reader:
    """What one agent knows of its own earlier reads: the beliefs then, the watermark, the seq."""

    versions: dict[str, int] = field(default_factory=dict)
    watermark: str | None = None
    session: str = ""
    seq: int = 0


def read(client: MemoryClient, body: dict[str, Any]) -> ContextResponse | None:
    try:
        return client.context(**body)
    except MemoryApiError as exc:
        if exc.status == 404 and exc.field == "subject_id":
            return None  # nothing known of the client yet
        raise


def since_read(
    client: MemoryClient, body: dict[str, Any], watermark: str, budget: int
) -> list[ContextResponse]:
    """A probe at a budget below the title (an empty document, 0 tokens: the trace alone says
    what changed and what it needs), then a read at `budget` or at the budget every change needs
    (`trace.since.needed_tokens`), again at the needed budget while one is left out."""
    probe = client.context(**body, budget_tokens=1, since=watermark)
    reads = [probe]
    if probe.trace.since is not None:
        budget = max(budget, probe.trace.since.needed_tokens)
    while True:
        answer = client.context(**body, budget_tokens=budget, since=watermark)
        reads.append(answer)
        since = answer.trace.since
        if since is None or not since.left_out or budget >= MAX_SINCE_BUDGET:
            return reads
        budget = min(MAX_SINCE_BUDGET, max(since.needed_tokens, budget + 1))


def equal_recall_budget(
    client: MemoryClient, body: dict[str, Any], changed: dict[str, int], new: list[str], start: int
) -> tuple[int, int]:
    """The least budget (to 1%) at which a full re-read places every change, and its tokens:
    the full re-read's cost at the since read's recall."""

    def complete(budget: int) -> ContextResponse | None:
        answer = client.context(**body, budget_tokens=budget)
        return answer if not missed(changed, answer) and not events_missed(new, answer) else None

    low, high = start, MAX_SINCE_BUDGET
    found = complete(start)
    if found is not None:
        return start, found.trace.used_tokens
    best = complete(high)
    if best is None:
        return high, -1  # no budget recalls every change (a change ranked out of every read)
    while high - low > max(16, low // 100):
        middle = (low + high) // 2
        answer = complete(middle)
        if answer is None:
            low = middle
        else:
            high, best = middle, answer
    return high, best.trace.used_tokens


def missed(changed: dict[str, int], answer: ContextResponse | None) -> int:
    placed = answer.trace.belief_versions if answer is not None else {}
    return sum(placed.get(doc) != version for doc, version in changed.items())


def events_missed(new: list[str], answer: ContextResponse | None) -> int:
    placed = {i.item_id for i in answer.items} if answer is not None else set()
    return sum(item not in placed for item in new)


def run(sessions: int, since_budget: int) -> tuple[list[Turn], int]:
    services = bootstrap(Settings(data_dir=fresh_data_dir("agentmem-since-bench")))
    services.clock = clock = StoryClock()
    worker = local_worker(services)
    turns: list[Turn] = []
    first_reads = 0
    readers = {agent.name: Reader() for agent in TEAM}
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        client = MemoryClient(server.url)
        for number in range(1, sessions + 1):
            plan = session_plan(number)
            clock.begin(plan.date)
            for round_, agent in enumerate(TEAM):
                instruction = agent.instruction(plan)
                budget = PROMPT_BUDGET - count_tokens(instruction) - 2
                body = {"subject_id": SUBJECT, "session_id": plan.session_id, "agent": agent.name,
                        "query": agent.query}  # fmt: skip
                full = read(client, {**body, "budget_tokens": budget})
                versions = {b.doc_id: b.version for b in client.beliefs(SUBJECT)} if full is not None else {}
                reader = readers[agent.name]
                if reader.watermark is not None and full is not None:
                    changed = {d: v for d, v in versions.items() if reader.versions.get(d) != v}
                    last = full.trace.log_watermark_seq
                    after = reader.seq if reader.session == plan.session_id else 0
                    new = [f"event:{plan.session_id}:{seq}" for seq in range(after + 1, last + 1)]
                    reads = since_read(client, body, reader.watermark, since_budget)
                    answer = reads[-1]
                    at_recall = equal_recall_budget(client, body, changed, new, budget)
                    turns.append(
                        Turn(plan.session_id, agent.name, full.trace.used_tokens, *at_recall,
                             sum(r.trace.used_tokens for r in reads), len(reads), len(changed),
                             missed(changed, answer), missed(changed, full), len(new),
                             events_missed(new, answer), events_missed(new, full))
                    )  # fmt: skip
                    reader.watermark = answer.trace.watermark
                else:
                    first_reads += 1
                    reader.watermark = full.trace.watermark if full is not None else None
                if full is not None:
                    reader.versions, reader.session = versions, plan.session_id
                    reader.seq = full.trace.log_watermark_seq
                markdown = full.markdown if full is not None else ""
                outputs = agent.work(Desk(plan, Context(markdown), client))
                for n, output in enumerate(outputs):
                    append(client, plan, SUBJECT, round_, agent.name, n, output)
                worker.settle()
    return turns, first_reads


def summarise(turns: list[Turn]) -> dict[str, Any]:
    full = sum(t.full_tokens for t in turns)
    since = sum(t.since_tokens for t in turns)
    equal = sum(max(0, t.equal_recall_tokens) for t in turns)
    return {
        "equal_recall_per_read": round(equal / len(turns), 1) if turns else 0,
        "since_share_at_equal_recall": round(since / equal, 4) if equal else 0,
        "unreachable_by_full": sum(t.equal_recall_tokens < 0 for t in turns),
        "reads": len(turns),
        "full_tokens": full,
        "since_tokens": since,
        "full_per_read": round(full / len(turns), 1) if turns else 0,
        "since_per_read": round(since / len(turns), 1) if turns else 0,
        "since_share": round(since / full, 4) if full else 0,
        "re_read": sum(t.since_reads > 2 for t in turns),  # past the probe and one read
        "changed_facts": sum(t.changed_facts for t in turns),
        "missed_since": sum(t.missed_since for t in turns),
        "missed_full": sum(t.missed_full for t in turns),
        "new_events": sum(t.new_events for t in turns),
        "events_missed_since": sum(t.events_missed_since for t in turns),
        "events_missed_full": sum(t.events_missed_full for t in turns),
    }


def row(s: dict[str, Any]) -> list[str]:
    counts = ("reads", "changed_facts", "missed_since", "missed_full", "new_events",
              "events_missed_since", "events_missed_full")  # fmt: skip
    shown = [str(s[c]) for c in counts]
    tokens = [f"{s[k]:,.0f}" for k in ("full_per_read", "equal_recall_per_read", "since_per_read")]
    tokens += [f"{s[k]:.0%}" for k in ("since_share", "since_share_at_equal_recall")]
    return [shown[0], *tokens, *shown[1:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--since-budget", type=int, default=300)
    args = parser.parse_args()
    started = time.perf_counter()
    turns, first_reads = run(args.sessions, args.since_budget)
    rows = []
    for session in dict.fromkeys(t.session for t in turns):
        s = summarise([t for t in turns if t.session == session])
        rows.append([session, *row(s)])
    total = summarise(turns)
    rows.append(["all", *row(total)])
    print(
        f"six agents, {args.sessions} sessions; full re-read at the demo's budget; since reads from"
        f" {args.since_budget} tokens, read again at needed_tokens when a change is left out;"
        f" {first_reads} first reads left out"
    )
    print_table(
        ["session", "re-reads", "full tok/read", "full@recall tok/read", "since tok/read", "since/full",
         "since/full@recall", "changed facts",
         "missed (since)", "missed (full)", "new events", "ev missed (since)", "ev missed (full)"],
        rows,
    )  # fmt: skip
    bars = {
        "since_token_share_at_equal_recall": bar(
            total["since_share_at_equal_recall"],
            TOKEN_BAR,
            "<=",
            "share of the tokens a full re-read needs to place every change",
        ),
        "missed_changes_since": bar(total["missed_since"], 0, "<=", "changed facts not reaching the agent"),
    }
    for name, b in bars.items():
        print(f"{'PASS' if b['pass'] else 'FAIL'} {name}: {b['value']} {b['op']} {b['limit']} ({b['unit']})")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {"meta": environment(time.perf_counter() - started),
             "config": {"sessions": args.sessions, "since_budget": args.since_budget,
                        "full_budget": PROMPT_BUDGET, "first_reads_left_out": first_reads},
             "summary": total, "bars": bars, "turns": [asdict(t) for t in turns]},
            indent=2,
        ) + "\n"
    )  # fmt: skip
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
