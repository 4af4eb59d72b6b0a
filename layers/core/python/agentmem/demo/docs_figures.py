"""docs/demo.md's paragraph of figures, read off the demo's stdout and worded from them: what
the paragraph claims (most of the saving comes from the export, by reference costs less from
session N on, the gap grows) is decided by the numbers of the run, so it cannot go stale."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

BENCH_LINK = "[benchmarks.md](benchmarks.md#benchtokenspy-token-economics-and-read-latency)"
BY_SESSION = re.compile(r"^  (?P<session>\S+)\s+(?P<ref>[\d,]+) against\s+(?P<text>[\d,]+)$", re.MULTILINE)
ALL = re.compile(
    r"^all\s+\d+ prompts\s+(?P<ref>[\d,]+)\s+(?P<value>[\d,]+)\s+(?P<saved>[\d.]+%)$", re.MULTILINE
)
TEXT_ONLY = re.compile(r"would total (?P<total>[\d,]+)\s+\(saved (?P<saved>-?\d+%)\)")
EXPORT = re.compile(r"bank CSV, (?P<size>\d+ KB)")


@dataclass(frozen=True)
class SessionCost:
    number: int
    by_reference: int
    text_only: int  # the naive chain with the bank statements left out


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def _match(pattern: re.Pattern[str], output: str) -> re.Match[str]:
    found = pattern.search(output)
    if found is None:
        raise ValueError(f"the demo's output has nothing matching {pattern.pattern!r}")
    return found


def _list(values: list[int]) -> str:
    return " / ".join(f"{v:,}" for v in values)


def comparison(costs: list[SessionCost]) -> str:
    """When by reference costs less than the text-only chain, in words the figures bear out."""
    cheaper = [c.by_reference < c.text_only for c in costs]
    if not any(cheaper):
        return "by reference does not cost less than the text-only chain in any session yet"
    first = cheaper.index(True)
    if all(cheaper[first:]):
        said = "in every session" if first == 0 else f"from session {costs[first].number} on"
        gaps = [c.text_only - c.by_reference for c in costs[first:]]
        grows = len(gaps) > 1 and all(b > a for a, b in itertools.pairwise(gaps))
        return f"by reference costs less {said}" + (", and the gap grows every session" if grows else "")
    sessions = ", ".join(str(c.number) for c, less in zip(costs, cheaper, strict=True) if less)
    return f"by reference costs less only in session(s) {sessions}"


def figures(output: str) -> str:
    """The paragraph, from one run's (normalised) stdout."""
    costs = [
        SessionCost(n, _int(m["ref"]), _int(m["text"]))
        for n, m in enumerate(BY_SESSION.finditer(output), start=1)
    ]
    if not costs:
        raise ValueError("the demo's output has no by-session costs")
    total, text_only, export = _match(ALL, output), _match(TEXT_ONLY, output), _match(EXPORT, output)
    ref, value, text = _int(total["ref"]), _int(total["value"]), _int(text_only["total"])
    # The export's share of what by reference saves: what pasting the statements adds to the chain.
    share = "most of the saving" if value - text > (value - ref) / 2 else "part of the saving"
    return (
        f"With {len(costs)} sessions {share} comes from the {export['size']} export, which the naive "
        f"chain pastes into every later prompt: by reference the run costs {ref:,} tokens against "
        f"{value:,} by value ({total['saved']} saved), and against {text:,} for the chain without "
        f"the statements ({text_only['saved']} saved). Session by session, by reference costs "
        f"{_list([c.by_reference for c in costs])} tokens against {_list([c.text_only for c in costs])} "
        f"for the text-only chain: {comparison(costs)}. {BENCH_LINK} runs the same team for more "
        "sessions."
    )
