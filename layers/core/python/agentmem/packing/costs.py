"""What a document costs: the rendering itself, each line's tokens, and the exact count of a whole
document computed from cached chunk counts instead of counting the rendered text again."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from agentmem.packing.model import Candidate, Placed, Section

Counter = Callable[[str], int]


def rank(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Best first; ties break on the item id, so equal state always packs the same way."""
    return sorted(candidates, key=lambda c: (-c.score, c.item_id))


def section_chunks(heading: str, lines: Sequence[tuple[str, str]]) -> list[str]:
    """A section's text as chunks, each ending with its newline: the heading, then its lines
    (`(group, line)` pairs in rank order). The lines of one group stand together under
    "### group", groups in the order of their best-ranked line; ungrouped lines form a block of
    their own, without a sub-heading, at the place of their best one."""
    chunks = [f"## {heading}\n"]
    for group in dict.fromkeys(g for g, _ in lines):
        chunks += [f"### {group}\n"] if group else []
        chunks += [f"- {line}\n" for g, line in lines if g == group]
    return chunks


def render(title: str, sections: Sequence[Section], placed: Sequence[Placed], preamble: str = "") -> str:
    """The document: a title, the preamble if any, then each section that has items, items in
    rank order (grouped: `section_chunks`)."""
    parts = [f"# {title}", *([preamble.strip()] if preamble.strip() else [])]
    for section in sections:
        lines = [
            (p.candidate.group, p.candidate.renders[p.level])
            for p in placed
            if p.candidate.source == section.source
        ]
        if lines:
            parts.append("".join(section_chunks(section.heading, lines)).removesuffix("\n"))
    return "\n\n".join(parts) + "\n"


class DocumentCosts:
    """Token costs of one document's candidates, in rank order. A line's cost ("- text\\n") and a
    heading's ("\\n\\n## heading\\n") are estimates for admission; `tokens_of` is exact."""

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

    def opening_cost(self, c: Candidate, opened: Collection[object]) -> int:
        """What `c` adds beyond its line as the first item of its section or group: the headings
        `opened` (see `open`) does not hold yet."""
        cost = 0 if c.source in opened else self.headings.get(c.source, 0)
        if c.group and (c.source, c.group) not in opened:
            cost += self._chunk(f"### {c.group}\n")
        return cost

    @staticmethod
    def open(c: Candidate, opened: set[object]) -> None:
        """Record that `c`'s section and group headings are in the document."""
        opened.add(c.source)
        if c.group:
            opened.add((c.source, c.group))

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
            (section, [(c.group, c.renders[levels[c.item_id]]) for c in self.ranked
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
            *chunks, last = section_chunks(section.heading, lines)
            ends = "\n" if n == len(sections) - 1 else "\n\n"
            total += sum(self._chunk(chunk) for chunk in chunks) + self._chunk(last.removesuffix("\n") + ends)
        return total

    def exact(self, levels: dict[str, int]) -> tuple[list[Placed], str, int]:
        """The placed items in rank order, the rendered document and its exact token count."""
        placed = [
            Placed(c, levels[c.item_id], self.line_cost(c, levels[c.item_id]))
            for c in self.ranked
            if c.item_id in levels
        ]
        return placed, render(self.title, self.sections, placed, self.preamble), self.tokens_of(levels)
