"""The old value a change or a correction names: "we moved from Porto to Lisbon" (Porto), "Maya
is now vegan (was vegetarian)", "I don't work for Acme, I work for Globex", "three kids now, not
two". It is recorded beside the new value (`ExtractedFact.replaces`), never as a value of its
own: the sentence does not say the old value is true. A reader's history then knows that an
earlier passage saying "Porto" is out of date even when no rule read that passage.

An old value is taken only from the phrases below, and only when it looks like the new one: a
figure for a figure, a capitalised name for a name, lowercase words for lowercase words. "From X
to Y" counts only when Y is the new value ("I moved the meeting from Monday to Friday" names no
old city), and a hedge after "not" ("not sure", "not right") is no old value."""

from __future__ import annotations

import re

from agentmem.adapters.local.rules.lexicon import PRONOUNS
from agentmem.model.beliefs import normalise_value

# A figure may hold commas and points ("$4,250"); a word may not, or "34, I'm 35" would be one phrase.
PHRASE = r"(?P<old>(?:[$€£]?\d[\d,.]*\d|[$€£]?\d|[\w'&-]+)(?:\s+[\w'&-]+){0,3}?)"
STOPS = r"to|and|but|so|now|any\s*more|anymore|last|since|after|because|is|was"
END = rf"(?=\s*(?:$|[.;:!?()\u2014\u2013,]|\s(?:{STOPS})\b))"
FROM_TO = re.compile(rf"\bfrom\s+{PHRASE}\s+to\s+", re.I)
BRACKETED = re.compile(
    rf"\((?:was|previously|formerly|no\s+longer(?:\s+(?:at|in|with))?|not)\s+{PHRASE}\)", re.I
)
DENIED = re.compile(
    r"\b(?:not|no\s+longer|no\s+more|instead\s+of|rather\s+than|never\s+lived\s+in|left|quit|"
    r"stopped\s+being|gave\s+up|done\s+with|(?:don't|do\s+not|doesn't|does\s+not)\s+work\s+(?:at|for))"
    rf"\s+{PHRASE}{END}",
    re.I,
)
# What follows "not" without being a value: "not right", "not sure", "not really".
HEDGES = frozenset({
    "right", "wrong", "sure", "true", "correct", "quite", "really", "exactly", "yet", "only", "just",
    "much", "many", "enough", "always", "ever", "good", "bad", "great", "fine", "happy", "certain",
    "that", "this", "one", "all", "so", "too", "very", "even",
})  # fmt: skip
LEADING = re.compile(r"^(?:a|an|the|my|our|his|her|their|at|in|for)\s+", re.I)
FIGURE = re.compile(r"\d")


def _shape(text: str) -> tuple[bool, bool]:
    return bool(FIGURE.search(text)), text[:1].isupper()


def _candidates(sentence: str, value: str) -> list[str]:
    found = [
        m.group("old")
        for m in FROM_TO.finditer(sentence)
        if sentence[m.end() :].casefold().startswith(value.casefold())
    ]
    return found + [m.group("old") for p in (BRACKETED, DENIED) for m in p.finditer(sentence)]


def old_value(sentence: str, value: str) -> str | None:
    """The first old value the sentence names for `value`, or None."""
    new = normalise_value(value)
    for raw in _candidates(sentence, value):
        old = LEADING.sub("", raw.strip(" ,.'")).strip()
        norm = normalise_value(old)
        if not norm or norm in new or new in norm:
            continue
        first = old.split()[0].casefold()
        if first in PRONOUNS or first in HEDGES or len(old.split()) > len(value.split()) + 2:
            continue
        if _shape(old) == _shape(value):
            return old
    return None
