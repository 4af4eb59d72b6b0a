"""Pack ranked candidates into a token budget.

Breadth first, then depth: every candidate is first admitted at its cheapest rendering in rank
order, then the best-ranked ones are upgraded to fuller renderings while the budget lasts. So an
item loses detail before any item is dropped, and a compact rendering buys recall. Each source
gets a share of the budget; what a source leaves unused spills to the others.

Costs are exact token counts of each rendered line, used as estimates; the document is then
counted whole, near misses are retried against the exact count, and if the joins cost more than
the parts the lowest-ranked detail (then item) goes until it fits. The same candidates always
give the same bytes."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agentmem.packing.model import Candidate, Dropped, Packed, Placed, Section

Counter = Callable[[str], int]
# A line adds exactly its own chunk ("- text\n") unless it ends its section, where the blank line
# after it moves: the count of a chunk changes by at most one token per trailing newline, so a
# line costing more than the slack plus two can never fit, and is not counted again.
JOIN_MARGIN = 2


def rank(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Best first; ties break on the item id, so equal state always packs the same way."""
    return sorted(candidates, key=lambda c: (-c.score, c.item_id))


def render(title: str, sections: Sequence[Section], placed: Sequence[Placed], preamble: str = "") -> str:
    """The document: a title, the preamble if any, then each section that has items, items in
    rank order."""
    parts = [f"# {title}", *([preamble.strip()] if preamble.strip() else [])]
    for section in sections:
        lines = [p.candidate.renders[p.level] for p in placed if p.candidate.source == section.source]
        if lines:
            parts.append(f"## {section.heading}\n" + "\n".join(f"- {line}" for line in lines))
    return "\n\n".join(parts) + "\n"


class _Ledger:
    """Token shares per source; a pooled spend may draw on what any source has left."""

    def __init__(self, shares: dict[str, int]) -> None:
        self.left = dict(shares)

    def take(self, source: str, cost: int, *, pooled: bool) -> bool:
        available = sum(self.left.values()) if pooled else self.left.get(source, 0)
        if cost > available:
            return False
        for name in sorted(self.left, key=lambda s: (s != source, s)):  # own share first
            if not pooled and name != source:
                break
            spend = min(self.left[name], cost)
            self.left[name] -= spend
            cost -= spend
        return True


