"""Text helpers for renderings: whole sentences only, never a cut one."""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import defaultdict
from collections.abc import Mapping
from collections.abc import Set as AbstractSet

from agentmem.model.events import Event

SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
WORD = re.compile(r"[a-z0-9]+")


def with_head(renders: tuple[str, ...], grouped: str, whole: str) -> tuple[str, ...]:
    """`renders` with the head a line has under its group's heading (`grouped`) replaced by the
    head that says where it is on its own (`whole`); renderings without that head stay."""
    return tuple(whole + r.removeprefix(grouped) if r.startswith(grouped) else r for r in renders)


def event_text(event: Event) -> str:
    """The event's content as one line of text (JSON compact); a blob gives its preview."""
    if event.content is None:
        return event.blob.preview if event.blob else ""
    if isinstance(event.content, str):
        return " ".join(event.content.split())
    return json.dumps(event.content, ensure_ascii=False, separators=(", ", ": "))


def leading_sentences(text: str, max_chars: int) -> str | None:
    """As many whole leading sentences as fit in `max_chars`; None when not even one does."""
    out = ""
    for sentence in SENTENCE_END.split(text.strip()):
        candidate = f"{out} {sentence}".strip()
        if len(candidate) > max_chars:
            break
        out = candidate
    return out or None


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def shingle_set(w: list[str]) -> set[tuple[str, ...]]:
    """Word 3-shingles of a text's words (the words themselves when there are fewer than three)."""
    if len(w) < 3:
        return {(word,) for word in w}
    return set(zip(w, w[1:], w[2:], strict=False))  # the same tuples as slicing, at a third of the cost


class NearDuplicates:
    """Texts kept so far, indexed by the prefix of their shingles: a new text is compared only
    with the kept texts that could reach the threshold, not with every one.

    Prefix filtering (Chaudhuri et al., 2006; Bayardo et al., 2007): with every set sorted in one
    global order, two sets of Jaccard similarity >= t share an element among the first
    `n - ceil(t * n) + 1` of each. Indexing only those prefixes finds every true near-duplicate,
    and the exact Jaccard then decides, so the answer is the one an all-pairs comparison gives;
    indexing every shingle made the texts of one template (which share most shingles) compare
    with nearly all the others."""

    def __init__(
        self, threshold: float = 0.9, *, frequency: Mapping[tuple[str, ...], int] | None = None
    ) -> None:
        self._threshold = threshold
        # The global order, as one distinct int per shingle: rarest first when frequencies are
        # known (a rare prefix shingle is shared by few texts, so few need the exact check), a
        # shingle never counted before all of them. Any fixed total order gives the same answers;
        # ints keep the sort key a C-level dict lookup.
        self._order: defaultdict[tuple[str, ...], int] = defaultdict(
            itertools.count().__next__,
            {s: ((n + 1) << 32) | i for i, (s, n) in enumerate((frequency or {}).items())},
        )
        self._kept: dict[int, AbstractSet[tuple[str, ...]]] = {}
        self._holders: dict[tuple[str, ...], list[int]] = {}
        self._empty: int | None = None

    def _prefix(self, shingles: AbstractSet[tuple[str, ...]]) -> list[tuple[str, ...]]:
        # The tolerance only lengthens the prefix, which is always safe.
        overlap = math.ceil(self._threshold * len(shingles) - 1e-9)
        return sorted(shingles, key=self._order.__getitem__)[: len(shingles) - overlap + 1]

    def add(self, key: int, shingles: AbstractSet[tuple[str, ...]]) -> int | None:
        """The smallest key of a kept near-duplicate of `shingles`, or None after keeping it
        under `key`."""
        if not shingles:  # a text with no words duplicates another text with no words
            if self._empty is None:
                self._empty = key
                return None
            return self._empty
        prefix = self._prefix(shingles)
        candidates = {other for shingle in prefix for other in self._holders.get(shingle, ())}
        for other in sorted(candidates):
            theirs = self._kept[other]
            common = len(shingles & theirs)
            if common / (len(shingles) + len(theirs) - common) >= self._threshold:
                return other
        self._kept[key] = shingles
        for shingle in prefix:
            self._holders.setdefault(shingle, []).append(key)
        return None
