"""A favourite cuisine said as an idiom: "nothing beats Basque food (for me)", "if I could eat
one cuisine forever it would be Keralan", "I'd take Turkish over Basque", "Yemeni is my
favourite", "Priya always picks Sichuan restaurants". The key is `favorite_cuisine`, as "my
favourite cuisine is X" gives it ("Z is my favourite N" gives `favorite_N`).

A cuisine is a word of `idiom_lexicon.CUISINES`, or a capitalised word before a food noun
("Basque food", "Burmese places"): "nothing beats Lisbon in the spring" and "I'd take the train
over the bus" name none. The idioms are the subject's own voice, except "for Priya, nothing
beats ..." and "Priya always picks ...", which name her."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from agentmem.adapters.local.rules import values
from agentmem.adapters.local.rules.found import ADV, Context, Found, key_of
from agentmem.adapters.local.rules.idiom_lexicon import CUISINE, FOOD_NOUNS
from agentmem.adapters.local.rules.idiom_parts import States, who
from agentmem.adapters.local.rules.lexicon import PRONOUNS
from agentmem.adapters.local.rules.shapes import DIET
from agentmem.adapters.local.rules.verdict_lexicon import CHANGE

KEY = "favorite_cuisine"
ABOUT = "The subject's favourite cuisine."
NAMED = re.compile(rf"(?-i:(?P<cuisine>[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?))\s+(?:{FOOD_NOUNS})\b")
CAPITALISED = r"(?-i:[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)"
FOREVER = r"(?:\s+(?:forever|for\s+ever|for\s+the\s+rest\s+of\s+my\s+life))?"
FAVOURITE = r"favou?rite(?:\s+(?P<noun>[a-z]+))?"
# "Anything we cook has to be low-sodium for me": the subject's diet ("we" only with "for me").
MUST_BE = re.compile(
    rf"(?P<subj>\b(?:everything|anything|whatever|all)\s+(?:(?P<i>I)|we)\s+(?:eat|cook|make|order)\s+"
    rf"(?:has|needs|have|need)\s+to\s+be)\s+{DIET}(?P<tail>\s+for\s+me\b)?(?=\s*(?:$|[.!;,]|for\s))",
    re.I,
)
# What was given up for the new favourite: "over Basque", "I'm over Thai", "done with Spanish food".
MOVED_ON = re.compile(r"(?:'m|\bam)\s+(?:so\s+)?over\b|\bdone\s+with\b|\bgone\s+off\b", re.I)
GIVEN_UP = re.compile(r"\b(?:over|done\s+with|gone\s+off|instead\s+of|rather\s+than)\s+", re.I)


@lru_cache(maxsize=256)
def _patterns(third: str, first_person: bool) -> tuple[tuple[str, re.Pattern[str]], ...]:
    subject = who(third, first_person)
    found = [
        ("beats", rf"(?P<subj>for\s+(?:{third})\s*,?\s+nothing)\s+beats\s+"),
        ("picks", rf"(?P<subj>{subject})\s+(?:always|usually|generally|mostly|nearly\s+always)\s+"
                  r"(?:picks?|chooses?|goes\s+for|go\s+for|orders?|books?)\s+"),
        ("favourite", rf"(?P<subj>{CAPITALISED})\s+is\s+(?:now\s+)?(?:{third})'s\s+{FAVOURITE}"),
    ]  # fmt: skip
    if first_person:
        found += [
            ("beats", r"(?P<subj>(?:for\s+me\s*,?\s+)?nothing)\s+beats\s+"),
            ("forever", r"(?P<subj>if)\s+I\s+(?:could|had\s+to)\s+(?:only\s+)?(?:eat|pick|choose)\s+"
                        rf"(?:only\s+)?one\s+(?P<noun>cuisine|food|kind\s+of\s+food){FOREVER}\s*,?\s+it(?:'d|\s+would)\s+be\s+"),
            ("over", rf"(?P<subj>\bI)(?:'d|\s+would){ADV}\s+(?:take|pick|choose|have|go\s+for)\s+"),
            ("favourite", rf"(?P<subj>{CAPITALISED})\s+is\s+(?:now\s+)?my\s+(?:new\s+)?{FAVOURITE}"),
        ]  # fmt: skip
    return tuple((name, re.compile(p, re.I)) for name, p in found)


def cuisine(rest: str, *, bare: bool = True) -> str | None:
    """The cuisine `rest` opens with: a lexicon word (when `bare` allows one without a food noun)
    or a capitalised word before a food noun."""
    named = NAMED.match(rest)
    if named:
        return named.group("cuisine")
    m = CUISINE.match(rest)
    return m.group("cuisine") if m and bare else None


def find(ctx: Context, sentence: str, states: States, before: str) -> Iterator[Found]:
    del before
    for name, pattern in _patterns(ctx.third, ctx.first_person):
        for m in pattern.finditer(sentence):
            if not states(sentence, m.start("subj")):
                continue
            found = _read(ctx, name, m, sentence)
            if found:
                yield found
    for m in MUST_BE.finditer(sentence) if ctx.first_person else ():
        if (m.group("i") or m.group("tail")) and states(sentence, m.start("subj")):
            kind = m.group("diet").casefold()
            yield Found(m.start("subj"), "diet", kind, f"{ctx.name} eats {kind}.",
                        description="The diet the subject follows.")  # fmt: skip


def _read(ctx: Context, name: str, m: re.Match[str], sentence: str) -> Found | None:
    rest = sentence[m.end() :]
    key = KEY
    if name == "favourite":  # "Yemeni is my favourite (cuisine)": the value comes first
        value, noun = m.group("subj"), m.group("noun")
        if value.split()[0].casefold() in PRONOUNS:
            return None  # "This is my favourite restaurant": names nothing
        tail = values.tail_words(f" {noun or ''}{rest}")
        if tail not in ([], [noun]):
            return None  # "Blue is my favourite colour of all" or more: not the idiom
        noun = noun if tail else None  # "my favourite these days": a time word, no noun
        if noun:
            key = key_of(f"favorite {noun}") or KEY
        elif cuisine(value) != value:
            return None  # "Blue is my favourite": no attribute named, and no cuisine
    elif name == "picks":
        value = cuisine(rest, bare=False) or ""  # "always picks Sichuan restaurants": a food noun
    elif name == "forever" and "cuisine" not in m.group("noun").casefold():
        key, value = "favorite_food", values.trim(values.clause(rest))
        if not values.is_value(value):
            return None
    else:
        value = cuisine(rest) or ""
    if not value:
        return None
    noun = key.removeprefix("favorite_").replace("_", " ")
    return Found(m.start("subj"), key, value, f"{ctx.name}'s favourite {noun} is {value}.",
                 description=ABOUT if key == KEY else f"The subject's favourite {noun}.",
                 replaces=_given_up(sentence, value))  # fmt: skip


def _given_up(sentence: str, value: str) -> str | None:
    """The cuisine a change gives up ("these days I'd take X over Y", "I'm over Y; X is my
    favourite"), only when the sentence tells a change: "I'd take X over Y any day" is a
    preference, not a change."""
    if not (CHANGE.search(sentence) or MOVED_ON.search(sentence)):
        return None
    for m in GIVEN_UP.finditer(sentence):
        old = cuisine(sentence[m.end() :])
        if old and old.casefold() != value.casefold():
            return old
    return None
