"""Cold start of each Lambda function, in the Lambda Python runtime's shape, against a plain baseline.

    .venv/bin/python bench/cold_start.py [--runs 5] [--before REV] [--modes compiled,shipped]
        [--functions baseline,write,read]

Each sample is a fresh interpreter (`python -S`: no site-packages, only the layers on PYTHONPATH)
with the environment the stack gives the function plus the variables the Lambda runtime sets
(bench/lambda_shape.py says how the layers and the environment are made). It times `import handler`
(the init phase: the entry point, Powertools, the composition root) and then the first invocation
with a sample event from events/, against a moto server on 127.0.0.1: boto3 is pointed at it with
AWS_ENDPOINT_URL, so AWS calls are real HTTP requests stubbed only at the network. Functions
without a sample event (erasure, skills, compose) are timed at init only; the projector's init
(`prepare`) needs OpenSearch, so its probe stops after bootstrap(). `write:provisioned` is the write
function initialized as provisioned concurrency initializes it (AWS_LAMBDA_INITIALIZATION_TYPE):
its init is paid before any request, so its first invocation is what the first caller waits for.

The baseline is a handler importing only boto3, Powertools' REST resolver and pydantic (its DynamoDB
client built at init, one put_item per call); `+tracer` adds Powertools Tracer around it. Both run
in the same run, interleaved with the functions. `--before REV` also measures the functions as
they were at git revision REV (layers/core and functions/ from `git archive`), interleaved too.

Mode `compiled` (the default) has the bytecode cached, as a layer carrying .pyc files has. Mode
`shipped` is the layer as deployed: no bytecode (the layer build passes --no-compile, the host's
Python not being the runtime's, and /opt is read-only), so Python compiles every module it imports
at each cold start. `--modes shipped,compiled` measures both.

Figures are from this machine, not from a Lambda. Prints a table, writes bench/results/cold_start.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from append import self_time_by_package
from lambda_shape import (
    ROOT,
    Layers,
    build_layers,
    core_layer,
    runtime_environment,
    stack_environments,
)
from report import environment, print_table

RESULTS = ROOT / "bench" / "results" / "cold_start.json"
EVENTS = ROOT / "events"
TABLE, BUCKET, QUEUE = "agentmem-acme-log", "agentmem-acme-blobs", "agentmem-acme-erasures"
# The sample event each function is first invoked with; None: init only.
FIRST_EVENT: dict[str, str | None] = {
    "baseline": "api_append_event.json",
    "baseline+tracer": "api_append_event.json",
    "write": "api_append_event.json",
    # Initialized ahead of any request, as provisioned concurrency (and SnapStart, before its snapshot) do.
    "write:provisioned": "api_append_event.json",
    "read": "api_openapi.json",
    "erasure": None,
    "skills": None,
    "compose": None,
    "projector": None,
}
TRACE_HEADER = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"

PROBE = r"""
import json, os, sys, time
start, start_cpu = time.perf_counter(), time.process_time()
import handler
imported, imported_cpu = time.perf_counter(), time.process_time()
event_path = os.environ.pop("COLDSTART_EVENT", "")
result = {"import_ms": (imported - start) * 1e3, "import_cpu_ms": (imported_cpu - start_cpu) * 1e3,
          "modules": len(sys.modules), "xray": "aws_xray_sdk.core" in sys.modules}
if event_path:
    class Context:
        function_name = os.environ["AWS_LAMBDA_FUNCTION_NAME"]
        function_version = "$LATEST"
        memory_limit_in_mb = int(os.environ["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"])
        invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:" + function_name
        aws_request_id = "0f6c1a3e-cold-start"
        def get_remaining_time_in_millis(self):
            return 10_000
    with open(event_path) as f:
        event = json.load(f)
    os.environ["_X_AMZN_TRACE_ID"] = os.environ["COLDSTART_TRACE"]  # Lambda sets it per invocation
    for label in ("first", "second"):
        began, began_cpu = time.perf_counter(), time.process_time()
        response = handler.handler(event, Context())
        result[label + "_ms"] = (time.perf_counter() - began) * 1e3
        result[label + "_cpu_ms"] = (time.process_time() - began_cpu) * 1e3
        result["status"] = response.get("statusCode")
    result["xray_after_invoke"] = "aws_xray_sdk.core" in sys.modules
print("COLDSTART " + json.dumps(result))
"""

BASELINE_HANDLER = """
import os
import boto3
import pydantic
from aws_lambda_powertools.event_handler import APIGatewayRestResolver

app = APIGatewayRestResolver()
dynamodb = boto3.client("dynamodb")  # built at init, as Lambda guidance has it


