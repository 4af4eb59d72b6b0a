"""A hobby: "on weekends I do salsa dancing", "I've gotten really into bouldering", "my favourite
way to unwind is beekeeping", "Priya spends her free time on X / most weekends sailing", and its
change: "I gave up pottery; these days it's bonsai", "I'm done with X. I've taken up Y instead".
The key is `hobby`, as "my hobby is X" gives it (single: a change records the old hobby in
`replaces`, and the words given up are then no `activity` of their own: `idioms.supersede`).

A hobby is a short lowercase phrase of the event's own words (at most four), never led by an
article, a possessive or a pronoun: "on weekends I do the food shopping", "I've got into the
habit of ..." and "I've gotten into trouble" give nothing. "I do" and "I go" are read only after
a time phrase ("On Sundays I do yoga"): "I do think", "I go shopping tomorrow" are no hobby."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from agentmem.adapters.local.rules import values
from agentmem.adapters.local.rules.found import ADV, Context, Found
from agentmem.adapters.local.rules.idiom_parts import OPENER, States, who
from agentmem.adapters.local.rules.lexicon import PREPOSITIONS, PRONOUNS, words

KEY = "hobby"
ABOUT = "What the subject does for fun."
MAX_WORDS = 4
NOT_HOBBIES = words(
    "a an the my your our his her their some any this that trouble debt bed shape character "
    "position gear work school college university it nothing everything anything arguments argument "
    "fights fight rows row debts habits"
)
HAVE = r"(?:'ve|\s+have|\s+has)?"
TIME_OFF = r"(?:(?:my|her|his|their)\s+)?(?:free|spare)\s+time"
OLD = r"(?P<old>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
GAVE_UP = r"(?:gave\s+up|given\s+up|quit|stopped|dropped)"
# The hobby given up in the sentence before ("I'm done with crossfit. I've taken up pilates instead.").
DONE_WITH = re.compile(
    rf"\b(?:done\s+with|gave\s+up|given\s+up|quit|stopped|over)\s+{OLD}(?=\s*(?:$|[.!;,]))", re.I
)


@lru_cache(maxsize=256)
def _patterns(third: str, first_person: bool) -> tuple[tuple[str, re.Pattern[str]], ...]:
    s = who(third, first_person)
    forms = (
        ("do", rf"(?P<subj>{OPENER}{s})\s+(?:do|does|go|goes)\s+"),
        ("into", rf"(?P<subj>(?:{OPENER})?{s}){HAVE}{ADV}\s+(?:gotten|got|been\s+getting|getting)"
                 rf"{ADV}\s+into\s+"),
        ("way", rf"(?P<subj>\bmy|(?:{third})'s)\s+favou?rite\s+way\s+to\s+"
                r"(?:unwind|relax|switch\s+off|de-?stress)\s+is\s+"),
        ("spends", rf"(?P<subj>{s})\s+spends?\s+{TIME_OFF}\s+(?:on\s+)?"),
        ("weekends", rf"(?P<subj>{s})\s+spends?\s+(?:most\s+)?(?:weekends|evenings|sundays|saturdays)"
                     r"\s+(?=\w+ing\b)"),
        ("gave_up", rf"(?P<subj>{s}){HAVE}{ADV}\s+{GAVE_UP}\s+{OLD}\s*[;,\u2014-]\s*(?:and\s+)?"
                    r"(?:(?:these\s+days|now|nowadays)\s*,?\s+)?it(?:'s|\s+is)\s+"),
        ("no_longer", rf"(?P<subj>{s})\s+no\s+longer\s+(?:does|do|plays?)\s+{OLD}\s*[;,\u2014-]\s*"
                      r"(?:and\s+)?(?:now|these\s+days|nowadays)\s*,?\s+(?:it(?:'s|\s+is)\s+)?"),
        ("instead", rf"(?P<subj>{s}){HAVE}{ADV}\s+"
                    r"(?:taken\s+up|took\s+up|picked\s+up|started|switched\s+to)\s+"),
    )  # fmt: skip
    return tuple((name, re.compile(p, re.I)) for name, p in forms)


def find(ctx: Context, sentence: str, states: States, before: str) -> Iterator[Found]:
    for name, pattern in _patterns(ctx.third, ctx.first_person):
        for m in pattern.finditer(sentence):
            rest = sentence[m.end() :]
            value = hobby(rest)
            if not value or not states(sentence, m.start("subj")):
                continue
            old = m.groupdict().get("old")
            if old and hobby(old) != values.trim(old):
                continue  # "I quit my job; now it's freelancing": what was given up is no hobby
            if name == "instead":  # "I've taken up X instead": only a replacement is a hobby
                if not re.match(rf"\s*{re.escape(value)}\s+instead\b", rest, re.I):
                    continue
                told = DONE_WITH.search(before) or re.search(rf"instead\s+of\s+{OLD}", rest, re.I)
                old = told.group("old") if told else None
            old = values.trim(old) if old and hobby(old) == values.trim(old) else None
            yield Found(m.start("subj"), KEY, value, f"{ctx.name}'s hobby is {value}.", description=ABOUT,
                        replaces=old)  # fmt: skip


def hobby(rest: str) -> str | None:
    """The hobby `rest` opens with: lowercase words up to the clause's end (or a preposition)."""
    text = re.sub(r"\s+instead\b.*$", "", values.clause(rest), flags=re.I)
    found = values.trim(text).split()
    cut = next((i for i, w in enumerate(found) if i and w.casefold() in PREPOSITIONS), len(found))
    found = found[:cut]
    if not found or len(found) > MAX_WORDS or not found[0][:1].islower():
        return None
    if found[0].casefold() in NOT_HOBBIES | PREPOSITIONS | {"to"} or any(
        w.casefold() in PRONOUNS for w in found
    ):
        return None
    value = " ".join(found)
    return value if values.is_value(value) else None
