"""Where the subject works, said as an idiom: "I'm on the data team at Acme", "I'm in the finance
department at Siemens", "I've been with Halcyon Logistics for years", "I handed in my notice at
Y; my first week at Acme went well", "New job! I'm at Acme now, no more Y". The key is
`employer`, as "I work at Acme" gives it; a change records the old employer in `replaces`.

Guards: "been with X" only when X's last word marks an organisation (`ORG_WORDS`: "I've been
with Tomasz for nine years" names a person); "my first week at X" and "I'm at X" only when the
sentence or the one before speaks of a job ("notice", "new job", "resigned", ...): "I'm at
Heathrow" and "my first week at Oxford" name no employer."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from agentmem.adapters.local.rules import values
from agentmem.adapters.local.rules.found import ADV, Context, Found
from agentmem.adapters.local.rules.idiom_lexicon import ORG_WORDS
from agentmem.adapters.local.rules.idiom_parts import States, who

KEY = "employer"
ABOUT = "Who the subject works for."
UNIT = r"(?:team|department|dept|group|unit|squad|division|desk)"  # not "office": "in the office at Heathrow"
JOB_TALK = re.compile(
    r"\b(?:new\s+(?:job|role|position|employer)|job|notice|resign(?:ed)?|hired|changed\s+jobs|employer)\b",
    re.I,
)
LEFT = re.compile(r"\b(?:notice\s+at|resigned\s+from|left|quit|no\s+more|no\s+longer\s+at)\s+", re.I)


@lru_cache(maxsize=256)
def _patterns(third: str, first_person: bool) -> tuple[tuple[str, re.Pattern[str]], ...]:
    s = who(third, first_person)
    owner = rf"\bmy|(?:{third})'s" if first_person else rf"(?:{third})'s"
    forms = [
        ("team", rf"(?P<subj>{s})(?:'m|\s+am|\s+is){ADV}\s+(?:on|in|part\s+of)\s+(?:the|a|an)\s+"
                 rf"(?:[\w&-]+\s+){{0,3}}?{UNIT}\s+(?:at|for|of)\s+"),
        ("been_with", rf"(?P<subj>{s})(?:'ve|\s+have|\s+has){ADV}\s+been\s+with\s+"),
        ("first", rf"(?P<subj>{owner})\s+first\s+(?:day|days|week|weeks|month|months)\s+(?:at|with)\s+"),
    ]  # fmt: skip
    if first_person:  # "I'm at Acme now": only beside talk of a job (see `find`)
        forms.append(("at", rf"(?P<subj>\b[Ii])(?:'m|\s+am){ADV}\s+at\s+"))
    return tuple((name, re.compile(p, re.I)) for name, p in forms)


def find(ctx: Context, sentence: str, states: States, before: str) -> Iterator[Found]:
    for name, pattern in _patterns(ctx.third, ctx.first_person):
        for m in pattern.finditer(sentence):
            org = values.proper_name(sentence[m.end() :])
            if not org or not states(sentence, m.start("subj")):
                continue
            if name == "been_with" and org.split()[-1].casefold().rstrip(".") not in ORG_WORDS:
                continue
            if name in ("first", "at") and not (JOB_TALK.search(sentence) or JOB_TALK.search(before)):
                continue
            yield Found(m.start("subj"), KEY, org, f"{ctx.name} works at {org}.", description=ABOUT,
                        replaces=_left(sentence, org))  # fmt: skip


def _left(sentence: str, org: str) -> str | None:
    """The employer the sentence says was left: "handed in my notice at Y", "no more Y"."""
    for m in LEFT.finditer(sentence):
        old = values.proper_name(sentence[m.end() :])
        if old and old.casefold() != org.casefold():
            return old
    return None
