"""Text helpers for renderings: whole sentences only, never a cut one."""

from __future__ import annotations

import json
import re

from agentmem.model.events import Event

SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
WORD = re.compile(r"[a-z0-9]+")


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
    return {tuple(w[i : i + 3]) for i in range(len(w) - 2)}


class NearDuplicates:
    """Texts kept so far, indexed by shingle: a new text is compared only with the kept texts it
    shares shingles with, not with every one (pairwise comparison made a 1,000-event read slow)."""

    def __init__(self, threshold: float = 0.9) -> None:
        self._threshold = threshold
        self._sizes: dict[int, int] = {}
        self._holders: dict[tuple[str, ...], list[int]] = {}

    def add(self, key: int, shingles: set[tuple[str, ...]]) -> int | None:
        """The key of a kept near-duplicate of `shingles`, or None after keeping it under `key`."""
        if not shingles:  # a text with no words duplicates another text with no words
            empty = next((k for k, size in self._sizes.items() if size == 0), None)
            if empty is None:
                self._keep(key, shingles)
            return empty
        shared: dict[int, int] = {}
        for shingle in shingles:
            for other in self._holders.get(shingle, ()):
                shared[other] = shared.get(other, 0) + 1
        for other, common in sorted(shared.items()):
            if common / (len(shingles) + self._sizes[other] - common) >= self._threshold:
                return other
        self._keep(key, shingles)
        return None

    def _keep(self, key: int, shingles: set[tuple[str, ...]]) -> None:
        self._sizes[key] = len(shingles)
        for shingle in shingles:
            self._holders.setdefault(shingle, []).append(key)
