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
- when the shared words still hold a figure or a name and the changed spans hold neither, that
  is the value and the span a different thing it is said of ("the population of Ashby was 900" /
  "the population of Barton was 900", "my sister lives in Paris" / "my brother lives in Paris");
- two sentences of one event are a list, not a change of mind.
bench/knowledge_prose.py reports the precision on pairs that must not be joined."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

# Words of any script; a figure keeps its separators ("1,204", "3.5", "10:30").
_TOKEN = re.compile(r"\w+(?:[.,:]\w+)*")
_SENTENCE = re.compile("(?<=[.!?\u3002\uff01\uff1f])\\s+")  # and the ideographic full stops
_DIGIT = re.compile(r"\d")

MAX_SPAN = 4  # words a changed value may always take on either side ...
MAX_SPAN_SHARE = 0.6  # ... or this share of the longer sentence (a name and a date changed together)
MIN_SHARED = 3  # words the two sentences must share outside it
MIN_SHARED_SHARE = 0.4  # ... and this share of the longer sentence
MIN_SENTENCE = 4  # shorter pieces say too little to be compared
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
        # A piece that opens in lower case or a bracket is the tail of a sentence cut at an
        # abbreviation ("Joseph R. BIDEN Jr. (since ..."): what it is about is in the piece before.
        if sentence[:1].islower() or sentence[:1] in "([{\"'":
            continue
        if MIN_SENTENCE <= len(written) <= MAX_SENTENCE:
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
    longest = max(MAX_SPAN, int(MAX_SPAN_SHARE * max(len(a), len(b))))
    if prefix == 0 or not 0 < span_a <= longest or not 0 < span_b <= longest:
        return None
    shared = prefix + suffix
    if shared < MIN_SHARED or shared < MIN_SHARED_SHARE * max(len(a), len(b)):
        return None
    return prefix, a_end, b_end


def _figures_and_names(written: Sequence[str], start: int) -> tuple[bool, bool]:
    """Whether the words (as written, the first at position `start` of its sentence) hold a figure,
    and a name: a capitalised word of two letters or more that does not open the sentence."""
    figure = any(_DIGIT.search(w) for w in written)
    name = any(n + start > 0 and len(w) > 1 and w[0].isupper() for n, w in enumerate(written))
    return figure, name


def _said_of_another(shared: tuple[bool, bool], changed: tuple[bool, bool]) -> bool:
    """The shared words hold the value and the changed span what it is said of: a figure kept
    while the span changes none, or a name kept while the span changes neither a figure nor a
    name (a figure in the span is a value even where every noun is capitalised, as in German)."""
    (shared_figure, shared_name), (span_figure, span_name) = shared, changed
    return (shared_figure and not span_figure) or (shared_name and not (span_figure or span_name))


def _only_values_changed(old: Sequence[str], new: Sequence[str], start: int) -> bool:
    """Whether the words that differ inside the changed region (the words both sides keep there
    aligned away) are values alone: figures and names, or, where none is, one short run of plain
    words ("hiking" / "swimming"). A region that changes a figure and a plain word with it
    ("Birth rate: 12.33 births" / "Death rate: 8.35 deaths") changes what is measured, not only
    the measure: another attribute."""
    matcher = SequenceMatcher(a=[w.casefold() for w in old], b=[w.casefold() for w in new], autojunk=False)
    changed = [
        (side, n)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
        for side, n in [*(("old", i) for i in range(i1, i2)), *(("new", j) for j in range(j1, j2))]
    ]
    words = {"old": old, "new": new}
    valued = [any(_figures_and_names([words[side][n]], start + n)) for side, n in changed]
    if any(valued):
        return all(valued)
    return len(old) <= MAX_SPAN and len(new) <= MAX_SPAN


def version_of(older: str, newer: str) -> tuple[str, str, str] | None:
    """(the newer sentence, the old value, the new value) when a sentence of `newer` is a later
    version of one of `older`, else None."""
    for _, old_words, old_written in sentences(older):
        for sentence, new_words, new_written in sentences(newer):
            if old_words[0] != new_words[0]:  # changed_span needs a shared first word: cheap to see
                continue
            span = changed_span(old_words, new_words)
            if span is None:
                continue
            prefix, old_end, new_end = span
            old_value, new_value = old_written[prefix:old_end], new_written[prefix:new_end]
            head, tail = (
                _figures_and_names(old_written[:prefix], 0),
                _figures_and_names(old_written[old_end:], 1),
            )
            old_span, new_span = _figures_and_names(old_value, prefix), _figures_and_names(new_value, prefix)
            shared = (head[0] or tail[0], head[1] or tail[1])
            changed = (old_span[0] or new_span[0], old_span[1] or new_span[1])
            if _said_of_another(shared, changed) or not _only_values_changed(old_value, new_value, prefix):
                continue
            return sentence, " ".join(old_value), " ".join(new_value)
    return None


def find_versions(statements: Sequence[Statement]) -> list[Version]:
    """Every (older, newer) version pair among `statements`, each older one with its latest
    newer version only. Quadratic in the statements, so callers pass the few dozen a read ranks
    best; a pair is first screened on its sentences' first words (a version keeps its first
    word) and then on shared words, which most pairs fail."""
    ordered = sorted(statements, key=lambda s: (s.said, s.item_id))
    split = [sentences(s.text) for s in ordered]
    firsts = [frozenset(ws[0] for _, ws, _ in pieces) for pieces in split]
    bags = [frozenset(w for _, ws, _ in pieces for w in ws) for pieces in split]
    found: dict[str, Version] = {}
    for i, old in enumerate(ordered):
        for j in range(len(ordered) - 1, i, -1):  # the latest version first
            new = ordered[j]
            if new.event_id == old.event_id or firsts[i].isdisjoint(firsts[j]):
                continue
            if len(bags[i] & bags[j]) < MIN_SHARED:
                continue
            match = version_of(old.text, new.text)
            if match is not None:
                quote, old_value, new_value = match
                found[old.item_id] = Version(old.item_id, new.item_id, quote, old_value, new_value)
                break
    return list(found.values())
