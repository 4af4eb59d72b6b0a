"""A change the subject makes to one of their own quantities or settings: "we raised the travel
budget from $4,250 to $6,100", "I cut our dining budget to $250", "Maya switched her plan to
premium". The key is the thing changed, as "my travel budget is ..." gives it; the value is what
follows "to", never the old value after "from".

Only the subject's own things: "my"/"our" (the user's words), "her"/"his"/"their" (an agent's
words about the subject), or "the" with a figure in the new value ("we raised the budget to
$500"). So "they raised the price", "I cut the onions into cubes" and "we moved the meeting from
Monday to Friday" state nothing."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import lru_cache

from agentmem.adapters.local.rules import replaced, values
from agentmem.adapters.local.rules.found import ADV, Context, Found, key_of
from agentmem.adapters.local.rules.lexicon import KEY_MODIFIERS, PREPOSITIONS, PRONOUNS
from agentmem.adapters.local.rules.possessive import VERBS
from agentmem.adapters.local.rules.verdict_lexicon import CHANGE, CORRECTION

VERB = r"(?P<verb>raised|increased|cut|reduced|lowered|upped|bumped\s+up|changed|switched)"
ATTRIBUTE = r"(?P<attr>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"
FROM = r"(?:\s+from\s+\S+(?:\s+\S+){0,3}?)?"
FIGURE = re.compile(r"\d")


@lru_cache(maxsize=256)
def _pattern(third: str, first_person: bool) -> re.Pattern[str]:
    subject = rf"\b[Ii]\b|\b[Ww]e\b|{third}" if first_person else third
    owner = r"my|our|the" if first_person else r"her|his|their|the"
    return re.compile(
        rf"(?P<subj>{subject})(?:'ve|\s+have|\s+has)?{ADV}\s+{VERB}\s+(?P<owner>{owner})\s+{ATTRIBUTE}{FROM}\s+to\s+",
        re.I,
    )


def find(ctx: Context, sentence: str, states: Callable[[str, int], bool]) -> Iterator[Found]:
    for m in _pattern(ctx.third, ctx.first_person).finditer(sentence):
        if not states(sentence, m.start("subj")):
            continue
        words = [w for w in m.group("attr").casefold().split() if w not in KEY_MODIFIERS]
        if not words or any(w in VERBS or w in PRONOUNS or w in PREPOSITIONS for w in words):
            continue
        value = values.trim(values.clause(sentence[m.end() :]))
        if not value or not values.is_value(value):
            continue
        if m.group("owner").casefold() not in ("my", "our") and not FIGURE.search(value):
            continue  # "the"/"her": only a figure says it is a quantity of the subject's
        key = key_of(" ".join(words))
        if key:
            noun = " ".join(words)
            yield Found(m.start("subj"), key, value, f"{ctx.name}'s {noun} is {value}.",
                        description=f"The subject's {noun}.")  # fmt: skip


TOLD = re.compile(
    rf"{CHANGE.pattern}|{CORRECTION.pattern}|\b(?:not|no|never)\b|n't\b|\binstead\b|\bresigned\b|\bnotice\s+at\b",
    re.I,
)
MAX_TEXT_CHARS = 300


def told(sentence: str, found: Iterable[Found], before: str = "") -> Iterator[Found]:
    """A fact stated as a change or a correction keeps its own sentence as its text ("We moved
    from Porto to Lisbon."): it tells the reader what changed, and tells the verdict whether the
    old value was superseded (UPDATE) or denied (CONFLICT). Any other fact keeps its plain
    sentence ("Maya lives in Lisbon."). `before` is the sentence just before, when it stated no
    fact: a correction there ("That's wrong: I never lived in Porto. I live in Lisbon.") is part
    of the fact's text."""
    if before and CORRECTION.search(before) and len(before) + len(sentence) < MAX_TEXT_CHARS:
        sentence = f"{before} {sentence}"
    marked = bool(TOLD.search(sentence)) and len(sentence) <= MAX_TEXT_CHARS
    for f in found:
        yield (
            replace(f, text=sentence, replaces=f.replaces or replaced.old_value(sentence, f.value))
            if marked
            else f
        )
