"""Load benchmark for `agentmem serve`: the uvicorn server against the stdlib baseline it replaced.

    .venv/bin/python bench/load.py [--quick]

Loopback only (127.0.0.1), bounded in count and time: a hard limit (--time-limit, 600 s) ends the
run whatever happens. Each server runs in its own subprocess over the same prepared data dir (one
session of --events events), and takes, in turn:

(a) --connections simultaneous connections, one `GET /v1/health` each;
(b) --reads simultaneous `POST /v1/context` on the big session;
(c) --half-sent connections that send headers declaring 100 body bytes and send 10, then stall;
    while they hang, a fresh health check is timed and the server's threads are counted; then
    each one is watched until --read-timeout + 5 s for an answer.

Every request is given --answer-timeout seconds. Reported per scenario: answered/total (any HTTP
status counts as answered; resets and silence do not), the statuses, p50/p99/max latency, peak
server threads, and the server's peak RSS (VmHWM). Prints a table, writes bench/results/load.json,
and always exits 0."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from report import Latency, print_table

from agentmem.model.events import AppendEventRequest
from agentmem.settings import Settings
from agentmem.wiring import bootstrap

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "load.json"
HOST = "127.0.0.1"  # never anything else
SESSION = "big-session"
KINDS = ("stdlib", "uvicorn")


@dataclass
class Outcome:
    status: int | None
    error: str | None
    seconds: float


@dataclass
class Scenario:
    name: str
    total: int
    outcomes: list[Outcome] = field(default_factory=list)
    peak_threads: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        answered = [o for o in self.outcomes if o.status is not None]
        kinds = Counter(str(o.status) if o.status is not None else (o.error or "?") for o in self.outcomes)
        latency = Latency.of([o.seconds for o in answered]) if answered else None
        return {
            "scenario": self.name,
            "answered": len(answered),
            "total": self.total,
            "outcomes": dict(sorted(kinds.items())),
            "latency": asdict(latency) if latency else None,
            "peak_threads": self.peak_threads,
            **self.extra,
        }


def proc_status(pid: int) -> dict[str, int]:
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("Threads", "VmHWM", "VmRSS"):
            fields[name] = int(value.split()[0])
    return fields


async def read_answer(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    length = next(
        (int(v) for k, _, v in (x.partition(":") for x in lines) if k.lower() == "content-length"), 0
    )
    await reader.readexactly(length)
    return int(lines[0].split()[1])


async def one_request(port: int, payload: bytes, timeout: float) -> Outcome:
    started = time.monotonic()
    writer: asyncio.StreamWriter | None = None
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(HOST, port)
            writer.write(payload)
            await writer.drain()
            status = await read_answer(reader)
        return Outcome(status, None, time.monotonic() - started)
    except TimeoutError:
        return Outcome(None, "no answer", time.monotonic() - started)
    except (OSError, asyncio.IncompleteReadError) as exc:
        return Outcome(None, type(exc).__name__, time.monotonic() - started)
    finally:
        if writer is not None:
            writer.close()


def request(method: str, path: str, body: bytes = b"", *headers: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", "Connection: close", *headers]
    if body or method == "POST":
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


HEALTH = request("GET", "/v1/health")
CONTEXT = request(
    "POST",
    "/v1/context",
    json.dumps(
        {
            "subject_id": "priya",
            "session_id": SESSION,
            "agent": "planner",
            "query": "what did the analyst find?",
        }
    ).encode(),
)


async def sample_threads(pid: int, scenario: Scenario, stop: asyncio.Event) -> None:
    while not stop.is_set():
        scenario.peak_threads = max(scenario.peak_threads, proc_status(pid)["Threads"])
        await asyncio.sleep(0.1)


async def burst(name: str, port: int, pid: int, payload: bytes, count: int, timeout: float) -> Scenario:
    scenario = Scenario(name, count)
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_threads(pid, scenario, stop))
    scenario.outcomes = list(
        await asyncio.gather(*(one_request(port, payload, timeout) for _ in range(count)))
    )
    stop.set()
    await sampler
    return scenario


async def half_sent(port: int, pid: int, count: int, read_timeout: float) -> Scenario:
    scenario = Scenario(f"{count} half-sent bodies", count)
    stalled = request("POST", "/v1/sessions/s/events").replace(b"Content-Length: 0", b"Content-Length: 100")
    started = time.monotonic()

    async def stall() -> Outcome:
        writer: asyncio.StreamWriter | None = None
        try:
            async with asyncio.timeout(read_timeout + 5):
                reader, writer = await asyncio.open_connection(HOST, port)
                writer.write(stalled + b'{"subject"')
                await writer.drain()
                status = await read_answer(reader)
            return Outcome(status, None, time.monotonic() - started)
        except TimeoutError:
            return Outcome(None, "still open", time.monotonic() - started)
        except (OSError, asyncio.IncompleteReadError) as exc:
            return Outcome(None, type(exc).__name__, time.monotonic() - started)
        finally:
            if writer is not None:
                writer.close()

    stalls = [asyncio.create_task(stall()) for _ in range(count)]
    await asyncio.sleep(min(1.0, read_timeout / 2))
    scenario.peak_threads = proc_status(pid)["Threads"]
    probe = await one_request(port, HEALTH, 10)
    scenario.extra["health_while_stalled"] = asdict(probe)
    scenario.outcomes = list(await asyncio.gather(*stalls))
    return scenario


async def sequential(port: int, pid: int, payload: bytes, name: str, count: int, timeout: float) -> Scenario:
    """The baseline inside each run: the same request, one at a time, after a warm-up."""
    scenario = Scenario(name, count)
    await one_request(port, payload, timeout)
    scenario.outcomes = [await one_request(port, payload, timeout) for _ in range(count)]
    scenario.peak_threads = proc_status(pid)["Threads"]
    return scenario


async def run_scenarios(port: int, pid: int, args: argparse.Namespace) -> list[Scenario]:
    return [
        await sequential(port, pid, HEALTH, "health, one at a time", 20, args.answer_timeout),
        await sequential(port, pid, CONTEXT, "context, one at a time", 5, args.answer_timeout),
        await burst(
            f"{args.connections} health at once", port, pid, HEALTH, args.connections, args.answer_timeout
        ),
        await burst(
            f"{args.reads} context reads at once", port, pid, CONTEXT, args.reads, args.answer_timeout
        ),
        await half_sent(port, pid, args.half_sent, args.read_timeout),
    ]


def serve(kind: str, data_dir: Path, read_timeout: float) -> None:
    """Child process: serve `data_dir` on a free loopback port, print it, run until SIGTERM."""
    from agentmem.api.app import build_resolver
    from agentmem.entrypoints.server import LocalServer, ServerLimits

    services = bootstrap(Settings(data_dir=data_dir))
    factory = lambda: build_resolver(services)  # noqa: E731
    if kind == "uvicorn":
        server = LocalServer(factory, port=0, limits=ServerLimits(read_timeout_seconds=read_timeout))
        print(server.url.rsplit(":", 1)[1], flush=True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        server.serve_forever()
        return
    from stdlib_server import stdlib_server

    httpd = stdlib_server(factory, 0, Settings().max_request_bytes * 2)
    print(httpd.server_address[1], flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    httpd.serve_forever()


def prepare(data_dir: Path, events: int) -> None:
    services = bootstrap(Settings(data_dir=data_dir))
    for n in range(events):
        agent = ("analyst", "planner", "writer")[n % 3]
        text = f"{agent} note {n}: the quarterly figures for region {n % 17} moved by {n % 9} percent"
        request = AppendEventRequest(
            subject_id="priya", round=n // 10, agent=agent, kind="note", content=text
        )
        services.episodic.append(SESSION, request)


def measure(kind: str, data_dir: Path, args: argparse.Namespace) -> dict[str, Any]:
    stderr_path = data_dir.parent / f"{kind}.stderr"
    with stderr_path.open("w") as stderr:
        child = subprocess.Popen(
            [sys.executable, __file__, "--serve", kind, "--data-dir", str(data_dir),
             "--read-timeout", str(args.read_timeout)],
            stdout=subprocess.PIPE, stderr=stderr, text=True,
            env={**os.environ, "POWERTOOLS_LOG_LEVEL": "ERROR"},
        )  # fmt: skip
        try:
            assert child.stdout is not None
            port = int(child.stdout.readline())
            scenarios = asyncio.run(run_scenarios(port, child.pid, args))
            memory = proc_status(child.pid)
        finally:
            child.send_signal(signal.SIGTERM)
            try:
                child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                child.kill()
    return {
        "server": kind,
        "scenarios": [s.summary() for s in scenarios],
        "peak_rss_mb": memory["VmHWM"] / 1024,
        "tracebacks_logged": stderr_path.read_text().count("Traceback"),
    }


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.0f}" if value < 10 else f"{value:.1f}s"


def report(results: list[dict[str, Any]]) -> None:
    rows = []
    for result in results:
        for s in result["scenarios"]:
            latency = s["latency"] or {}
            outcomes = ", ".join(f"{k}: {v}" for k, v in s["outcomes"].items())
            rows.append(
                [result["server"], s["scenario"], f"{s['answered']}/{s['total']}", outcomes,
                 ms((latency.get("p50_ms") or 0) / 1000 if latency else None),
                 ms((latency.get("p99_ms") or 0) / 1000 if latency else None),
                 ms((latency.get("max_ms") or 0) / 1000 if latency else None),
                 str(s["peak_threads"]), f"{result['peak_rss_mb']:.0f}"]
            )  # fmt: skip
    print_table(
        ["server", "scenario", "answered", "outcomes", "p50 ms", "p99 ms", "max ms", "threads", "RSS MB"],
        rows,
    )
    for result in results:
        stalled = result["scenarios"][-1]["health_while_stalled"]
        answer = stalled["status"] if stalled["status"] is not None else stalled["error"]
        print(
            f"{result['server']}: health during the stall: {answer} in {ms(stalled['seconds'])} ms;"
            f" tracebacks on stderr: {result['tracebacks_logged']}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a tenth of the counts, for a smoke run")
    parser.add_argument("--events", type=int, default=5200)
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--reads", type=int, default=100)
    parser.add_argument("--half-sent", type=int, default=1000)
    parser.add_argument("--read-timeout", type=float, default=2.0, help="the new server's read timeout")
    parser.add_argument("--answer-timeout", type=float, default=60.0, help="each request's patience")
    parser.add_argument("--time-limit", type=int, default=600, help="hard limit for the whole run, s")
    parser.add_argument("--serve", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.data_dir, args.read_timeout)
        return
    if args.quick:
        args.events, args.connections, args.reads, args.half_sent = 520, 100, 10, 100
    signal.alarm(args.time_limit)  # the run stops by itself, whatever hangs
    with tempfile.TemporaryDirectory(prefix="agentmem-load-") as tmp:
        data_dir = Path(tmp) / "data"
        started = time.monotonic()
        prepare(data_dir, args.events)
        print(f"prepared a {args.events}-event session in {time.monotonic() - started:.1f} s", flush=True)
        results = [measure(kind, data_dir, args) for kind in KINDS]
    report(results)
    config = {k: v for k, v in vars(args).items() if k not in ("serve", "data_dir")}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"config": config, "results": results}, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
