"""Append benchmark: what one durable append costs, and what the write handler costs to import.

    .venv/bin/python bench/append.py [--quick]

(a) appends/s, p50 and p99 on the local backend (SQLite WAL), for 1 and 8 concurrent writers on
    one session, in-process (`EpisodicService.append`) and over HTTP (`MemoryClient` against
    `LocalServer`), with `sqlite_synchronous` NORMAL (the default) and FULL (fsync at every commit).
    Every scenario gets a fresh data dir under the system temp dir and ends with a gap-free check.
(b) the import of `functions/write/handler.py` (aws backend, dummy credentials, nothing calls
    AWS) against `boto3` + Powertools `APIGatewayRestResolver` + `pydantic` alone, each in fresh
    subprocesses, median of several runs, plus which heavy modules the handler drags in.

Prints a table and PASS/FAIL per bar, writes bench/results/append.json, and always exits 0."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from report import bar, percentile, print_table

from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.entrypoints.server import LocalServer
from agentmem.model.events import AppendEventRequest, AppendOutcome, EventDraft
from agentmem.ports.log import EventLog
from agentmem.settings import Settings
from agentmem.wiring import bootstrap

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "append.json"
HANDLER_DIR = ROOT / "functions" / "write"
SESSION = "bench-session"
WARMUP_PER_WRITER = 10

# Bars.
INPROC_P50_MS_MAX = 1.0
INPROC_RATE_MIN = 1000.0
IMPORT_RATIO_MAX = 1.5
FORBIDDEN_MODULES = ("tiktoken", "opensearchpy", "onnxruntime")
HEAVY_MODULES = (
    *FORBIDDEN_MODULES,
    "numpy",
    "torch",
    "tokenizers",
    "sentence_transformers",
    "fastembed",
    "aws_xray_sdk",
    "moto",
    "requests",
    "sqlite3",
    "boto3",
    "botocore",
    "pydantic",
    "pydantic_settings",
    "aws_lambda_powertools",
    "urllib3",
)


# -- (a) appends -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AppendResult:
    mode: str  # "in-process" | "http"
    writers: int
    synchronous: str
    appends: int
    seconds: float
    appends_per_s: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    fsync_p50_ms: float  # a bare fsync on the same disk, measured just before the scenario
    stopped_by_budget: bool


def sample_request(writer: int, n: int) -> AppendEventRequest:
    return AppendEventRequest(
        subject_id="bench-subject",
        round=n % 50,
        agent=f"agent-{writer}",
        kind="analysis",
        content={
            "summary": f"writer {writer} finding {n}: spending is steady, rent 2,150 USD/month",
            "confidence": 0.8,
            "tags": ["budget", "monthly"],
        },
    )


def run_threads(
    writers: int, per_writer: int, call: Callable[[int, int], None], budget_seconds: float
) -> tuple[float, list[float]]:
    """Run `call(writer, n)` up to per_writer times on each of `writers` threads, started together;
    a writer stops early once `budget_seconds` have passed. Returns the wall time and every call's
    latency in seconds."""
    barrier = threading.Barrier(writers + 1)
    latencies: list[list[float]] = [[] for _ in range(writers)]
    errors: list[BaseException] = []

    def work(writer: int) -> None:
        try:
            for n in range(WARMUP_PER_WRITER):  # connection set-up, first statements
                call(writer, -1 - n)
            barrier.wait()
            mine = latencies[writer]
            deadline = time.perf_counter() + budget_seconds
            for n in range(per_writer):
                if time.perf_counter() > deadline:
                    break
                start = time.perf_counter()
                call(writer, n)
                mine.append(time.perf_counter() - start)
        except BaseException as exc:
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=work, args=(w,), name=f"bench-writer-{w}") for w in range(writers)]
    for thread in threads:
        thread.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    if errors:
        raise errors[0]
    return wall, sorted(x for per in latencies for x in per)


def run_append_scenario(
    mode: str, writers: int, synchronous: str, appends: int, budget_seconds: float
) -> AppendResult:
    per_writer = max(1, appends // writers)
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-") as tmp:
        # fsync latency of this disk right now: on shared or virtual disks it drifts by 10-40x.
        fsync_ms = percentile(fsync_latencies(Path(tmp), 50), 50) * 1e3
        services = bootstrap(Settings(data_dir=Path(tmp), sqlite_synchronous=synchronous))
        if mode == "in-process":
            requests = {w: [sample_request(w, n) for n in range(per_writer)] for w in range(writers)}
            warm = {w: sample_request(w, 0) for w in range(writers)}

            def call(writer: int, n: int) -> None:
                if n < 0:
                    services.episodic.append(f"{SESSION}-warmup", warm[writer])
                else:
                    services.episodic.append(SESSION, requests[writer][n])

            wall, lat = run_threads(writers, per_writer, call, budget_seconds)
        else:
            with LocalServer(lambda: build_resolver(services), port=0, pool_size=max(16, writers)) as server:
                clients = [MemoryClient(server.url) for _ in range(writers)]

                def call(writer: int, n: int) -> None:
                    body = sample_request(writer, max(n, 0))
                    clients[writer].append_event(
                        SESSION if n >= 0 else f"{SESSION}-warmup",
                        subject_id=body.subject_id,
                        round=body.round,
                        agent=body.agent,
                        kind=body.kind,
                        content=body.content,
                    )

                wall, lat = run_threads(writers, per_writer, call, budget_seconds)
        total = len(lat)
        stored = services.event_log.list_events(SESSION, after=0, limit=total + 10)
        if [e.seq for e in stored] != list(range(1, total + 1)):
            raise AssertionError(f"{mode}/{writers}/{synchronous}: seqs are not 1..{total}")
    return AppendResult(
        mode=mode,
        writers=writers,
        synchronous=synchronous,
        appends=total,
        seconds=round(wall, 4),
        appends_per_s=round(total / wall, 1),
        p50_ms=round(percentile(lat, 50) * 1e3, 3),
        p99_ms=round(percentile(lat, 99) * 1e3, 3),
        max_ms=round(lat[-1] * 1e3, 3),
        fsync_p50_ms=round(fsync_ms, 3),
        stopped_by_budget=total < per_writer * writers,
    )


# -- where the time goes: the commit fsync against the rest -------------------------------------


class TimedLog:
    """An EventLog that times `append` (the BEGIN IMMEDIATE ... COMMIT part of an append)."""

    def __init__(self, inner: EventLog) -> None:
        self._inner = inner
        self.append_seconds: list[float] = []

    def append(self, draft: EventDraft) -> AppendOutcome:
        start = time.perf_counter()
        try:
            return self._inner.append(draft)
        finally:
            self.append_seconds.append(time.perf_counter() - start)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def fsync_latencies(directory: Path, samples: int) -> list[float]:
    path = directory / "fsync-probe"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    out = []
    try:
        for _ in range(samples):
            os.write(fd, b"x" * 512)
            start = time.perf_counter()
            os.fsync(fd)
            out.append(time.perf_counter() - start)
    finally:
        os.close(fd)
    return sorted(out)


def raw_sqlite_commit_latencies(directory: Path, synchronous: str, samples: int) -> list[float]:
    """The floor: one small INSERT per BEGIN IMMEDIATE/COMMIT in a WAL database, no agentmem code."""
    conn = sqlite3.connect(directory / f"raw-{synchronous}.db", isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={synchronous}")
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        out = []
        for i in range(samples):
            start = time.perf_counter()
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO t (body) VALUES (?)", (f"row {i} " * 20,))
            conn.execute("COMMIT")
            out.append(time.perf_counter() - start)
    finally:
        conn.close()
    return sorted(out)


def where_the_time_goes(samples: int) -> dict[str, Any]:
    """Split one in-process append (1 writer) into log write and everything else, FULL and NORMAL,
    next to a bare fsync and a bare SQLite commit on the same file system."""
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-fsync-") as tmp:
        base = Path(tmp)
        fs = fsync_latencies(base, samples)
        report["os_fsync_p50_ms"] = round(percentile(fs, 50) * 1e3, 3)
        report["os_fsync_p99_ms"] = round(percentile(fs, 99) * 1e3, 3)
        for sync in ("FULL", "NORMAL"):
            raw = raw_sqlite_commit_latencies(base, sync, samples)
            report[f"raw_sqlite_commit_{sync}_p50_ms"] = round(percentile(raw, 50) * 1e3, 3)
            data_dir = base / f"agentmem-{sync}"
            settings = Settings(data_dir=data_dir, sqlite_synchronous=sync)
            plain = bootstrap(settings)
            timed = TimedLog(plain.event_log)
            services = bootstrap(settings, event_log=timed, blob_store=plain.blobs)
            reqs = [sample_request(0, n) for n in range(samples + WARMUP_PER_WRITER)]
            totals = []
            for n, req in enumerate(reqs):
                start = time.perf_counter()
                services.episodic.append(SESSION, req)
                if n >= WARMUP_PER_WRITER:
                    totals.append(time.perf_counter() - start)
            log_part = sorted(timed.append_seconds[WARMUP_PER_WRITER:])
            overhead = sorted(
                t - s for t, s in zip(totals, timed.append_seconds[WARMUP_PER_WRITER:], strict=True)
            )
            report[f"append_{sync}_p50_ms"] = round(percentile(sorted(totals), 50) * 1e3, 3)
            report[f"append_{sync}_log_write_p50_ms"] = round(percentile(log_part, 50) * 1e3, 3)
            report[f"append_{sync}_service_overhead_p50_ms"] = round(percentile(overhead, 50) * 1e3, 3)
        report["fsync_share_of_FULL_append"] = round(
            (report["append_FULL_p50_ms"] - report["append_NORMAL_p50_ms"]) / report["append_FULL_p50_ms"], 3
        )
    return report


# -- (b) import time -------------------------------------------------------------------------------

PROBE = """
import json, sys, time
sys.path.insert(0, {path!r})
start = time.perf_counter()
{body}
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "modules": sorted({{m.split(".")[0] for m in sys.modules}})}}))
"""

BASELINE_BODY = """
import boto3
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
import pydantic
"""
# What any Lambda pays before its own code when it uses Powertools Tracer (the X-Ray SDK) and
# builds the two clients the log needs: the literal bar's baseline leaves both out.
FLOOR_BODY = (
    BASELINE_BODY
    + """
