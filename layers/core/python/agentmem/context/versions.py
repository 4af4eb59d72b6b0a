"""Versions of one statement, found without reading it: two sentences that say the same thing
with one span changed ("The population was 1,204 at the 2000 census" / "... 1,412 at the 2010
census", "we're moving to Denver" / "we're moving to Austin") are two versions of one fact, the
later one current, whether or not any extraction rule or model understood either.

No phrase list, no language model: sentences are compared as runs of Unicode words. A pair is a
version pair when, once the longest common prefix and suffix are taken away, each side keeps a
short non-empty span (the value) and what they share is most of both sentences. Three guards keep
look-alikes about other things apart, since the changed span may be what the sentence is about
rather than what it says of it:
- a change at the very start is the sentence's topic changing ("Alice works at Acme" / "Bruno
  works at Acme"), not its value;
- when the shared words still hold a figure and the changed spans hold none, the figure is the
  value and the span a different thing it is said of ("the population of Ashby was 900" /
  "the population of Barton was 900");
- two sentences of one event are a list, not a change of mind.
bench/human_knowledge.py reports the precision on pairs that must not be joined."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

# Words of any script; a figure keeps its separators ("1,204", "3.5", "10:30").
_TOKEN = re.compile(r"\w+(?:[.,:]\w+)*")
_SENTENCE = re.compile("(?<=[.!?\u3002\uff01\uff1f])\\s+")  # and the ideographic full stops
_DIGIT = re.compile(r"\d")

MAX_SPAN = 4  # words a changed value may take on either side
MIN_SHARED = 4  # words the two sentences must share outside it
MIN_SHARED_SHARE = 0.5  # ... and at least half of the longer sentence
MAX_SENTENCE = 60  # longer sentences are paragraphs: one changed span says little about them


@dataclass(frozen=True)
class Statement:
    """One piece of text of the subject's memory, with when it was said."""

    item_id: str
    text: str
    said: tuple[str, int]  # (stated_at, seq): the order it was said in
    event_id: str


@dataclass(frozen=True)
class Version:
    """`older` says what `newer` later said otherwise; `quote` is the newer sentence."""

    older: str  # item id
    newer: str
    quote: str
    old_value: str
    new_value: str


@lru_cache(maxsize=8192)
def sentences(text: str) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
    """(sentence, its words casefolded, as written) for each sentence of a text."""
    out = []
    for sentence in _SENTENCE.split(text.strip()):
        written = tuple(_TOKEN.findall(sentence))
        if 0 < len(written) <= MAX_SENTENCE:
            out.append((sentence, tuple(w.casefold() for w in written), written))
    return tuple(out)


def sentences_words(text: str) -> list[str]:
    """Every word of a text, casefolded, in any script."""
    return [w.casefold() for w in _TOKEN.findall(text)]


def changed_span(a: Sequence[str], b: Sequence[str]) -> tuple[int, int, int] | None:
    """(prefix, a's span end, b's span end) when `a` and `b` differ in one short span that is not
    their start, else None."""
    n = min(len(a), len(b))
    prefix = 0
    while prefix < n and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < n - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    a_end, b_end = len(a) - suffix, len(b) - suffix
    span_a, span_b = a_end - prefix, b_end - prefix
    if prefix == 0 or not 0 < span_a <= MAX_SPAN or not 0 < span_b <= MAX_SPAN:
        return None
    shared = prefix + suffix
    if shared < MIN_SHARED or shared < MIN_SHARED_SHARE * max(len(a), len(b)):
        return None
    return prefix, a_end, b_end


def _has_figure(words: Sequence[str]) -> bool:
    return any(_DIGIT.search(w) for w in words)


def version_of(older: str, newer: str) -> tuple[str, str, str] | None:
    """(the newer sentence, the old value, the new value) when a sentence of `newer` is a later
    version of one of `older`, else None."""
    for _, old_words, old_written in sentences(older):
        for sentence, new_words, new_written in sentences(newer):
            span = changed_span(old_words, new_words)
            if span is None:
                continue
            prefix, old_end, new_end = span
            old_value, new_value = old_written[prefix:old_end], new_written[prefix:new_end]
            shared = [*old_words[:prefix], *old_words[old_end:]]
            if _has_figure(shared) and not (_has_figure(old_value) or _has_figure(new_value)):
                continue
            return sentence, " ".join(old_value), " ".join(new_value)
    return None


def find_versions(statements: Sequence[Statement]) -> list[Version]:
    """Every (older, newer) version pair among `statements`, each older one with its latest
    newer version only. Quadratic in the statements, so callers pass the few dozen a read ranks
    best; a pair is first screened on shared words, which most pairs fail."""
    ordered = sorted(statements, key=lambda s: (s.said, s.item_id))
    bags = [frozenset(w for _, ws, _ in sentences(s.text) for w in ws) for s in ordered]
    found: dict[str, Version] = {}
    for i, old in enumerate(ordered):
        for j in range(len(ordered) - 1, i, -1):  # the latest version first
            new = ordered[j]
            if new.event_id == old.event_id or len(bags[i] & bags[j]) < MIN_SHARED:
                continue
            match = version_of(old.text, new.text)
            if match is not None:
                quote, old_value, new_value = match
                found[old.item_id] = Version(old.item_id, new.item_id, quote, old_value, new_value)
                break
    return list(found.values())
