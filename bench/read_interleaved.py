"""Context reads at scale, two code trees against each other, one read each in turn.

    .venv/bin/python bench/read_interleaved.py --data /tmp/scale [--reads 80] TREE_A TREE_B

Each TREE is a checkout's `layers/core/python`. The first run fills `--data` the way
`conversations.py --scale-only --scale-fill index` does (10,000 beliefs, 50,000 passages of one
subject, seeded); later runs reuse it. Each tree then serves reads in a process of its own, and
the reads alternate between them (which one goes first alternates too), so the shared machine's
load falls on both alike: the medians compare the code, not the moment. Prints p50 / p90 and
CPU per read for each, and how many responses were byte-identical to the first tree's."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

SUBJECT = "scale-subject"
SOURCES = ["episodic", "semantic", "history"]

SERVE = """
import json, sys, time
from pathlib import Path
from agentmem.model.context import ContextRequest
from agentmem.settings import Settings
from agentmem.wiring import bootstrap
data, subject, sources = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
services = bootstrap(Settings(data_dir=data))
questions = json.loads((data / "questions.json").read_text())
def read(query):
    body = {"subject_id": subject, "session_id": "scale-reader", "agent": "reader", "query": query,
            "budget_tokens": 2000, "include": sources}
    return services.context.build(ContextRequest.model_validate(body))
read(questions[0])
print("ready", flush=True)
for line in sys.stdin:
    start, cpu = time.perf_counter(), time.process_time()
    out = read(questions[int(line) % len(questions)]).model_dump_json()
    print(json.dumps([time.perf_counter() - start, time.process_time() - cpu, out]), flush=True)
"""


def fill(data: Path, seed: int) -> None:
    from conversation_scale import index_passages, populate

    from agentmem.settings import Settings
    from agentmem.wiring import bootstrap

    services = bootstrap(Settings(data_dir=data))
    questions, _ = populate(services, 10_000, 50_000, seed)
    index_passages(services, seed)
    (data / "questions.json").write_text(json.dumps(questions))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs=2, type=Path)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--reads", type=int, default=80)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if not (args.data / "questions.json").exists():
        args.data.mkdir(parents=True, exist_ok=True)
        print(f"filling {args.data} (about a minute)", flush=True)
        fill(args.data, args.seed)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SERVE, str(args.data), SUBJECT, json.dumps(SOURCES)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(tree)),
        )
        for tree in args.trees
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    samples: list[list[tuple[float, float, str]]] = [[], []]
    for n in range(args.reads):
        for i in (0, 1) if n % 2 == 0 else (1, 0):
            proc = procs[i]
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(f"{n}\n")
            proc.stdin.flush()
            wall, cpu, body = json.loads(proc.stdout.readline())
            samples[i].append((wall, cpu, body))
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    for tree, rows in zip(args.trees, samples, strict=True):
        wall = sorted(r[0] for r in rows)
        p50, p90 = statistics.median(wall) * 1e3, wall[int(0.9 * len(wall))] * 1e3
        cpu = statistics.median(r[1] for r in rows) * 1e3
        print(f"{tree}: p50 {p50:.1f} ms, p90 {p90:.1f} ms, cpu p50 {cpu:.1f} ms")
    same = sum(a[2] == b[2] for a, b in zip(*samples, strict=True))
    print(f"identical responses: {same}/{args.reads}; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