class Draft(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")


@app.post("/v1/sessions/<session_id>/events")
def append(session_id: str):
    Draft.model_validate(app.current_event.json_body)
    dynamodb.put_item(
        TableName=os.environ["AGENTMEM_TABLE_NAME"], Item={"pk": {"S": session_id}, "sk": {"S": "E#1"}}
    )
    return {"seq": 1}, 201
"""
HANDLERS = {
    "baseline": BASELINE_HANDLER + "\nhandler = app.resolve\n",
    "baseline+tracer": BASELINE_HANDLER
    + '\nfrom aws_lambda_powertools import Tracer\ntracer = Tracer(service="baseline")\n'
    + "handler = tracer.capture_lambda_handler(lambda event, context: app.resolve(event, context))\n",
    # stream_handler() would prepare the indexes in OpenSearch, which this machine has none of.
    "projector": "from agentmem.entrypoints.stream import stream_handler\n"
    "from agentmem.wiring import bootstrap\nservices = bootstrap()\n",
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_moto() -> tuple[Any, str, str]:
    """A moto server on loopback holding the stack's table, bucket and erasure queue."""
    import boto3
    from moto.server import ThreadedMotoServer

    from tests.aws_fixtures import create_blob_bucket, create_log_table

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    session = boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    )
    create_log_table(session.client("dynamodb", endpoint_url=endpoint), TABLE)
    create_blob_bucket(session.client("s3", endpoint_url=endpoint), BUCKET)
    queue_url = session.client("sqs", endpoint_url=endpoint).create_queue(QueueName=QUEUE)["QueueUrl"]
    return server, endpoint, queue_url


def export_tree(rev: str, dest: Path) -> Path:
    """layers/core and functions/ as they were at `rev`."""
    dest.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "layers/core", "functions"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def task_roots(tree: Path, dest: Path, names: list[str]) -> dict[str, Path]:
    """Each function's code folder (what LAMBDA_TASK_ROOT holds), without bytecode."""
    roots: dict[str, Path] = {}
    for name in names:
        root = dest / "task" / name
        root.mkdir(parents=True)
        source = HANDLERS.get(name) or (tree / "functions" / stack_function(name) / "handler.py").read_text()
        (root / "handler.py").write_text(source)
        roots[name] = root
    return roots


def stack_function(name: str) -> str:
    """The stack's function a probe runs as: the baselines take the write function's environment."""
    return "write" if name.startswith("baseline") else name.partition(":")[0]


