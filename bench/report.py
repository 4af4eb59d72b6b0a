"""What every benchmark script shares: nearest-rank percentiles, bars, aligned tables."""

from __future__ import annotations

from typing import Any


def percentile(sorted_values: list[float], p: float) -> float:
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
