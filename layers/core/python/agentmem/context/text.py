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


def near_duplicate(a: str, b: str, threshold: float = 0.9) -> bool:
    """Jaccard similarity of word 3-shingles; short texts compare word sets."""
    wa, wb = words(a), words(b)
    if len(wa) < 3 or len(wb) < 3:
        return set(wa) == set(wb)
    sa = {tuple(wa[i : i + 3]) for i in range(len(wa) - 2)}
    sb = {tuple(wb[i : i + 3]) for i in range(len(wb) - 2)}
    return len(sa & sb) / len(sa | sb) >= threshold
