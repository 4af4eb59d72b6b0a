"""Explain a read from the trace or report the API returned with it: what each source offered,
what was placed and at which render level, where the cut fell, what was dropped and why, and,
against a second budget, what moved across the cut. Pure: no I/O, no markup."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import quote

from agentmem.compose.layout import CONTENT_LEVELS
from agentmem.compose.report import ComposeReport, SectionReport
from agentmem.model.context import ContextItem, ContextRequest, ContextResponse

COMPOSE_LEVELS = ("full", "abridged", "key facts", "body", "sentence", "title+path", "title", "id")
"""The composer's render levels, 0 to 7; levels below CONTENT_LEVELS carry the asset's body."""
CONTEXT_LEVELS = ("full", "short", "identity")
ABSENT = "not a candidate"


def _u(part: str) -> str:
    return quote(part, safe="")


def event_href(session_id: str, seq: int | str) -> str:
    return f"/ui/sessions/{_u(session_id)}#event-{seq}"


def belief_href(subject_id: str, doc_id: str) -> str:
    key = doc_id.split("#", 1)[0].split("@", 1)[0]
    return f"/ui/subjects/{_u(subject_id)}/beliefs/{_u(key)}"


def item_href(item_id: str, subject_id: str) -> str | None:
    """Where an item of a context read lives: its event, or its belief's chain."""
    kind, _, rest = item_id.partition(":")
    if kind == "event" and ":" in rest:
        session, seq = rest.rsplit(":", 1)
        return event_href(session, seq)
    if kind == "passage" and rest.count(":") >= 2:
        session, seq, _span = rest.rsplit(":", 2)
        return event_href(session, seq)
    if kind == "belief":
        return belief_href(subject_id, rest)
    return None


@dataclass(frozen=True)
class ItemView:
    item_id: str
    source: str
    status: str  # a render level, or "dropped"
    href: str | None
    tokens: int | None = None
    score: float | None = None
    reason: str | None = None
    superseded: bool = False
    flagged: bool = False  # a belief that contradicted the version before it
    later: bool = False  # written after the saved read this one re-runs

    @property
    def placed(self) -> bool:
        return self.status != "dropped"


@dataclass
class SourceView:
    name: str
    candidates: int
    tokens: int
    placed: list[ItemView] = field(default_factory=list)
    dropped: list[ItemView] = field(default_factory=list)

    @property
    def at_full(self) -> int:
        return sum(i.status == "full" for i in self.placed)


@dataclass(frozen=True)
class ContextExplain:
    request: ContextRequest
    response: ContextResponse
    sources: list[SourceView]
    belief_versions: list[tuple[str, int, str]]  # doc id, version, chain link
    watermark_href: str | None
    passages: list[ItemView]  # history items placed, superseded ones labelled
    passage_lines: list[str]  # as the markdown rendered them

    def statuses(self) -> dict[str, str]:
        return {i.item_id: i.status for s in self.sources for i in (*s.placed, *s.dropped)}

    def labels(self) -> dict[str, tuple[str, str | None]]:
        return {i.item_id: (i.source, i.href) for s in self.sources for i in (*s.placed, *s.dropped)}


def _later(item: ContextItem, watermark: int | None, read_at: str | None) -> bool:
    """An event of the session past the saved read's watermark, or a passage stated after it ran."""
    if watermark is not None and item.source == "episodic" and int(item.ref.get("seq", 0)) > watermark:
        return True
    stated = item.ref.get("stated_at")
    return read_at is not None and isinstance(stated, str) and stated > read_at


def explain_context(
    request: ContextRequest,
    response: ContextResponse,
    saved_watermark: int | None = None,
    read_at: str | None = None,
) -> ContextExplain:
    """`saved_watermark` and `read_at`: the log seq a saved read saw and when it ran, so what was
    written since stands out when the read is run again now."""
    trace = response.trace
    subject = request.subject_id
    views = {
        name: SourceView(name, trace.candidates_by_source.get(name, 0), trace.tokens_by_source.get(name, 0))
        for name in [*request.include, *(s for s in trace.candidates_by_source if s not in request.include)]
    }
    for item in sorted(response.items, key=lambda i: (-i.score, i.item_id)):
        view = views.setdefault(item.source, SourceView(item.source, 0, 0))
        view.placed.append(
            ItemView(
                item.item_id,
                item.source,
                item.level,
                item_href(item.item_id, subject),
                item.tokens,
                item.score,
                superseded=bool(item.ref.get("superseded")),
                flagged=bool(item.ref.get("flag")),
                later=_later(item, saved_watermark, read_at),
            )
        )
    for dropped in trace.dropped:
        view = views.setdefault(dropped.source, SourceView(dropped.source, 0, 0))
        view.dropped.append(
            ItemView(
                dropped.item_id,
                dropped.source,
                "dropped",
                item_href(dropped.item_id, subject),
                reason=dropped.reason,
            )
        )
    versions = [
        (doc_id, version, belief_href(subject, doc_id))
        for doc_id, version in sorted(trace.belief_versions.items())
    ]
    watermark = event_href(request.session_id, trace.log_watermark_seq) if trace.log_watermark_seq else None
    passages = list(views["history"].placed) if "history" in views else []
    return ContextExplain(
        request,
        response,
        list(views.values()),
        versions,
        watermark,
        passages,
        history_lines(response.markdown),
    )


