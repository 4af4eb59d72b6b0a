"""Two LangGraph agents share memory through agentmem's store, over two sessions.

An intake agent reads what the client says and records what it learns as store items; a
planner agent searches that memory by meaning and writes a plan. In the second session the
client changes her mind: intake overwrites one item, the planner reads the new value, and
agentmem keeps the old one in the belief's history. The second session runs async
(`ainvoke`, so the store's `abatch`). No LLM and no network: the agents are rules.

    agentmem serve --data-dir ./.agentmem &
    python docs/examples/langgraph_two_agents.py --url http://127.0.0.1:8787

Without --url the script serves a temporary agentmem of its own (the same server and projector
worker as `agentmem serve`) and deletes it at the end."""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from agentmem.client import MemoryClient
from agentmem.integrations.langgraph import AgentMemStore, fact_key

SUBJECT = "maya"
PROFILE = (SUBJECT, "profile")
PLANS = (SUBJECT, "plans")
SESSIONS = [
    ("advice-s1", "I'm cautious with money. I'm saving for a flat in 5 years."),
    ("advice-s2", "I inherited some money, so I can take more risk now."),
]


class Turn(TypedDict, total=False):
    message: str
    plan: str


def memory_of(runtime: Runtime[None], agent: str) -> AgentMemStore:
    """The graph's store, writing as `agent` (the log keeps who said what)."""
    assert isinstance(runtime.store, AgentMemStore)
    return runtime.store.as_agent(agent)


def intake(state: Turn, *, runtime: Runtime[None]) -> Turn:
    memory = memory_of(runtime, "intake")
    message = state["message"].lower()
    if "cautious" in message:
        memory.put(PROFILE, "risk_tolerance", {"value": "cautious", "said": state["message"]})
    if "more risk" in message:
        memory.put(PROFILE, "risk_tolerance", {"value": "adventurous", "said": state["message"]})
    if goal := re.search(r"saving for (?:a |an )?(\w+) in (\d+) years", message):
        memory.put(PROFILE, "goal", {"value": goal.group(1), "years": int(goal.group(2))})
    return {}


def planner(state: Turn, *, runtime: Runtime[None]) -> Turn:
    memory = memory_of(runtime, "planner")
    # By meaning: no key is named. The store waits until intake's writes are projected.
    risk = memory.search(PROFILE, query="how much investment risk does she accept", limit=1)[0]
    goal = memory.get(PROFILE, "goal")
    assert goal is not None, "intake recorded the goal in the first session"
    mix = "70% bonds / 30% equities" if risk.value["value"] == "cautious" else "30% bonds / 70% equities"
    plan = f"{mix} towards a {goal.value['value']} in {goal.value['years']} years"
    memory.put(PLANS, "current", {"plan": plan, "risk": risk.value["value"]})
    return {"plan": plan}


def advice_graph(store: AgentMemStore) -> CompiledStateGraph[Turn, None, Turn, Turn]:
    graph = StateGraph(Turn)
    graph.add_node("intake", intake)
    graph.add_node("planner", planner)
    graph.add_edge(START, "intake")
    graph.add_edge("intake", "planner")
    graph.add_edge("planner", END)
    return graph.compile(store=store)


def run(url: str) -> list[str]:
    """Both sessions against the agentmem at `url`; the lines printed."""
    lines = []
    (first_session, first), (second_session, second) = SESSIONS
    # Each session is its own store, as separate processes would be: they share nothing but
    # agentmem itself.
    session_one = advice_graph(AgentMemStore.connect(url, session_id=first_session))
    lines.append(f"{first_session}: {session_one.invoke({'message': first})['plan']}")
    second_store = AgentMemStore.connect(url, session_id=second_session)
    later = asyncio.run(advice_graph(second_store).ainvoke({"message": second}))
    lines.append(f"{second_session}: {later['plan']}")
    # Other readers see a write once the projector has applied it: wait for that before the
    # next agent, outside LangGraph, reads its context.
    assert second_store.flush(SUBJECT)

    client = MemoryClient(url)
    chain = client.belief_history(SUBJECT, fact_key(PROFILE, "risk_tolerance"))
    versions = [f"v{b.version} {b.verdict.value}: {b.text}" for b in chain.history or []]
    lines.append("risk_tolerance, as agentmem keeps it:")
    lines += [f"  {v}" for v in versions]
    read = client.context(
        subject_id=SUBJECT, session_id="review", agent="compliance", query="What plan does Maya follow?",
        budget_tokens=300, include=["semantic"],
    )  # fmt: skip
    lines.append(f"what a third agent reads about the plan ({read.trace.used_tokens} tokens):")
    lines += [f"  {line}" for line in read.markdown.splitlines() if "plans_current" in line]
    return lines


@contextmanager
def local_agentmem() -> Iterator[str]:
    """A temporary `agentmem serve`: the API and its projector worker, in this process."""
    from agentmem.api.app import build_resolver
    from agentmem.entrypoints.cli import local_worker
    from agentmem.entrypoints.server import LocalServer
    from agentmem.settings import Settings
    from agentmem.wiring import bootstrap

    with tempfile.TemporaryDirectory() as data_dir:
        services = bootstrap(Settings(data_dir=Path(data_dir)))
        worker = local_worker(services).start()
        try:
            with LocalServer(lambda: build_resolver(services), port=0) as server:
                yield server.url
        finally:
            worker.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running agentmem (default: serve a temporary one)")
    args = parser.parse_args(argv)
    if args.url:
        print("\n".join(run(args.url)))
        return 0
    with local_agentmem() as url:
        print("\n".join(run(url)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