def probe_env(
    name: str, variant: dict[str, Any], mode: str, layers: Layers, shape: dict[str, Any]
) -> dict[str, str]:
    stack_name = stack_function(name)
    function = shape["functions"][stack_name]
    root = variant["roots"][name]
    env = {
        **runtime_environment(stack_name, function["memory"], root, shape["endpoint"]),
        **function["environment"],
        "TIKTOKEN_CACHE_DIR": str(layers.tiktoken),  # /opt/tiktoken in Lambda
        "PYTHONPATH": ":".join(str(p) for p in (root, variant["core"], layers.deps, layers.runtime)),
        "COLDSTART_TRACE": TRACE_HEADER,
    }
    if name.endswith(":provisioned"):
        env["AWS_LAMBDA_INITIALIZATION_TYPE"] = "provisioned-concurrency"
    if variant["label"] == "before":
        env.pop("POWERTOOLS_TRACE_DISABLED", None)  # the stack's change beside the code's, not in REV's stack
    if FIRST_EVENT[name]:
        env["COLDSTART_EVENT"] = str(EVENTS / str(FIRST_EVENT[name]))
    if mode == "compiled":
        env["PYTHONPYCACHEPREFIX"] = str(variant["dir"] / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_probe(env: dict[str, str], *, importtime: bool = False) -> dict[str, Any]:
    argv = [sys.executable, "-S", *(["-X", "importtime"] if importtime else []), "-c", PROBE]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("COLDSTART ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"probe failed ({done.returncode}):\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(lines[-1].removeprefix("COLDSTART "))
    if importtime:
        result["by_package"] = self_time_by_package(done.stderr, top=10)
    return result


def median(samples: list[dict[str, Any]], key: str) -> float | None:
    values = [s[key] for s in samples if key in s]
    return round(statistics.median(values), 1) if values else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5, help="samples per function, variant and mode")
    parser.add_argument("--before", help="a git revision to measure beside the working tree")
    parser.add_argument("--modes", default="compiled", help="comma list of shipped, compiled")
    parser.add_argument("--functions", default=",".join(FIRST_EVENT), help="comma list")
    args = parser.parse_args()
    started = time.perf_counter()
    names = [n for n in FIRST_EVENT if n in args.functions.split(",")]
    modes = [m for m in ("shipped", "compiled") if m in args.modes.split(",")]
    layers = build_layers()
    server, endpoint, queue_url = start_moto()
    try:
        placeholders = {
            "AGENTMEM_TABLE_NAME": TABLE,
            "AGENTMEM_BUCKET_NAME": BUCKET,
            "AGENTMEM_ERASURE_QUEUE_URL": queue_url,
            # Nothing listens there: a connection is refused at once (no probe reaches OpenSearch).
            "AGENTMEM_OPENSEARCH_URL": f"https://127.0.0.1:{free_port()}",
        }
        shape = {"functions": stack_environments(placeholders), "endpoint": endpoint}
        with tempfile.TemporaryDirectory(prefix="agentmem-cold-start-") as tmp:
            variants: dict[str, dict[str, Any]] = {}
            trees = {
                "now": ROOT,
                **({"before": export_tree(args.before, Path(tmp) / "src")} if args.before else {}),
            }
            for label, tree in trees.items():
                out = Path(tmp) / label
                variants[label] = {
                    "label": label,
                    "dir": out,
                    "core": core_layer(tree, out / "core"),
                    "roots": task_roots(tree, out, names),
                }
            cells = [
                (name, label, mode)
                for name in names
                for label in variants
                for mode in modes
                if not (name.startswith("baseline") and label == "before")  # same code in both trees
            ]
            samples: dict[tuple[str, str, str], list[dict[str, Any]]] = {cell: [] for cell in cells}
            for cell in cells:  # warm the page cache, and the bytecode of mode `compiled`
                run_probe(probe_env(cell[0], variants[cell[1]], cell[2], layers, shape))
            for _ in range(args.runs):  # interleaved, so drift on a shared machine hits every cell alike
                for cell in cells:
                    samples[cell].append(
                        run_probe(probe_env(cell[0], variants[cell[1]], cell[2], layers, shape))
                    )
            profiles = {
                label: run_probe(
                    probe_env("write", variants[label], modes[-1], layers, shape), importtime=True
                )
                for label in variants
                if "write" in names
            }
    finally:
        server.stop()
    args.seconds = round(time.perf_counter() - started, 1)
    report(args, cells, samples, profiles)


def report(
    args: argparse.Namespace,
    cells: list[tuple[str, str, str]],
    samples: dict[tuple[str, str, str], list[dict[str, Any]]],
    profiles: dict[str, dict[str, Any]],
) -> None:
    """CPU time is the headline: on a shared machine wall time mostly measures the queue for a core,
    and in Lambda the CPU is what memory buys (a 512 MB function gets about 0.29 of a vCPU)."""
    rows: list[dict[str, Any]] = []
    for name, label, mode in cells:
        cell = samples[(name, label, mode)]
        row: dict[str, Any] = {
            "function": name,
            "tree": label if label == "now" else f"before ({args.before})",
            "mode": mode,
            "status": cell[-1].get("status"),
            "xray_at_init": cell[-1]["xray"],
            "modules_at_init": cell[-1]["modules"],
        }
        for clock, suffix in (("cpu", "_cpu_ms"), ("wall", "_ms")):
            init = median(cell, "import" + suffix) or 0.0
            first = median(cell, "first" + suffix)
            row[f"init_{clock}_ms"] = init
            row[f"first_invoke_{clock}_ms"] = first
            row[f"cold_{clock}_ms"] = round(init + (first or 0.0), 1)
            row[f"warm_invoke_{clock}_ms"] = median(cell, "second" + suffix)
        rows.append(row)
    for row in rows:  # against the baseline of the same mode: what the first caller waits for
        base = next((r for r in rows if r["function"] == "baseline" and r["mode"] == row["mode"]), None)
        row["cold_cpu_vs_baseline"] = round(row["cold_cpu_ms"] / base["cold_cpu_ms"], 2) if base else None

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.0f}"

    def ratio(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    print(f"cold start, median of {args.runs} fresh interpreters each (this machine, not a Lambda)")
    print_table(
        ["function", "tree", "mode", "init cpu", "1st call cpu", "cold cpu", "x baseline", "warm cpu",
         "init wall", "cold wall", "X-Ray at init"],
        [
            [
                r["function"], r["tree"], r["mode"], ms(r["init_cpu_ms"]), ms(r["first_invoke_cpu_ms"]),
                ms(r["cold_cpu_ms"]), ratio(r["cold_cpu_vs_baseline"]), ms(r["warm_invoke_cpu_ms"]),
                ms(r["init_wall_ms"]), ms(r["cold_wall_ms"]), "yes" if r["xray_at_init"] else "no",
            ]
            for r in rows
        ],
    )  # fmt: skip
    print("ms; cold = init + the first invocation (what the first caller waits for); cpu = process time")
    for label, profile in profiles.items():
        top = ", ".join(f"{package} {ms:.0f}" for package, ms in profile["by_package"])
        print(f"write handler import, self time by package (ms, -X importtime, tree {label}): {top}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "environment": environment(args.seconds),
                "runs": args.runs,
                "rows": rows,
                "importtime_write": {k: v["by_package"] for k, v in profiles.items()},
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
