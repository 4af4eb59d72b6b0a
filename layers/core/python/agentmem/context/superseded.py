"""Old values said in passages the extractor could not read.

A history passage is checked against the current beliefs of the keys it stated. That covers only
what extraction read: "The winters in Porto are mild" states nothing, yet after "we moved from
Porto to Lisbon" it tells a reader the old city. Each current belief's provenance names every
value its key held before (a chain keeps them) and every old value a change named ("from Porto",
`Provenance.replaces`: the first statement may never have been read), so a passage said before the belief's
current value, that says one of those old values in its own words and not the current one, gets
the same label a stated fact would: the current value and since when.

Only values distinctive enough to stand for the fact are looked for: a bare number word ("two"),
a single figure, or a word of fewer than four letters is said about too many other things. A
label on a passage about something else with the same word would mislead, not only cost tokens."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agentmem.model.beliefs import Belief, normalise_value
from agentmem.model.passages import Passage

MIN_LETTERS = 4
MIN_DIGITS = 2
# Counts said as words name many things besides the fact ("two children", "two meetings").
NUMBER_WORDS = frozenset({
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "none", "no",
})  # fmt: skip


@dataclass(frozen=True)
class Replaced:
    """A value a current belief replaced, as a whole-word pattern on normalised text."""

    belief: Belief
    old: re.Pattern[str]
    current: re.Pattern[str]


def distinctive(value: str) -> bool:
    """Whether a normalised value names the fact rather than a word said about anything."""
    if value in NUMBER_WORDS:
        return False
    digits = sum(c.isdigit() for c in value)
    letters = sum(c.isalpha() for c in value)
    return digits >= MIN_DIGITS or letters >= MIN_LETTERS


def whole_word(value: str) -> re.Pattern[str]:
    """A normalised value as a pattern on normalised text: never inside a bigger word or figure."""
    return re.compile(rf"(?<![a-z0-9]){re.escape(value)}(?![a-z0-9])")


def replaced_values(beliefs: Iterable[Belief]) -> list[Replaced]:
    """Every distinctive old value of the current single-valued beliefs given, in a stable order.
    A set-valued key's members stand side by side, so an old member is not a replaced value."""
    out: list[Replaced] = []
    for belief in beliefs:
        if not belief.current or belief.member:
            continue
        now = normalise_value(belief.value)
        said = [v for p in belief.provenance for v in (p.value, p.replaces) if v]
        olds = {normalise_value(v) for v in said} - {now}
        out += [
            Replaced(belief, whole_word(old), whole_word(now)) for old in sorted(olds) if distinctive(old)
        ]
    return out


def mentioned(passage: Passage, replaced: Sequence[Replaced]) -> list[Belief]:
    """The beliefs whose old value the passage says, said before that belief's current value,
    without saying the current one (a line that says both tells the change itself)."""
    if not replaced:
        return []
    text = normalise_value(passage.text)
    return [
        r.belief
        for r in replaced
        if passage.stated_at < r.belief.valid_from and r.old.search(text) and not r.current.search(text)
    ]
