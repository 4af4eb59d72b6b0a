"""Sessions and subjects as the pages show them: pure functions from the API's models to what a
template lays out. No markup here, and no escaping either: templates escape every value."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from agentmem.model.beliefs import Belief, Provenance, normalise_value
from agentmem.model.events import Event

PREVIEW_CHARS = 1200


def content_text(event: Event) -> str:
    """The event's inline content as text: strings as they are, JSON pretty-printed."""
    content = event.content
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return json.dumps(content, indent=2, ensure_ascii=False, sort_keys=True)


def clip(text: str, limit: int = PREVIEW_CHARS) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[: limit - 1] + "…", True)


@dataclass(frozen=True)
class Extracted:
    """A belief version an event gave: the one it made (NEW, UPDATE, CONFLICT), or restated (SAME)."""

    key: str
    member: str
    value: str
    version: int
    verdict: str
    current: bool


EventKey = tuple[str, int]  # (session id, seq)


@dataclass(frozen=True)
class EventRow:
    event: Event
    preview: str
    clipped: bool
    extracted: tuple[Extracted, ...] = ()


@dataclass(frozen=True)
class RoundGroup:
    round: int
    agents: list[str]
    rows: list[EventRow]


@dataclass(frozen=True)
class Timeline:
    rounds: list[RoundGroup]
    shown: int
    total: int  # events on the page before the filters
    agents: list[str]
    kinds: list[str]
    round_numbers: list[int]
    extraction_known: bool = False  # whether `extracted` was read (else nothing is said of it)


def session_timeline(
    events: Sequence[Event],
    *,
    agent: str | None,
    round: int | None,
    kind: str | None,
    extracted: Mapping[EventKey, list[Extracted]] | None = None,
) -> Timeline:
    """The page's events by round, in seq order, filtered; the filter choices come from the
    unfiltered page so that picking one never hides the others. `extracted`: what each event gave
    the semantic tier (extracted_by_event), when the beliefs could be read."""
    kept = [
        e
        for e in events
        if (agent is None or e.agent == agent)
        and (round is None or e.round == round)
        and (kind is None or e.kind == kind)
    ]
    by_round: dict[int, list[EventRow]] = {}
    for event in sorted(kept, key=lambda e: e.seq):
        preview, clipped = clip(content_text(event))
        gave = tuple((extracted or {}).get((event.session_id, event.seq), ()))
        by_round.setdefault(event.round, []).append(EventRow(event, preview, clipped, gave))
    rounds = [
        RoundGroup(number, list(dict.fromkeys(r.event.agent for r in rows)), rows)
        for number, rows in sorted(by_round.items())
    ]
    return Timeline(
        rounds=rounds,
        shown=len(kept),
        total=len(events),
        agents=sorted({e.agent for e in events}),
        kinds=sorted({e.kind for e in events}),
        round_numbers=sorted({e.round for e in events}),
        extraction_known=extracted is not None,
    )


def extracted_by_event(history: Iterable[Belief]) -> dict[EventKey, list[Extracted]]:
    """Every version of a subject's chains, by the events that stated it: the first statement of
    a version made it, the later ones restated it (SAME). An event that stated nothing is absent,
    which is how a page can say that extraction read no fact from it."""
    out: dict[EventKey, list[Extracted]] = {}
    for belief in sorted(history, key=lambda b: (b.key, b.member, b.version)):
        for n, statement in enumerate(own_statements(belief)):
            verdict = belief.verdict.value if n == 0 else "SAME"
            out.setdefault((statement.session_id, statement.seq), []).append(
                Extracted(belief.key, belief.member, belief.value, belief.version, verdict, belief.current)
            )
    return out


def own_statements(belief: Belief) -> list[Provenance]:
    """The statements of this version's value since it last became current, oldest first: the
    first is the event that made the version, the rest restated it (SAME)."""
    run: list[Provenance] = []
    for p in reversed(belief.provenance):
        if normalise_value(p.value) != normalise_value(belief.value):
            break
        run.append(p)
    return list(reversed(run)) or belief.provenance[:1]


@dataclass(frozen=True)
class BeliefRow:
    belief: Belief
    cause: Provenance | None  # the event that made this version

    @property
    def restated(self) -> list[Provenance]:
        return own_statements(self.belief)[1:]


@dataclass
class KeyGroup:
    key: str
    is_set: bool
    rows: list[BeliefRow] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        return any(r.belief.flag for r in self.rows)


def belief_row(belief: Belief) -> BeliefRow:
    statements = own_statements(belief)
    return BeliefRow(belief, statements[0] if statements else None)


def current_beliefs(beliefs: Sequence[Belief]) -> list[KeyGroup]:
    """Current beliefs by key; a set key (its beliefs have members) lists every member."""
    groups: dict[str, KeyGroup] = {}
    for belief in sorted(beliefs, key=lambda b: (b.key, b.member)):
        group = groups.setdefault(belief.key, KeyGroup(belief.key, is_set=bool(belief.member)))
        group.rows.append(belief_row(belief))
    return list(groups.values())


@dataclass(frozen=True)
class Chain:
    """One member's (or a single key's) versions, oldest first."""

    member: str
    versions: list[BeliefRow]


def chains(history: Sequence[Belief]) -> list[Chain]:
    by_member: dict[str, list[Belief]] = {}
    for belief in history:
        by_member.setdefault(belief.member, []).append(belief)
    return [
        Chain(member, [belief_row(b) for b in sorted(versions, key=lambda b: b.version)])
        for member, versions in sorted(by_member.items())
    ]


def sessions_of(beliefs: Sequence[Belief]) -> list[str]:
    """Sessions the beliefs cite, as a fallback when the session list cannot be read."""
    return sorted({p.session_id for b in beliefs for p in b.provenance})
