"""`make demo-mcp` (`python -m agentmem.demo.mcp_agent`): one agent of the demo's chain, goal
planning in Priya's first session, works entirely through MCP: `agentmem mcp` over stdio, driven
by the official SDK's client, as a desktop host or an agent runtime would drive it.

The two agents before it (intake, transaction analysis) write their outputs over the HTTP API as in
`make demo`; the planning team's skill library and the composer's sample catalogue are loaded in
process. Then the MCP session: only the two searches are listed, a hidden tool is refused, both
libraries are searched and the server announces the rest, the agent fetches a function with its
closure and a guidance, reads its budgeted context, does its work, appends it with its facts, and
composes a skill as the identity its API key grants (a principal passed as an argument is refused)."""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
import sys
import time
from pathlib import Path
from typing import Any, TextIO

import anyio
from mcp import Client, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from agentmem.adapters.tokens import count_tokens
from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.compose.evaluate import load_catalogue, load_dataset
from agentmem.demo import skill_library
from agentmem.demo.__main__ import clip, section
from agentmem.demo.agents import TEAM, Desk
from agentmem.demo.clock import StoryClock
from agentmem.demo.composer import BUDGET as COMPOSE_BUDGET
from agentmem.demo.composer import QUESTION_ID
from agentmem.demo.eval_run import install as install_catalogue
from agentmem.demo.eval_run import sample_folder
from agentmem.demo.reading import Context
from agentmem.demo.runner import PROMPT_BUDGET, append, fresh_data_dir, read_context
from agentmem.demo.script import SUBJECT, session_plan
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import LocalServer
from agentmem.settings import Settings
from agentmem.wiring import bootstrap

AGENT = next(a for a in TEAM if a.name == "goal-planning")
GRANT = {"principals": ["analyst", "planner"], "role": "writer"}


def _seed(data_dir: Path) -> None:
    """The chain up to goal planning, over HTTP as in `make demo`; the libraries, in process."""
    started = time.perf_counter()
    services = bootstrap(Settings(data_dir=data_dir))
    plan = session_plan(1)
    services.clock = StoryClock(plan.date)  # the seeded events carry the story's date, as in `make demo`
    worker = local_worker(services)
    server = LocalServer(lambda: build_resolver(services), port=0).start()
    client = MemoryClient(server.url)
    written = 0
    for round_, agent in enumerate(TEAM[: TEAM.index(AGENT)]):
        markdown = read_context(
            client, plan, agent, PROMPT_BUDGET - count_tokens(agent.instruction(plan)), SUBJECT
        )
        for n, output in enumerate(agent.work(Desk(plan, Context(markdown), client))):
            append(client, plan, SUBJECT, round_, agent.name, n, output)
            written += 1
        worker.settle()
    server.stop()
    functions, guidance = skill_library.install(services.skills)
    install_catalogue(services, load_catalogue(sample_folder()))
    # What the serving worker does in its rounds; run here so the first search finds them indexed.
    services.skill_search.sync()
    assets, _ = services.composer.indexer.sync()
    print(
        f"seeded in {time.perf_counter() - started:.1f} s, {written} events by the agents before it (HTTP);"
    )
    print(f"{functions} functions and {guidance} guidance approved; {assets} catalogue assets indexed")


def _stdio(data_dir: Path, key: str) -> StdioServerParameters:
    here = Path(__file__).resolve().parents[2]  # layers/core/python: the package, as it runs here
    environ = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(here), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        "AGENTMEM_DATA_DIR": str(data_dir),
        "AGENTMEM_API_KEYS": json.dumps({key: GRANT}),
        "AGENTMEM_API_KEY": key,
        "POWERTOOLS_LOG_LEVEL": "WARNING",
    }
    return StdioServerParameters(
        command=sys.executable, args=["-m", "agentmem.entrypoints.cli", "mcp"], env=environ
    )


def _structured(result: types.CallToolResult) -> dict[str, Any]:
    if result.is_error or result.structured_content is None:
        raise SystemExit(f"tool call failed: {result.content}")
    structured: dict[str, Any] = result.structured_content
    return structured


def _refusal(result: types.CallToolResult) -> str:
    assert result.is_error and result.structured_content is not None, result
    error = result.structured_content["error"]
    return f"{error['code']} (field {error['field']}): {error['message']}"


async def _names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


READ = {
    "subject_id": SUBJECT,
    "session_id": session_plan(1).session_id,
    "agent": AGENT.name,
    "query": AGENT.query,
}
TASK = "monthly savings target for each of the client's goals"


async def _start(mcp: Client) -> None:
    section("An MCP session over stdio: `agentmem mcp`")
    info = mcp.server_info
    print(
        f"server {info.name if info else '?'} {info.version if info else ''}, protocol {mcp.protocol_version}"
    )
    grant = f"principals {', '.join(GRANT['principals'])}, role {GRANT['role']}"
    print(f"identity: the grant of the API key the server was started with ({grant})")
    print(f"tools/list: {', '.join(await _names(mcp))}")
    print(f"memory_context now → {_refusal(await mcp.call_tool('memory_context', READ))}")