import aws_xray_sdk.core
boto3.client("dynamodb")
boto3.client("s3")
"""
)
HANDLER_BODY = "import handler"
# Cumulative steps from the baseline to the handler, to show what each part of it adds.
STEPS = {
    "+ observability (Powertools Logger, Tracer, Metrics)": "import agentmem.entrypoints.observability",
    "+ agentmem.api.app (resolver with validation, routes, models)": "import agentmem.api.app",
    "+ bootstrap() (adapters, boto3 clients)": "from agentmem.wiring import bootstrap\nbootstrap()",
}


def probe_env(tmp: Path, backend: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTMEM_", "AWS_", "POWERTOOLS_"))}
    env.update(
        {
            "AGENTMEM_BACKEND": backend,
            "AGENTMEM_AWS_REGION": "us-east-1",
            "AGENTMEM_DATA_DIR": str(tmp / "data"),
            # Dummy credentials and no config files: boto3 builds its clients and never looks further.
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_CONFIG_FILE": str(tmp / "no-aws-config"),
            "AWS_SHARED_CREDENTIALS_FILE": str(tmp / "no-aws-credentials"),
            "AWS_EC2_METADATA_DISABLED": "true",
            "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
            "POWERTOOLS_TRACE_DISABLED": "1",
            "POWERTOOLS_METRICS_NAMESPACE": "agentmem",
            "POWERTOOLS_LOG_LEVEL": "WARNING",
            "PYTHONDONTWRITEBYTECODE": "0",
        }
    )
    return env


def run_probe(body: str, env: dict[str, str], *, importtime: bool = False) -> dict[str, Any]:
    args = [sys.executable, *(["-X", "importtime"] if importtime else []), "-c"]
    args.append(PROBE.format(path=str(HANDLER_DIR), body=body))
    proc = subprocess.run(args, env=env, capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"import probe failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    if importtime:
        result["importtime"] = proc.stderr
    return result


def self_time_by_package(importtime_stderr: str, top: int = 8) -> list[tuple[str, float]]:
    """Sum `-X importtime` self times per top-level package, in ms, largest first."""
    totals: dict[str, float] = {}
    for line in importtime_stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _cumulative, name = line.split(":", 1)[1].split("|")
        package = name.strip().split(".")[0]
        totals[package] = totals.get(package, 0.0) + int(self_us) / 1000
    return sorted(((k, round(v, 1)) for k, v in totals.items()), key=lambda kv: -kv[1])[:top]


def aws_adapters_present() -> bool:
    from importlib.util import find_spec

    return all(
        find_spec(name) is not None
        for name in ("agentmem.adapters.aws.dynamodb_log", "agentmem.adapters.aws.s3_blobs")
    )


def measure_imports(runs: int) -> dict[str, Any]:
    backend = "aws" if aws_adapters_present() else "local"
    probes = {"handler": HANDLER_BODY, "baseline": BASELINE_BODY, "floor": FLOOR_BODY}
    body = BASELINE_BODY
    for name, step in STEPS.items():
        body += step + "\n"
        probes[name] = body
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-import-") as tmp:
        env = probe_env(Path(tmp), backend)
        for probe in probes.values():  # warm the page cache and the .pyc files
            run_probe(probe, env)
        seconds: dict[str, list[float]] = {name: [] for name in probes}
        modules: list[str] = []
        for _ in range(runs):  # interleaved, so drift hits every probe alike
            for name, probe in probes.items():
                result = run_probe(probe, env)
                seconds[name].append(result["seconds"])
                if name == "handler":
                    modules = result["modules"]
        timed = run_probe(HANDLER_BODY, env, importtime=True)
    median = {name: statistics.median(values) for name, values in seconds.items()}
    return {
        "backend": backend,
        "note": (
            "aws backend with dummy credentials: boto3 clients are built, nothing calls AWS"
            if backend == "aws"
            else "FALLBACK: agentmem.adapters.aws.{dynamodb_log,s3_blobs} missing, handler imported "
            "with AGENTMEM_BACKEND=local over a temp data dir"
        ),
        "runs": runs,
        "handler_ms": round(median["handler"] * 1e3, 1),
        "baseline_ms": round(median["baseline"] * 1e3, 1),
        "ratio": round(median["handler"] / median["baseline"], 3),
        "floor_ms": round(median["floor"] * 1e3, 1),
        "ratio_vs_floor": round(median["handler"] / median["floor"], 3),
        "steps_ms": {name: round(median[name] * 1e3, 1) for name in STEPS},
        "all_runs_ms": {name: [round(v * 1e3, 1) for v in values] for name, values in seconds.items()},
        "heavy_modules_loaded": [m for m in HEAVY_MODULES if m in modules],
        "forbidden_modules_loaded": [m for m in FORBIDDEN_MODULES if m in modules],
        "top_level_modules_loaded": len(modules),
        "self_time_by_package_ms": self_time_by_package(timed["importtime"]),
    }


# -- report ----------------------------------------------------------------------------------------


def temp_fs() -> str:
    tmp = tempfile.gettempdir()
    try:
        out = subprocess.run(
            ["df", "-T", tmp], capture_output=True, text=True, check=False
        ).stdout.splitlines()
        return f"{tmp} ({out[-1].split()[1]})" if len(out) > 1 else tmp
    except OSError:
        return tmp


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer appends and import runs (a smoke run)")
    args = parser.parse_args()
    appends = 300 if args.quick else 2000
    budget = 5.0 if args.quick else 30.0
    import_runs = 3 if args.quick else 7

    import logging

    logging.getLogger("agentmem").setLevel(logging.WARNING)

    print(
        f"agentmem append bench ({'quick' if args.quick else 'full'}): "
        f"{appends} appends per scenario, at most {budget:.0f} s each"
    )
    print(f"python {platform.python_version()}, sqlite {sqlite3.sqlite_version}, {os.cpu_count()} CPUs,")
    print(f"data dirs under {temp_fs()}\n")

    results: list[AppendResult] = []
    for synchronous in ("FULL", "NORMAL"):
        for mode in ("in-process", "http"):
            for writers in (1, 8):
                results.append(run_append_scenario(mode, writers, synchronous, appends, budget))
    print("(a) appends on the local backend, one session, fresh data dir per row")
    print_table(
        ["mode", "writers", "synchronous", "appends", "appends/s", "p50 ms", "p99 ms", "max ms", "fsync ms"],
        [
            [
                r.mode,
                str(r.writers),
                r.synchronous,
                str(r.appends),
                f"{r.appends_per_s:,.0f}",
                f"{r.p50_ms:.3f}",
                f"{r.p99_ms:.3f}",
                f"{r.max_ms:.1f}",
                f"{r.fsync_p50_ms:.3f}",
            ]
            for r in results
        ],
    )

    print(
        "fsync ms: a bare fsync on the same disk just before the row. Fewer appends than asked: the\n"
        f"row hit its {budget:.0f} s budget."
    )

    def pick(mode: str, writers: int, sync: str) -> AppendResult:
        return next(r for r in results if (r.mode, r.writers, r.synchronous) == (mode, writers, sync))

    # The bars judge the shipped default; the other mode is reported beside it for information.
    default_mode = Settings().sqlite_synchronous
    other_mode = "FULL" if default_mode == "NORMAL" else "NORMAL"
    shipped, other = pick("in-process", 1, default_mode), pick("in-process", 1, other_mode)
    bars = {
        f"inproc_append_p50_ms_1_writer_{default_mode}": bar(shipped.p50_ms, INPROC_P50_MS_MAX, "<=", "ms"),
        f"inproc_appends_per_s_1_writer_{default_mode}": bar(
            shipped.appends_per_s, INPROC_RATE_MIN, ">=", "appends/s"
        ),
    }
    info_bars = {
        f"inproc_append_p50_ms_1_writer_{other_mode}": bar(other.p50_ms, INPROC_P50_MS_MAX, "<=", "ms"),
        f"inproc_appends_per_s_1_writer_{other_mode}": bar(
            other.appends_per_s, INPROC_RATE_MIN, ">=", "appends/s"
        ),
    }

    # Measured on every run (fsync latency on shared disks drifts): where an append's time goes.
    breakdown = where_the_time_goes(100 if args.quick else 300)
    print("\nwhere the time goes (in-process, 1 writer, p50 ms)")
    labels = [
        ("os.fsync of 512 bytes (same file system)", "os_fsync_p50_ms"),
        ("bare SQLite WAL commit, synchronous=FULL", "raw_sqlite_commit_FULL_p50_ms"),
        ("bare SQLite WAL commit, synchronous=NORMAL", "raw_sqlite_commit_NORMAL_p50_ms"),
        ("EpisodicService.append, FULL", "append_FULL_p50_ms"),
        ("  of which log write (BEGIN..COMMIT)", "append_FULL_log_write_p50_ms"),
        ("  of which service (hash, draft, ...)", "append_FULL_service_overhead_p50_ms"),
        ("EpisodicService.append, NORMAL", "append_NORMAL_p50_ms"),
        ("  of which log write (BEGIN..COMMIT)", "append_NORMAL_log_write_p50_ms"),
        ("  of which service (hash, draft, ...)", "append_NORMAL_service_overhead_p50_ms"),
    ]
    print_table(["measure", "p50 ms"], [[label, f"{breakdown[key]:.3f}"] for label, key in labels])
    share = breakdown["fsync_share_of_FULL_append"]
    print(f"share of the FULL append p50 that NORMAL saves (the commit fsync): {share:.0%}")

    imports = measure_imports(import_runs)
    bars["handler_import_vs_baseline"] = bar(imports["ratio"], IMPORT_RATIO_MAX, "<=", "x")
    bars["handler_imports_no_forbidden_modules"] = {
        "value": imports["forbidden_modules_loaded"],
        "limit": [],
        "op": "==",
        "unit": "modules",
        "pass": not imports["forbidden_modules_loaded"],
    }
    print(f"\n(b) import in a fresh subprocess, median of {imports['runs']} runs ({imports['note']})")
    print_table(
        ["import", "ms"],
        [
            ["boto3 + APIGatewayRestResolver + pydantic (baseline)", f"{imports['baseline_ms']:.1f}"],
            *[[f"  {name}", f"{ms:.1f}"] for name, ms in imports["steps_ms"].items()],
            ["functions/write/handler.py", f"{imports['handler_ms']:.1f}"],
            ["baseline + X-Ray SDK + dynamodb and s3 clients (floor)", f"{imports['floor_ms']:.1f}"],
        ],
    )
    print(
        f"ratio handler/baseline: {imports['ratio']:.2f}x   handler/floor: {imports['ratio_vs_floor']:.2f}x"
    )
    print(
        f"heavy modules after importing the handler: {', '.join(imports['heavy_modules_loaded']) or 'none'}"
    )
    print(f"forbidden (tiktoken, opensearchpy, onnxruntime): {imports['forbidden_modules_loaded'] or 'none'}")
    top = ", ".join(f"{name} {ms:.0f}" for name, ms in imports["self_time_by_package_ms"])
    print(f"handler import self time by package (ms, -X importtime): {top}")

    print("\nbars")
    for name, b in {**bars, **{f"(info) {k}": v for k, v in info_bars.items()}}.items():
        verdict = "PASS" if b["pass"] else "FAIL"
        print(f"  {verdict}  {name}: {b['value']} {b['op']} {b['limit']} {b['unit']}")

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "meta": {
            "quick": args.quick,
            "appends_per_scenario": appends,
            "scenario_budget_seconds": budget,
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "cpus": os.cpu_count(),
            "temp_dir": temp_fs(),
            "platform": platform.platform(),
            "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
        "append": [asdict(r) for r in results],
        "where_the_time_goes": breakdown,
        "import": imports,
        "bars": bars,
        "info_bars": info_bars,
    }
    RESULTS.write_text(json.dumps(document, indent=2) + "\n")
    print(f"\nwrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
