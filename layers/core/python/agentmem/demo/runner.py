"""Run the team over N sessions through the HTTP API, and count every prompt two ways.

By reference: the agent's instruction plus the context slice it read (`POST /v1/context`), capped
by the prompt budget. By value, the naive chain: the instruction plus every predecessor's full
output in this session plus a replay of every earlier session's outputs, blob content included
as a chain that passes context along would paste it. Counts are exact o200k_base token counts;
the naive prompt is counted piece by piece (each output once), which leaves out the separators
and so slightly undercounts it."""

from __future__ import annotations

import itertools
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentmem.adapters.tokens import count_tokens
from agentmem.client import MemoryApiError, MemoryClient
from agentmem.demo.agents import TEAM, Agent, Desk, Output
from agentmem.demo.clock import StoryClock
from agentmem.demo.reading import Context
from agentmem.demo.script import SUBJECT, SessionPlan, session_plan

PROMPT_BUDGET = 1500  # tokens for one agent's whole by-reference prompt: instruction + context
Progress = Callable[[SessionPlan, int, Agent], None]


@dataclass(frozen=True)
class Step:
    session: int
    session_id: str
    agent: str
    headline: str
    budget: int
    instruction_tokens: int
    context_tokens: int
    by_reference: int
    by_value: int
    by_value_no_statements: int  # the same chain with the bank statements left out
    flagged: int  # contradicted beliefs in the agent's context


@dataclass
class Run:
    steps: list[Step] = field(default_factory=list)
    contexts: dict[tuple[str, str], str] = field(default_factory=dict)  # (session, agent) -> markdown
    blob_events: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Transcript:
    """The naive chain: every output so far, as tokens, with the bank statements (CSV) marked."""

    pieces: list[tuple[int, bool]] = field(default_factory=list)

    def add(self, plan: SessionPlan, agent: str, output: Output) -> None:
        content = output.content
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        piece = f"[{plan.session_id} {agent}/{output.kind}]\n{text}"
        self.pieces.append((count_tokens(piece), output.media_type == "text/csv"))

    def tokens(self, *, statements: bool = True) -> int:
        return sum(t for t, is_csv in self.pieces if statements or not is_csv)


def fresh_data_dir(name: str) -> Path:
    """A new, empty dir `<temp>/<name>-<n>` for the lowest free n. Blob URIs, which readers see,
    then repeat from run to run, and so do token counts; a random suffix would change them."""
    base = Path(tempfile.gettempdir())
    for n in itertools.count(1):
        path = base / f"{name}-{n}"
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            continue
        return path
    raise AssertionError("unreachable")


def read_context(client: MemoryClient, plan: SessionPlan, agent: Agent, budget: int, subject: str) -> str:
    try:
        return client.context(
            subject_id=subject,
            session_id=plan.session_id,
            agent=agent.name,
            query=agent.query,
            budget_tokens=budget,
        ).markdown
    except MemoryApiError as exc:
        if exc.status == 404 and exc.field == "subject_id":
            return ""  # a new client: nothing is known yet
        raise


def append(
    client: MemoryClient, plan: SessionPlan, subject: str, round_: int, agent: str, n: int, out: Output
) -> Any:
    body: dict[str, Any] = {
        "subject_id": subject,
        "round": round_,
        "agent": agent,
        "kind": out.kind,
        "content": out.content,
        "idempotency_key": f"{plan.session_id}-{agent}-{n}",  # a rerun appends nothing twice
    }
    if out.media_type:
        body["media_type"] = out.media_type
    if out.facts:
        body["facts"] = [f.body() for f in out.facts]
    return client.request("POST", f"/v1/sessions/{plan.session_id}/events", body)


def run_sessions(
    client: MemoryClient,
    catch_up: Callable[[], object],
    sessions: int,
    *,
    subject: str = SUBJECT,
    budget: int = PROMPT_BUDGET,
    progress: Progress | None = None,
    clock: StoryClock | None = None,
    on_session: Callable[[SessionPlan], object] | None = None,
) -> Run:
    """Run the six agents in order for each of `sessions` sessions of `subject`. `catch_up` lets
    the projector drain the log after each agent, so the next reader sees current beliefs.
    `clock`, the log's clock when the server runs in this process, is moved to each session's date.
    `on_session` runs before each session starts, still on the previous session's date."""
    run = Run()
    transcript = Transcript()
    for number in range(1, sessions + 1):
        plan = session_plan(number, subject)
        if on_session is not None:
            on_session(plan)
        if clock is not None:
            clock.begin(plan.date)
        for round_, agent in enumerate(TEAM):
            if progress:
                progress(plan, round_, agent)
            instruction = agent.instruction(plan)
            instruction_tokens = count_tokens(instruction)
            markdown = read_context(client, plan, agent, budget - instruction_tokens - 2, subject)
            prompt = f"{instruction}\n\n{markdown}" if markdown else instruction
            outputs = agent.work(Desk(plan, Context(markdown), client))
            step = Step(
                session=number,
                session_id=plan.session_id,
                agent=agent.name,
                headline="; ".join(o.headline for o in outputs),
                budget=budget,
                instruction_tokens=instruction_tokens,
                context_tokens=count_tokens(markdown),
                by_reference=count_tokens(prompt),
                by_value=instruction_tokens + transcript.tokens(),
                by_value_no_statements=instruction_tokens + transcript.tokens(statements=False),
                flagged=len(Context(markdown).flagged()),
            )
            run.steps.append(step)
            run.contexts[(plan.session_id, agent.name)] = markdown
            for n, output in enumerate(outputs):
                ack = append(client, plan, subject, round_, agent.name, n, output)
                if ack.get("stored") == "blob":
                    run.blob_events.append({"session_id": plan.session_id, "agent": agent.name, **ack})
                transcript.add(plan, agent.name, output)
            catch_up()
    return run
