"""A plan: "we're planning a ski season in Hokkaido", "Priya is planning / working towards /
saving up for X", "the big plan for next year is X", "Upcoming plan: X" (an agent's note), and
its change: "change of plans: instead of Y, it's X", "we've cancelled Y; now we're planning X".
The key is `plan` (single: a new plan replaces the old one, and a change records the old plan in
`replaces`).

A plan is a noun phrase led by "a"/"an", or "the" before a capitalised name ("the Berlin
marathon"), at most 12 words, trailing time words trimmed. So "we're planning to repaint the
hallway" and "I'm planning the agenda for Thursday" (a task) give nothing, and so do "we were
planning ...", "I'm not planning ...", "my sister is planning ..."."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from agentmem.adapters.local.rules import values
from agentmem.adapters.local.rules.found import ADV, Context, Found
from agentmem.adapters.local.rules.idiom_parts import States, who

KEY = "plan"
ABOUT = "What the subject is planning."
MAX_WORDS = 12
IDIOMS = re.compile(r"an?\s+rainy\s+day\b", re.I)  # "saving for a rainy day" plans nothing
PHRASE = re.compile(r"(?:an?\s+[a-z]|the\s+(?-i:[A-Z]))", re.I)
PLANNING = r"(?:planning|organi[sz]ing|working\s+towards?|saving\s+(?:up\s+)?for)"
TIME = (
    r"(?:next|this)\s+(?:year|summer|winter|spring|autumn|month)|the\s+(?:summer|winter|spring|autumn|year)"
)
PLAN_NOUN = rf"(?:(?:big|main|next|upcoming)\s+)?plans?(?:\s+for\s+(?:{TIME}))?"
LABEL = re.compile(
    r"^[ \t]*(?:[-*\u2022][ \t]+)?(?P<subj>(?:(?:upcoming|next|big|main|current)\s+)?plans?)[ \t]*:[ \t]*",
    re.I | re.M,
)
CHANGE_OF_PLANS = re.compile(
    r"(?P<subj>change\s+of\s+plans?)\s*[:,\u2014-]?\s*instead\s+of\s+(?P<old>[^,;:]+?)\s*,\s*"
    r"it(?:'s|\s+is|'ll\s+be|\s+will\s+be)\s+",
    re.I,
)
# "Priya dropped a ski season in Hokkaido in favour of the Berlin marathon": both plans' phrases.
FAVOUR_OF = r"(?:dropped|cancell?ed|scrapped)\s+(?P<old>(?:an?|the)\s+[^,;:.]+?)\s+in\s+favou?r\s+of\s+"
DROPPED = re.compile(
    r"\b(?:cancell?ed|scrapped|dropped|shelved|called\s+off|instead\s+of)\s+(?P<old>(?:an?|the)\s+[^,;:.]+?)"
    r"(?=\s*(?:$|[,;:.\u2014])|\s+(?:and|but|so|now)\b)",
    re.I,
)


@lru_cache(maxsize=256)
def _patterns(third: str, first_person: bool) -> tuple[re.Pattern[str], ...]:
    subject = who(third, first_person, we=True)
    owners = rf"my|our|the|(?:{third})'s" if first_person else rf"(?:{third})'s"
    return (
        re.compile(rf"(?P<subj>{subject})(?:'m|'re|\s+am|\s+are|\s+is){ADV}\s+{PLANNING}\s+", re.I),
        re.compile(rf"(?P<subj>{subject})(?:'ve|\s+have|\s+has)?{ADV}\s+{FAVOUR_OF}", re.I),
        re.compile(rf"(?P<subj>\b(?:{owners}))\s+{PLAN_NOUN}\s+is\s+", re.I),
    )


def is_plan_label(label: str) -> bool:
    """Whether a `Label: value` line is a plan's, which this module reads (not `labels.py`)."""
    return LABEL.match(f"{label.strip()}:") is not None


def find(ctx: Context, sentence: str, states: States, before: str) -> Iterator[Found]:
    del before
    starts: list[tuple[int, str]] = []
    if ctx.first_person:
        starts += [(m.start("subj"), sentence[m.end() :]) for m in CHANGE_OF_PLANS.finditer(sentence)]
    else:
        starts += [(m.start("subj"), sentence[m.end() :]) for m in LABEL.finditer(sentence)]
    for pattern in _patterns(ctx.third, ctx.first_person):
        starts += [(m.start("subj"), sentence[m.end() :]) for m in pattern.finditer(sentence)]
    for start, rest in starts:
        value = plan(rest)
        if value and states(sentence, start):
            yield Found(start, KEY, value, f"{ctx.name} is planning {value}.", description=ABOUT,
                        replaces=_old(sentence, value))  # fmt: skip


def plan(rest: str) -> str | None:
    """The plan `rest` opens with, or None when it is no plan's noun phrase."""
    if not PHRASE.match(rest):
        return None
    value = values.trim(values.clause(rest))
    if len(value.split()) > MAX_WORDS or not values.is_value(value) or IDIOMS.match(value):
        return None
    return value


def _old(sentence: str, value: str) -> str | None:
    """The plan a change drops: "instead of Y", "we've cancelled Y"."""
    favour = re.finditer(FAVOUR_OF, sentence, re.I)
    for m in (*CHANGE_OF_PLANS.finditer(sentence), *favour, *DROPPED.finditer(sentence)):
        old = values.trim(m.group("old"))
        if old and old.casefold() != value.casefold() and PHRASE.match(old):
            return old
    return None
