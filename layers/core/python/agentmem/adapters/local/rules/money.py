"""Money the subject keeps for something: "I set aside $3,950 for travel this year", "we can
spend $1,750 on trips", "Priya has $3,800 to spend on travel", "we've budgeted $5,200 for
trips", and a correction: "it's $6,500 for travel, not $7,950". The key is `<thing>_budget`, as
"our travel budget is ..." gives it ("trips" and "travelling" are `travel`, "holidays" is
`holiday`); the value is the figure. A correction records the figure it denies in `replaces`.

Refused: money spent ("we spent $3,000 on travel"), someone else's ("my parents set aside ..."),
"can't spend", a price ("it's $45 for parking": the correction idiom needs "not $N" and a
correction word), time ("I set aside an hour")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from agentmem.adapters.local.rules.found import ADV, Context, Found, key_of
from agentmem.adapters.local.rules.idiom_parts import States, who
from agentmem.adapters.local.rules.readers import MONEY
from agentmem.adapters.local.rules.verdict_lexicon import CORRECTION

FIGURE = r"(?P<money>[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?k)?)"
THING = r"(?P<thing>[a-z]+)\b"
SAME_THING = {"trip": "travel", "trips": "travel", "travelling": "travel", "traveling": "travel",
              "travels": "travel", "holidays": "holiday", "vacations": "vacation"}  # fmt: skip
NOT_THINGS = frozenset(
    {"the", "a", "an", "my", "our", "their", "his", "her", "it", "that", "this", "me", "us"}
)


@lru_cache(maxsize=256)
def _patterns(third: str, first_person: bool) -> tuple[re.Pattern[str], ...]:
    s = who(third, first_person, we=True)
    forms = [
        rf"(?P<subj>{s})(?:'ve|\s+have|\s+has)?{ADV}\s+(?:set|put)\s+aside\s+{FIGURE}\s+(?:for|on)\s+{THING}",
        rf"(?P<subj>{s})(?:'ve|\s+have|\s+has)?{ADV}\s+budgeted\s+{FIGURE}\s+(?:for|on)\s+{THING}",
        rf"(?P<subj>{s})\s+can\s+spend\s+(?:up\s+to\s+|at\s+most\s+)?{FIGURE}\s+on\s+{THING}",
        rf"(?P<subj>{s})(?:'ve\s+got|\s+have\s+got|\s+has\s+got|\s+have|\s+has)\s+{FIGURE}\s+to\s+spend\s+on\s+{THING}",
    ]
    if first_person:
        forms.append(
            rf"(?P<subj>\bit)(?:'s|\s+is)\s+{FIGURE}\s+(?:for|on)\s+{THING}[^.;]*?\bnot\s+(?P<old>[$€£]\s?\d[\d,]*)"
        )
    return tuple(re.compile(p, re.I) for p in forms)


def find(ctx: Context, sentence: str, states: States, before: str) -> Iterator[Found]:
    for pattern in _patterns(ctx.third, ctx.first_person):
        for m in pattern.finditer(sentence):
            thing = m.group("thing").casefold()
            if thing in NOT_THINGS or not states(sentence, m.start("subj")):
                continue
            old = m.groupdict().get("old")
            if old and not (CORRECTION.search(sentence) or CORRECTION.search(before)):
                continue  # "it's $45 for parking, not $40" is a price
            thing = SAME_THING.get(thing, thing)
            key = key_of(f"{thing} budget")
            figure = MONEY.match(m.group("money"))
            if key and figure:
                value = figure.group(0).strip()
                yield Found(m.start("subj"), key, value, f"{ctx.name}'s {thing} budget is {value}.",
                            description=f"What the subject can spend on {thing}.",
                            replaces=old.strip() if old else None)  # fmt: skip