class _Packer:
    def __init__(
        self,
        ranked: list[Candidate],
        budget: int,
        sections: Sequence[Section],
        title: str,
        count: Counter,
        preamble: str = "",
    ) -> None:
        self.ranked = ranked
        self.budget = budget
        self.sections = sections
        self.title = title
        self.preamble = preamble.strip()
        self.count = count
        self.headings = {s.source: count(f"\n\n## {s.heading}\n") for s in sections}
        self._costs: dict[tuple[str, int], int] = {}
        self._chunks: dict[str, int] = {}

    def line_cost(self, c: Candidate, level: int) -> int:
        key = (c.item_id, level)
        if key not in self._costs:
            self._costs[key] = self.count(f"- {c.renders[level]}\n")
        return self._costs[key]

    def _chunk(self, text: str) -> int:
        cost = self._chunks.get(text)
        if cost is None:
            cost = self._chunks[text] = self.count(text)
        return cost

    def tokens_of(self, levels: dict[str, int]) -> int:
        """The exact token count of the document `levels` renders, without rendering it.

        tiktoken's pre-tokenizer always breaks after a run of newlines that is followed by a
        non-space ("-" or "#" here): no pre-token spans two lines. So the document's count is the
        sum of its chunks, each ending with its newlines, and a chunk's count can be cached."""
        sections = [
            (section, [c.renders[levels[c.item_id]] for c in self.ranked
                       if c.item_id in levels and c.source == section.source])
            for section in self.sections
        ]  # fmt: skip
        sections = [(section, lines) for section, lines in sections if lines]
        head = f"# {self.title}\n\n{self.preamble}" if self.preamble else f"# {self.title}"
        if not sections:
            return self._chunk(f"{head}\n")
        # The preamble ends a line and the next chunk starts with "#": the boundary holds there too.
        total = self._chunk(f"{head}\n\n")
        for n, (section, lines) in enumerate(sections):
            total += self._chunk(f"## {section.heading}\n")
            ends = "\n" if n == len(sections) - 1 else "\n\n"
            total += sum(self._chunk(f"- {line}\n") for line in lines[:-1]) + self._chunk(
                f"- {lines[-1]}{ends}"
            )
        return total

    def exact(self, levels: dict[str, int]) -> tuple[list[Placed], str, int]:
        placed = [
            Placed(c, levels[c.item_id], self.line_cost(c, levels[c.item_id]))
            for c in self.ranked
            if c.item_id in levels
        ]
        return placed, render(self.title, self.sections, placed, self.preamble), self.tokens_of(levels)

    def admit(self, ledger: _Ledger, shares: dict[str, float]) -> dict[str, int]:
        chosen: dict[str, int] = {}
        opened: set[str] = set()
        for pooled in (False, True):  # own share first, then what every source left unused
            for c in self.ranked:
                if c.item_id in chosen or c.source not in shares:
                    continue
                cheapest = len(c.renders) - 1
                cost = self.line_cost(c, cheapest) + (
                    0 if c.source in opened else self.headings.get(c.source, 0)
                )
                if ledger.take(c.source, cost, pooled=pooled):
                    chosen[c.item_id] = cheapest
                    opened.add(c.source)
        return chosen

    def fill(self, chosen: dict[str, int], tokens: int, shares: dict[str, float]) -> dict[str, int]:
        """Retry the near misses at identity level against the exact count of the document.
        Every near miss is counted whole: punctuation pre-tokens can swallow the newline after
        them, so a line's cost depends on its neighbours and no shortcut is exact."""
        for c in self.ranked:
            identity = len(c.renders) - 1
            if c.item_id in chosen or c.source not in shares:
                continue
            if self.line_cost(c, identity) > self.budget - tokens + JOIN_MARGIN:
                continue
            trial = {**chosen, c.item_id: identity}
            total = self.tokens_of(trial)
            if total <= self.budget:
                chosen, tokens = trial, total
        return chosen

    def admit_prefix(self, room: int, identity_share: float) -> dict[str, int]:
        """Detail first, in rank order: each item takes the fullest rendering that still fits
        beside what the items above it took, keeping `identity_share` of the room back. The first
        item that fits at no level ends the detail; the items from it on are admitted at identity
        level, in rank order, until one does not fit in the whole room."""
        chosen: dict[str, int] = {}
        opened: set[str] = set()
        spent, detail_room = 0, room - int(room * identity_share)

        def heading(c: Candidate) -> int:
            return 0 if c.source in opened else self.headings.get(c.source, 0)

        rest = self.ranked
        for n, c in enumerate(self.ranked):
            fits = [
                lvl
                for lvl in range(len(c.renders))
                if spent + self.line_cost(c, lvl) + heading(c) <= detail_room
            ]
            if not fits:
                rest = self.ranked[n:]
                break
            spent += self.line_cost(c, fits[0]) + heading(c)
            chosen[c.item_id] = fits[0]
            opened.add(c.source)
        else:
            rest = []
        for c in rest:
            cost = self.line_cost(c, len(c.renders) - 1) + heading(c)
            if spent + cost > room:
                break  # a prefix: nothing below an item that does not fit gets in
            spent += cost
            chosen[c.item_id] = len(c.renders) - 1
            opened.add(c.source)
        return chosen

    def upgrade(self, chosen: dict[str, int], ledger: _Ledger) -> dict[str, int]:
        chosen = dict(chosen)
        for pooled in (False, True):
            for c in self.ranked:
                if c.item_id not in chosen:
                    continue
                current = chosen[c.item_id]
                for level in range(current):  # fullest first
                    extra = self.line_cost(c, level) - self.line_cost(c, current)
                    if extra <= 0 or ledger.take(c.source, extra, pooled=pooled):
                        chosen[c.item_id] = level
                        break
        return chosen


