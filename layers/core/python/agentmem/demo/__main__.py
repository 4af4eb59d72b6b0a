"""`make demo` (`python -m agentmem.demo`): six scripted agents advise one client over three
sessions, through the HTTP API of a local server on a temporary data dir.

It prints what each agent wrote and what its prompt cost, by reference (its instruction plus the
budgeted context slice it read) against by value (the naive chain that pastes every earlier
output, the 41 KB bank export included), then the client's beliefs with their versions and
contradiction flags, and the flagged lines the compliance agent read."""

from __future__ import annotations

import argparse
import logging
import os
import re
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.demo.agents import TEAM, Agent
from agentmem.demo.changes import ChangeWatch
from agentmem.demo.clock import StoryClock
from agentmem.demo.composer import show as show_composer
from agentmem.demo.runner import PROMPT_BUDGET, Run, fresh_data_dir, run_sessions
from agentmem.demo.script import SUBJECT, SessionPlan, session_plan
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import LocalServer
from agentmem.settings import Settings
from agentmem.wiring import bootstrap

FLAG_IN_COMPLIANCE = "changed from cautious (priya-s1) to aggressive (priya-s2)"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> list[str]:
    """Aligned columns; `right` lists the columns to right-align (numbers)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [fmt(headers), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows)]


def section(title: str) -> None:
    print(f"\n── {title} " + "─" * max(0, 96 - len(title)))


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def token_table(run: Run) -> list[str]:
    rows: list[list[str]] = []
    for number in sorted({s.session for s in run.steps}):
        steps = [s for s in run.steps if s.session == number]
        for s in steps:
            saved = 1 - s.by_reference / s.by_value if s.by_value else 0.0
            first = s is steps[0]
            rows.append(
                [
                    s.session_id if first else "",
                    s.agent,
                    clip(s.headline, 44),
                    f"{s.by_reference:,}",
                    f"{s.by_value:,}",
                    f"{saved:.0%}",
                ]
            )
        ref, val = sum(s.by_reference for s in steps), sum(s.by_value for s in steps)
        rows.append(["", "  session total", "", f"{ref:,}", f"{val:,}", f"{1 - ref / val:.0%}"])
    ref = sum(s.by_reference for s in run.steps)
    val = sum(s.by_value for s in run.steps)
    rows.append(["all", f"{len(run.steps)} prompts", "", f"{ref:,}", f"{val:,}", f"{1 - ref / val:.1%}"])
    return table(["session", "agent", "wrote", "by ref", "by value", "saved"], rows, right=(3, 4, 5))


class ProgressLine:
    """ "session 2/3 · agent 4/6 market-context…", rewritten in place; silent when not a TTY."""

    def __init__(self, sessions: int) -> None:
        self.sessions = sessions
        self.live = sys.stdout.isatty()
        self.width = 0

    def __call__(self, plan: SessionPlan, index: int, agent: Agent) -> None:
        if self.live:
            text = f"session {plan.number}/{self.sessions} · agent {index + 1}/{len(TEAM)} {agent.name}…"
            self.width = max(self.width, len(text))
            print(f"\r{text.ljust(self.width)}", end="", flush=True)

    def clear(self) -> None:
        if self.live and self.width:
            print("\r" + " " * self.width + "\r", end="", flush=True)


def belief_rows(client: MemoryClient) -> list[list[str]]:
    rows = []
    for b in sorted(client.beliefs(SUBJECT), key=lambda b: (b.key, b.member)):
        sessions = sorted({p.session_id for p in b.provenance}, key=lambda s: int(s.rsplit("s", 1)[1]))
        flag = clip(f"⚠ was {b.previous.value}", 26) if b.flag and b.previous else ""
        rows.append([b.key, b.member or "-", clip(b.value, 28), f"v{b.version}", flag, ", ".join(sessions)])
    return rows


def shorten(text: str, data_dir: Path) -> str:
    """The temp data dir and sha256 digests shortened, for display."""
    text = text.replace(data_dir.as_uri(), "<data dir>")
    return re.sub(r"\b([0-9a-f]{12})[0-9a-f]{52}\b", r"\1…", text)


def run(data_dir: Path, sessions: int) -> None:
    started = time.perf_counter()
    services = bootstrap(Settings(data_dir=data_dir))
    services.clock = clock = StoryClock()
    worker = local_worker(services)
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        client = MemoryClient(server.url)
        print(f"agentmem demo · {len(TEAM)} agents advise one client (Priya) over {sessions} sessions")
        print(f"local server {server.url}, data dir {data_dir} (deleted at exit)")
        print(f"each agent reads a context slice; its whole prompt is capped at {PROMPT_BUDGET:,} tokens")

        section("Sessions")
        for number in range(1, sessions + 1):
            plan = session_plan(number)
            print(f'{plan.session_id}  {plan.date}  {plan.title:<18} "{clip(plan.message, 68)}"')

        progress = ProgressLine(sessions)
        watch = ChangeWatch(client, MemoryClient(server.url, local_principals="writer"))
        result = run_sessions(
            client, worker.settle, sessions, progress=progress, clock=clock, on_session=watch
        )
        progress.clear()

        section("Prompt tokens per agent: by reference (instruction + context slice) vs by value")
        print("\n".join(token_table(result)))
        over = [s for s in result.steps if s.by_reference > s.budget]
        assert not over, f"prompts over budget: {over}"
        ref = sum(s.by_reference for s in result.steps)
        text_only = sum(s.by_value_no_statements for s in result.steps)
        print(
            "by value: the instruction + every earlier output of this session + a replay of all earlier\n"
            "sessions, bank statements pasted in full. Without the statements the naive chain would total "
            f"{text_only:,}\n(saved {1 - ref / text_only:.0%}); by session, by reference against that "
            "text-only chain:"
        )
        for session_id in dict.fromkeys(s.session_id for s in result.steps):
            steps = [s for s in result.steps if s.session_id == session_id]
            by_ref, by_text = sum(s.by_reference for s in steps), sum(s.by_value_no_statements for s in steps)
            print(f"  {session_id}  {by_ref:>7,} against {by_text:>7,}")
        print("No by-reference prompt exceeded its budget.")

        section("The bank export is stored once, by reference")
        for blob in result.blob_events:
            event = client.list_events(blob["session_id"], after=blob["seq"] - 1, limit=1).items[0]
            assert event.blob is not None

            where = shorten(event.blob.uri, data_dir)
            print(
                f"{blob['session_id']} #{event.seq} {blob['agent']}/{event.kind}: "
                f"{event.blob.bytes:,} bytes at {where}"
            )
            seen = result.contexts[(blob["session_id"], "transaction-analysis")]
            pointer = next(line for line in seen.splitlines() if f"#{event.seq} " in line)
            print(
                "transaction-analysis read this line, then fetched the CSV through the API:\n"
                f"{shorten(pointer, data_dir)}"
            )

        section(f"What is known about Priya after {sessions} sessions (current beliefs)")
        print(
            "\n".join(table(["key", "member", "value", "version", "flag", "sessions"], belief_rows(client)))
        )

        for story in ("priya-s2", "priya-s3"):  # the story's flag, whatever later sessions change
            assert FLAG_IN_COMPLIANCE in result.contexts[(story, "compliance")], story
        last = session_plan(sessions).session_id
        section(f"What the compliance agent read in {last}: the flagged lines")
        markdown = result.contexts[(last, "compliance")]
        print("\n".join(flagged_lines(markdown)))
        review = client.list_events(last, agent="compliance").items[-1].content
        print(f"\nand what it wrote:\n{review}")

        section("What changed under the team: a stale guidance entry and a read since a watermark")
        print("\n".join(watch.report(session_plan(sessions))))

        section("The composer: an authored skill answered from live knowledge, as an analyst")
        show_composer(server.url, worker.settle)
    print(f"\ndone in {time.perf_counter() - started:.1f} s")


def flagged_lines(markdown: str) -> list[str]:
    """The lines carrying a flag or a label, each under the session heading it stands under."""
    out: list[str] = []
    heading = shown = ""
    for line in markdown.splitlines():
        if line.startswith("#"):
            heading = line if line.startswith("### ") else ""
        elif "⚠" in line:
            if heading and heading != shown:
                out.append(heading)
                shown = heading
            out.append(line)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m agentmem.demo", description=__doc__)
    parser.add_argument(
        "--sessions", type=int, default=3, help="sessions to run (3 is the story; more cycle)"
    )
    args = parser.parse_args(argv)
    logging.getLogger("agentmem").setLevel(logging.WARNING)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    data_dir = fresh_data_dir("agentmem-demo")
    try:
        run(data_dir, max(3, args.sessions))
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