def history_lines(markdown: str) -> list[str]:
    """The rendered lines of the history section: what the agent read of its earlier sessions."""
    lines: list[str] = []
    inside = False
    for line in markdown.splitlines():
        if line.startswith("## "):
            inside = line.startswith("## Earlier sessions")
        elif inside and line.strip():
            lines.append(line)
    return lines


@dataclass(frozen=True)
class SectionView:
    report: SectionReport
    members: list[tuple[str, str]]  # asset id, render level name (or "dropped")


@dataclass(frozen=True)
class ComposeExplain:
    skill_id: str
    question: str
    report: ComposeReport
    markdown: str
    above: list[SectionView]
    below: list[SectionView]

    def statuses(self) -> dict[str, str]:
        out = {a: "dropped" for a in (d.asset_id for d in self.report.dropped)}
        for section in (*self.above, *self.below):
            out.update(dict(section.members))
        return out

    def labels(self) -> dict[str, tuple[str, str | None]]:
        return {asset: ("asset", None) for asset in self.statuses()}


def level_name(level: int) -> str:
    return COMPOSE_LEVELS[level] if 0 <= level < len(COMPOSE_LEVELS) else f"level {level}"


def has_body(level_name_: str) -> bool:
    return level_name_ in COMPOSE_LEVELS[:CONTENT_LEVELS]


def explain_compose(skill_id: str, question: str, report: ComposeReport, markdown: str) -> ComposeExplain:
    """Sections ranked, split at the cut line: the last rank placed whole at full detail."""
    views = []
    for section in sorted(report.sections, key=lambda s: s.rank):
        members = [
            (a, level_name(section.levels[a]) if a in section.levels else "dropped") for a in section.items
        ]
        views.append(SectionView(section, members))
    cut = report.cut_line if report.cut_line is not None else 0
    above = [v for v in views if v.report.rank <= cut]
    below = [v for v in views if v.report.rank > cut]
    return ComposeExplain(skill_id, question, report, markdown, above, below)


@dataclass(frozen=True)
class Move:
    item_id: str
    before: str
    after: str
    kind: str  # "in" (gained detail or got placed), "out", or "level"
    href: str | None


def _rank(status: str) -> int:
    """Higher is more detail; dropped and absent are below every level."""
    if status in CONTEXT_LEVELS:
        return len(CONTEXT_LEVELS) - CONTEXT_LEVELS.index(status)
    if status in COMPOSE_LEVELS:
        return len(COMPOSE_LEVELS) - COMPOSE_LEVELS.index(status)
    return 0


def moves(before: Mapping[str, str], after: Mapping[str, str], hrefs: Mapping[str, str | None]) -> list[Move]:
    """Every item whose fate differs between two reads, most changed first. Crossing the cut
    means being placed in one read and dropped (or absent) in the other; a change of render
    level is a move too, since detail is what the budget buys."""
    found: list[Move] = []
    for item in sorted(set(before) | set(after)):
        a, b = before.get(item, ABSENT), after.get(item, ABSENT)
        if a == b:
            continue
        placed_a, placed_b = _rank(a) > 0, _rank(b) > 0
        kind = "level" if placed_a and placed_b else ("in" if placed_b else "out")
        found.append(Move(item, a, b, kind, hrefs.get(item)))
    order = {"in": 0, "out": 1, "level": 2}
    return sorted(found, key=lambda m: (order[m.kind], m.item_id))


def hrefs_of(*explains: Iterable[tuple[str, tuple[str, str | None]]]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for pairs in explains:
        for item, (_, href) in pairs:
            out.setdefault(item, href)
    return out