def pack(
    candidates: Sequence[Candidate],
    *,
    budget: int,
    shares: dict[str, float],
    sections: Sequence[Section],
    title: str,
    count: Counter,
    encoding: str,
    preamble: str = "",
    prefix_identity_share: float | None = None,
) -> Packed:
    """`shares` maps each requested source to its fraction of the budget (normalised here).
    `preamble` is fixed text placed after the title, before the sections (it counts).

    With `prefix_identity_share`, the policy is the composer's instead: shares only say which
    sources are requested, the ranking's prefix takes its detail first (see `admit_prefix`) and
    at most that share of the budget goes to identity lines for the items below the cut."""
    packer = _Packer(rank(candidates), budget, sections, title, count, preamble)
    base = count(render(title, sections, [], preamble))
    if base > budget:
        dropped = [
            Dropped(c.item_id, c.source, "budget smaller than the document's title") for c in packer.ranked
        ]
        return Packed("", 0, budget, [], dropped, {}, encoding)
    if prefix_identity_share is not None:
        placed, markdown, tokens = packer.exact(packer.admit_prefix(budget - base, prefix_identity_share))
        return _finish(packer, placed, markdown, tokens, shares, encoding)
    total_share = sum(shares.values()) or 1.0
    ledger = _Ledger({src: int((budget - base) * share / total_share) for src, share in shares.items()})

    chosen = packer.admit(ledger, shares)
    placed, _, tokens = packer.exact(chosen)
    while tokens > budget and placed:  # the joins cost more than the parts: drop from the bottom
        placed, _, tokens = packer.exact({p.candidate.item_id: p.level for p in placed[:-1]})
    admitted = {p.candidate.item_id: p.level for p in placed}
    chosen = packer.fill(admitted, tokens, shares)
    for item_id in chosen.keys() - admitted.keys():  # near misses that fit spend from the pool
        c = next(c for c in packer.ranked if c.item_id == item_id)
        ledger.take(
            c.source, min(packer.line_cost(c, chosen[item_id]), sum(ledger.left.values())), pooled=True
        )

    placed, markdown, tokens = packer.exact(packer.upgrade(chosen, ledger))
    return _finish(packer, placed, markdown, tokens, shares, encoding)


def _finish(
    packer: _Packer, placed: list[Placed], markdown: str, tokens: int, shares: dict[str, float], encoding: str
) -> Packed:
    budget, count = packer.budget, packer.count
    while tokens > budget and placed:  # estimates ran over: take detail back, lowest rank first
        placed, markdown, tokens = packer.exact({p.candidate.item_id: p.level for p in _shrink(placed)})
    # The budget is never taken on trust: the rendered document itself is counted once more.
    tokens = count(markdown)
    while tokens > budget and placed:
        placed = _shrink(placed)
        markdown = render(packer.title, packer.sections, placed, packer.preamble)
        tokens = count(markdown)

    kept = {p.candidate.item_id for p in placed}
    dropped = [
        Dropped(
            c.item_id,
            c.source,
            "budget: no room even at identity level" if c.source in shares else "source not requested",
        )
        for c in packer.ranked
        if c.item_id not in kept
    ]
    by_source: dict[str, int] = {}
    for p in placed:
        by_source[p.candidate.source] = by_source.get(p.candidate.source, 0) + p.tokens
    return Packed(markdown, tokens, budget, placed, dropped, by_source, encoding)


def _shrink(placed: list[Placed]) -> list[Placed]:
    """Degrade the lowest-ranked item that can still lose detail, else drop the last one."""
    for i in range(len(placed) - 1, -1, -1):
        p = placed[i]
        if p.level < len(p.candidate.renders) - 1:
            return [*placed[:i], Placed(p.candidate, p.level + 1, 0), *placed[i + 1 :]]
    return placed[:-1]
