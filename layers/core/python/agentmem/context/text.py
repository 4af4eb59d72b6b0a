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


def shingle_set(text: str) -> set[tuple[str, ...]]:
    """Word 3-shingles of `text` (its words, one per shingle, when it has fewer than three)."""
    w = words(text)
    if len(w) < 3:
        return {(word,) for word in w}
    return {tuple(w[i : i + 3]) for i in range(len(w) - 2)}


def similar(a: set[tuple[str, ...]], b: set[tuple[str, ...]], threshold: float = 0.9) -> bool:
    """Near-duplicates: Jaccard similarity of their shingle sets at or over `threshold`."""
    if not a or not b:
        return a == b
    return len(a & b) / len(a | b) >= threshold