async def _search(mcp: Client, changes: list[str]) -> None:
    section("Search both libraries")
    found = _structured(await mcp.call_tool("search_functions", {"task": TASK, "k": 3, "budget_tokens": 400}))
    for hit in found["functions"]:
        print(f"  function {hit['function_id']:<16} closure {' → '.join(hit['closure'])}")
    print(f"  rendered in {found['used_tokens']} of 400 tokens")
    guides = _structured(await mcp.call_tool("search_guidance", {"task": TASK, "k": 2}))
    for hit in guides["guidance"]:
        print(f"  guidance {hit['guidance_id']:<20} {hit['title']!r} uses {', '.join(hit['function_ids'])}")
    print(f"server sent {', '.join(changes) or 'nothing'}")
    print(f"tools/list: {', '.join(await _names(mcp))}")


async def _read(mcp: Client, budget: int) -> str:
    section("Read: a function with its closure, the guidance, the context slice")
    closure = _structured(await mcp.call_tool("get_function", {"function_id": "funding_row"}))
    print(f"get_function funding_row: {' → '.join(f['function_id'] for f in closure['items'])}")
    guidance = _structured(await mcp.call_tool("get_guidance", {"guidance_id": "plan-savings-goals"}))
    print(f"get_guidance: {guidance['title']!r}, {len(guidance['content'].splitlines())} steps")
    context = _structured(await mcp.call_tool("memory_context", {**READ, "budget_tokens": budget}))
    trace = context["trace"]
    by_source = ", ".join(f"{s} {t:,}" for s, t in trace["tokens_by_source"].items())
    print(f"memory_context: {trace['used_tokens']:,} of {budget:,} tokens ({by_source})")
    if trace["dropped"]:
        print(f"  {len(trace['dropped'])} items dropped, each with its reason in the trace")
    markdown: str = context["markdown"]
    return markdown


async def _work(mcp: Client, markdown: str) -> None:
    section("Work, and append the plan")
    plan = session_plan(1)
    # Goal planning works from its context alone: it makes no API call of its own (the Desk's
    # client is for agents that do, like transaction analysis fetching the statement).
    [output] = AGENT.work(Desk(plan, Context(markdown), MemoryClient("http://unused.invalid")))
    event = {
        "session_id": plan.session_id,
        "subject_id": SUBJECT,
        "round": TEAM.index(AGENT),
        "agent": AGENT.name,
    }
    event |= {
        "kind": output.kind,
        "content": output.content,
        "facts": [f.body() for f in output.facts] or None,
    }
    ack = _structured(await mcp.call_tool("memory_append", event))
    print(f"{AGENT.name}: {output.headline}")
    print(f"memory_append → {ack['session_id']} #{ack['seq']} ({ack['stored']}), {len(output.facts)} fact(s)")


async def _compose(mcp: Client) -> None:
    section("Compose a skill as the key's identity")
    question = next(q for q in load_dataset(sample_folder() / "golden.jsonl") if q.question_id == QUESTION_ID)
    ask = {"skill_id": question.skill_id, "question": question.question, "budget_tokens": COMPOSE_BUDGET}
    report = _structured(await mcp.call_tool("compose_skill", ask))["report"]
    print(f'{question.skill_id}: "{clip(question.question, 70)}"')
    print(
        f"{report['used_tokens']:,} of {COMPOSE_BUDGET:,} tokens, {len(report['sections'])} sections ranked"
    )
    print(f"{report['scope']['assets']} assets in scope for principals {', '.join(GRANT['principals'])}")
    if report["truncated"]:
        print("the cut emitted the guardrail event composer_final_summary_truncated (the server logs it)")
    widened = await mcp.call_tool("compose_skill", {**ask, "principals": ["finance"]})
    print(f"with principals as an argument → {_refusal(widened)}")


async def _session(data_dir: Path, server_log: TextIO) -> None:
    changes: list[str] = []

    async def notified(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changes.append(message.method)

    transport = stdio_client(_stdio(data_dir, secrets.token_urlsafe(24)), errlog=server_log)
    # The handshake era, so the gate's opening arrives as notifications/tools/list_changed.
    async with Client(transport, mode="legacy", message_handler=notified) as mcp:
        await _start(mcp)
        await _search(mcp, changes)
        markdown = await _read(mcp, PROMPT_BUDGET - count_tokens(AGENT.instruction(session_plan(1))) - 2)
        await _work(mcp, markdown)
        await _compose(mcp)


def main() -> None:
    logging.getLogger("agentmem").setLevel(logging.WARNING)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    started = time.perf_counter()
    data_dir = fresh_data_dir("agentmem-demo-mcp")
    try:
        print(f"agentmem MCP demo · the {AGENT.name} agent of {session_plan(1).session_id} works through MCP")
        print(f"data dir {data_dir} (deleted at exit)")
        _seed(data_dir)
        log_path = data_dir / "mcp-server.log"
        with log_path.open("w", encoding="utf-8") as server_log:
            try:
                anyio.run(_session, data_dir, server_log)
            except BaseException:
                server_log.flush()
                print(f"the MCP server's log:\n{log_path.read_text(encoding='utf-8')}", file=sys.stderr)
                raise
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    print(f"\ndone in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
