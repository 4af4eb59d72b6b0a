"""`make inspect` (`python -m agentmem.inspector.demo`): the demo's story, kept, and served with the
inspector at `/ui` until Ctrl-C.

The six agents advise Priya over three sessions through the HTTP API (as `make demo` runs them),
the composer's sample catalogue is loaded, and a small skill library is authored (one rewrite puts
two links under review, one entry stays a draft). Each agent's context request and the demo's
composition are saved to `<data dir>/saved-reads.json`, so the Explain page opens any of them in
one click. Each context read is saved with its answer and the story's time, so the page shows it
as it was and lists apart what the agents wrote after it. The log runs on the story's clock
(agentmem.demo.clock), so events and beliefs carry the story's dates. The data dir (default
`.agentmem-inspect`) is rebuilt on each run."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentmem.client import MemoryClient
from agentmem.demo.clock import StoryClock
from agentmem.inspector.saved_reads import (
    SAVED_READS_FILE,
    SavedCompose,
    SavedContextRead,
    SavedRead,
    write_saved_reads,
)
from agentmem.model.context import ContextRequest, ContextResponse
from agentmem.procedural.model import FunctionSpec, GuidanceSpec

MARKER = ".agentmem-inspect-demo"  # only a dir holding this is ever deleted


class RecordingClient(MemoryClient):
    """A MemoryClient that keeps every context read it makes: the request, its answer, and when
    (`now`, the log's clock), so the inspector can show each one as it was."""

    def __init__(self, *args: Any, now: Callable[[], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reads: list[SavedContextRead] = []
        self._now = now

    def context(self, **fields: Any) -> ContextResponse:
        read_at = self._now()
        answer = super().context(**fields)
        request = ContextRequest.model_validate({k: v for k, v in fields.items() if v is not None})
        label = f"{request.session_id} · {request.agent}"
        self.reads.append(
            SavedContextRead(
                label=label,
                request=request,
                watermark=answer.trace.log_watermark_seq,
                read_at=read_at,
                response=answer,
            )
        )
        return answer


def author_skills(client: MemoryClient) -> None:
    """A small library: guidance linking functions, a dependency, a rewrite under review, a draft."""
    functions = [
        FunctionSpec(
            function_id="annuity_factor",
            name="annuity_factor",
            signature="(rate: float, months: int) -> float",
            docstring="Future value of 1 a month for `months` months at a monthly `rate`.",
            implementation="def annuity_factor(rate, months):\n"
            "    return ((1 + rate) ** months - 1) / rate\n",
            status="approved",
            author="planning-team",
        ),
        FunctionSpec(
            function_id="monthly_saving",
            name="monthly_saving",
            signature="(target: int, months: int, annual_return: float) -> int",
            docstring="What to save each month to reach `target` in `months` months.",
            implementation="def monthly_saving(target, months, annual_return):\n"
            "    return round(target / annuity_factor(annual_return / 12, months))\n",
            depends_on=["annuity_factor"],
            status="approved",
            author="planning-team",
        ),
        FunctionSpec(
            function_id="equity_share_limit",
            name="equity_share_limit",
            signature="(risk_tolerance: str) -> float",
            docstring="The equity cap of a risk profile.",
            implementation="LIMITS = {'cautious': 0.4, 'balanced': 0.7, 'aggressive': 0.9}\n"
            "def equity_share_limit(risk_tolerance):\n    return LIMITS[risk_tolerance]\n",
            status="approved",
            author="compliance",
        ),
        FunctionSpec(
            function_id="tax_lot_harvest",
            name="tax_lot_harvest",
            signature="(lots: list) -> list",
            docstring="Lots to sell for a tax loss (a draft nobody approved yet).",
            implementation="def tax_lot_harvest(lots):\n    return [l for l in lots if l['gain'] < 0]\n",
        ),
    ]
    for spec in functions:
        client.put_function(spec)
    guidance = [
        GuidanceSpec(
            guidance_id="plan-a-savings-goal",
            title="Plan a savings goal",
            content="Price each goal with `monthly_saving`; below 24 months assume no return.",
            function_ids=["monthly_saving"],
            status="approved",
            author="planning-team",
        ),
        GuidanceSpec(
            guidance_id="suitability-check",
            title="Check a recommendation's suitability",
            content="Compare the equity share with `equity_share_limit` of the current risk profile;"
            " a changed profile needs a re-profiling questionnaire first.",
            function_ids=["equity_share_limit", "monthly_saving"],
            status="approved",
            author="compliance",
        ),
        GuidanceSpec(
            guidance_id="year-end-tax-review",
            title="Year-end tax review (draft)",
            content="Harvest losses with `tax_lot_harvest` before December 31.",
            function_ids=["tax_lot_harvest"],
            author="planning-team",
        ),
    ]
    for written in guidance:
        client.put_guidance(written)
    # A rewrite of the implementation puts every link to it under review (invariant 5).
    rewritten = functions[1].model_copy(
        update={"implementation": functions[1].implementation.replace("round(", "math.ceil(")}
    )
    client.put_function(rewritten)


def fresh_dir(path: Path) -> Path:
    if path.exists():
        if not (path / MARKER).exists():
            raise SystemExit(f"{path} exists and is not an inspect demo dir; pass another --data-dir")
        shutil.rmtree(path)
    path.mkdir(parents=True)
    (path / MARKER).write_text("made by python -m agentmem.inspector.demo; deleted on its next run\n")
    return path


def build(server_url: str, worker_catch_up: Any, clock: StoryClock) -> list[SavedRead]:
    """Run the story against `server_url`, whose log runs on `clock`; the reads to save."""
    from agentmem.compose.evaluate import load_dataset
    from agentmem.demo import composer
    from agentmem.demo.__main__ import ProgressLine
    from agentmem.demo.eval_run import sample_folder
    from agentmem.demo.runner import run_sessions

    client = RecordingClient(server_url, now=clock.now)
    progress = ProgressLine(3)
    run_sessions(client, worker_catch_up, 3, progress=progress, clock=clock)
    progress.clear()
    logging.getLogger("agentmem.compose").setLevel(logging.ERROR)
    composer.load(MemoryClient(server_url, local_principals=composer.PUBLISHER_PRINCIPALS))
    author_skills(MemoryClient(server_url, local_principals="writer"))
    question = next(
        q for q in load_dataset(sample_folder() / "golden.jsonl") if q.question_id == composer.QUESTION_ID
    )
    from agentmem.compose.model import ComposeRequest

    compose = SavedCompose(
        label=f"compose · {question.skill_id} as {composer.ANALYST_PRINCIPALS}",
        skill_id=question.skill_id,
        request=ComposeRequest(question=question.question, budget_tokens=composer.BUDGET),
        principals=composer.ANALYST_PRINCIPALS,
    )
    # The story's reads first: what compliance read in the last session, then the composition.
    reads = sorted(
        client.reads, key=lambda r: (r.request.agent != "compliance", r.request.session_id != "priya-s3")
    )
    return [reads[0], compose, *reads[1:]]


@contextlib.contextmanager
def serving(data_dir: Path, port: int) -> Iterator[tuple[str, Any]]:
    """The story written into `data_dir` (a fresh dir), its saved reads beside it, served with the
    inspector on `port`: yields the server's URL and its projector worker (not started)."""
    from agentmem.api.app import build_resolver
    from agentmem.entrypoints.cli import local_worker
    from agentmem.entrypoints.server import LocalServer
    from agentmem.inspector.serve import local_inspector
    from agentmem.settings import Settings
    from agentmem.wiring import bootstrap

    services = bootstrap(Settings(data_dir=data_dir))
    services.clock = clock = StoryClock()  # before the first append: the log's clock is fixed then
    worker = local_worker(services)
    server = LocalServer(
        lambda: build_resolver(services),
        port=port,
        mounts=local_inspector(lambda: build_resolver(services), data_dir, None),
    )
    with server:
        print(f"running the demo's three sessions into {data_dir} …", flush=True)
        write_saved_reads(data_dir / SAVED_READS_FILE, build(server.url, worker.settle, clock))
        yield server.url, worker


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m agentmem.inspector.demo", description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=Path(".agentmem-inspect"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("AGENTMEM_PORT", "8787")))
    args = parser.parse_args(argv)
    logging.getLogger("agentmem").setLevel(logging.WARNING)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    with serving(fresh_dir(args.data_dir), args.port) as (url, worker):
        worker.start()
        print(
            f"\nmemory inspector: {url}/ui/\n"
            f"  Priya's beliefs:      {url}/ui/subjects/priya\n"
            f"  what compliance read: {url}/ui/explain?saved=0\n"
            f"  what the composer left out: {url}/ui/explain?saved=1\n"
            "Ctrl-C stops it (the data stays in the data dir; `agentmem serve --data-dir` serves it again).",
            flush=True,
        )
        try:
            with contextlib.suppress(KeyboardInterrupt):
                while True:  # the server runs in its own thread; this one waits for Ctrl-C
                    time.sleep(3600)
        finally:
            worker.stop()


if __name__ == "__main__":
    main()
    sys.exit(0)
