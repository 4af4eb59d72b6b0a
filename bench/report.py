"""What every benchmark script shares: nearest-rank percentiles, bars, aligned tables, the results file."""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

A = TypeVar("A")
T = TypeVar("T")


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return float("nan")
    rank = max(1, round(p / 100 * len(sorted_values) + 0.5))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def bar(value: float, limit: float, op: str, unit: str) -> dict[str, Any]:
    ok = value <= limit if op == "<=" else value >= limit
    return {"value": value, "limit": limit, "op": op, "unit": unit, "pass": ok}


def _is_number(cell: str) -> bool:
    return not cell or cell.replace(".", "", 1).replace(",", "").rstrip("%").lstrip("-+").isdigit()


def print_table(headers: list[str], rows: list[list[str]]) -> None:
    """Columns padded to their widest cell; numeric columns right-aligned."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    numeric = [all(_is_number(r[i]) for r in rows) for i in range(len(headers))]

    def fmt(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if num else c.ljust(w) for c, w, num in zip(cells, widths, numeric, strict=True)
        )

    print(fmt(headers))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print(fmt(row))


@dataclass(frozen=True)
class Latency:
    samples: int
    p50_ms: float
    p99_ms: float
    max_ms: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        ordered = sorted(seconds)
        return cls(
            samples=len(ordered),
            p50_ms=round(percentile(ordered, 50) * 1e3, 3),
            p99_ms=round(percentile(ordered, 99) * 1e3, 3),
            max_ms=round(ordered[-1] * 1e3, 3) if ordered else float("nan"),
        )


def timed_map(call: Callable[[A], T], items: Sequence[A]) -> tuple[list[float], list[T]]:
    """`call` on each item in turn; returns every call's latency in seconds and its result."""
    latencies: list[float] = []
    results: list[T] = []
    for item in items:
        start = time.perf_counter()
        results.append(call(item))
        latencies.append(time.perf_counter() - start)
    return latencies, results


def lat_row(label: str, lat: Latency) -> list[str]:
    return [label, str(lat.samples), f"{lat.p50_ms:.3f}", f"{lat.p99_ms:.3f}", f"{lat.max_ms:.3f}"]


def usable_cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def package_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def environment(run_seconds: float) -> dict[str, Any]:
    """Where and with what a benchmark ran: goes into each result's `meta`."""
    import numpy as np

    return {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "numpy": np.__version__,
        "onnxruntime": package_version("onnxruntime"),
        "cpus": os.cpu_count(),
        "usable_cpus": usable_cpus(),
        "platform": platform.platform(),
        "temp_dir": tempfile.gettempdir(),
        "run_seconds": round(run_seconds, 1),
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def write_results(document: dict[str, Any], out: Path, started: float) -> None:
    """The run's JSON document at `out`, and one line saying where (relative to the repository
    when it is inside it) and how long the whole run took."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    root = Path(__file__).resolve().parent.parent
    shown = out.relative_to(root) if out.resolve().is_relative_to(root) else out
    print(f"\nwrote {shown} in {time.perf_counter() - started:.0f} s")
