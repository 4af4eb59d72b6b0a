"""How a scripted agent reads its context slice: the rendered markdown, line by line.

A real agent would hand the markdown to its model; these stand-ins pick out what they need with
a few patterns, which is also a check that the rendering stays readable."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from agentmem.demo.script import GOALS, SessionPlan

BELIEF_LINE = re.compile(r"^- \*\*(?P<key>[a-z_]+)\*\*:? ?(?P<body>.*)$", re.MULTILINE)
EVENT_LINE = re.compile(
    # The session is named on a line of its own (a change leading the read), else by the heading.
    r"^- \[(?:(?P<session>\S+) )?#(?P<seq>\d+) r\d+ (?P<agent>[^/\]]+)/(?P<kind>[^\]]+)\] ?(?P<body>.*)$",
    re.MULTILINE,
)
CHANGE = re.compile(r"⚠ (?P<note>changed from .+? \([^)]*\) to (?P<now>.+?) \([^)]*\))\.?$")
RISK_LEVELS = ("aggressive", "balanced", "cautious")


def sentence(line: str) -> str:
    """A belief line without its "(vN; stated in ...)" tail and flag."""
    return line.split(" (v", 1)[0].split(" ⚠", 1)[0].strip()


def current(line: str) -> str:
    """What a belief line says now: the "to X" of a flagged change, else its sentence."""
    change = CHANGE.search(line)
    return change.group("now") if change else sentence(line)


@dataclass
class Context:
    """One agent's context slice, as it reads it."""

    markdown: str
    beliefs: dict[str, list[str]] = field(init=False)
    events: list[dict[str, str]] = field(init=False)

    def __post_init__(self) -> None:
        self.beliefs = {}
        for m in BELIEF_LINE.finditer(self.markdown):
            self.beliefs.setdefault(m.group("key"), []).append(m.group("body"))
        self.events = [m.groupdict() for m in EVENT_LINE.finditer(self.markdown)]

    def lines(self, key: str) -> list[str]:
        return self.beliefs.get(key, [])

    def flagged(self) -> list[tuple[str, str]]:
        """(key, "changed from X (S1) to Y (S2)") for each contradicted belief in view."""
        out = []
        for key, lines in sorted(self.beliefs.items()):
            for line in lines:
                change = CHANGE.search(line)
                if change:
                    out.append((key, change.group("note")))
        return out

    def risk(self) -> str | None:
        for line in self.lines("risk_tolerance"):
            now = current(line).lower()
            for level in RISK_LEVELS:
                if level in now:
                    return level
        return None

    def mentions(self, key: str, *words: str) -> bool:
        """True when a current belief under `key` names every one of `words`."""
        return any(all(w in current(line).lower() for w in words) for line in self.lines(key))

    def goals(self, plan: SessionPlan) -> list[str]:
        """GOALS members in view (spotted by keyword), plus those this session adds, in order."""
        seen = " ".join(self.lines("goal")).lower()
        return [m for m, g in GOALS.items() if g.keyword in seen or m in plan.new_goals]

    def output_of(self, agent: str) -> dict[str, Any] | None:
        """The newest JSON output of `agent` in this session's slice, when it is rendered in full."""
        for event in reversed(self.events):
            if event["agent"] == agent and event["body"].startswith("{"):
                try:
                    value = json.loads(event["body"])
                except ValueError:
                    return None
                return value if isinstance(value, dict) else None
        return None

    def number(self, name: str) -> int | None:
        """An integer field `name` in any JSON output in view (the newest wins)."""
        found = re.findall(rf'"{re.escape(name)}": (-?\d+)', self.markdown)
        return int(found[-1]) if found else None
