"""Declarative shapes with a verb: "I live in Z", "I work at Z", "I'm 34", "I like Z", "I have 2
Z", "I started Z" and the rest docs/extraction-rules.md lists, each in the first person (the
subject's own voice) and the third ("Priya lives in Z"). A shape fires only when its subject opens
its clause and the sentence states it (see `sentences.states`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from agentmem.adapters.local.rules import values
from agentmem.adapters.local.rules.found import ADV, Context, Found, key_of, member_of, plural
from agentmem.adapters.local.rules.lexicon import COUNT_STOP, NUMBER_WORDS, PREPOSITIONS, PRONOUNS
from agentmem.model.beliefs import Cardinality

SET = Cardinality.SET
BE1, BE3 = r"(?:'m|\s+am)", r"\s+is"
PERFECT1, PERFECT3 = r"(?:'ve|\s+have)?", r"(?:\s+has)?"
NUMBER = r"\d[\d,]*|" + "|".join(NUMBER_WORDS) + "|no"
COUNT_TAIL = re.compile(
    r"\s*(?:$|[.!?;,]|\s(?:and|but|or|now|anymore|too|already|still|today|at|in|who|which|that|with|from)\b)",
    re.I,
)
MONEY = re.compile(
    r"(?:(?:about|around|roughly|approximately|over|under|almost|nearly|just over|just under)\s+)?"
    r"(?:[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|thousand|million))?|\d[\d,]*(?:\.\d+)?\s?(?:k|thousand|million)"
    r"(?:\s+(?:dollars|euros|pounds))?)"
    r"(?:\s+(?:a|an|per|each|every)\s+(?:year|month|week|hour|yr|annum)|\s+(?:annually|yearly|monthly|hourly|weekly))?"
    r"(?:\s+(?:before|after)\s+tax(?:es)?|\s+(?:gross|net))?",
    re.I,
)
ENDS = re.compile(r"\s*(?:$|[.!?;,]|\s(?:and|but|so|now|too)\b|\s+(?:to|with)\s)", re.I)
THIRD = {
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "prefer": "prefers",
    "adore": "adores",
    "hate": "hates",
    "dislike": "dislikes",
    "detest": "detests",
    "loathe": "loathes",
}
BASE = {third: base for base, third in THIRD.items()}
Groups = dict[str, str | None]
Reader = Callable[[Context, Groups, str, int], Iterator[Found]]


@dataclass(frozen=True)
class Shape:
    first: tuple[str, ...]  # the verb as it follows "I", one pattern per form
    third: tuple[str, ...]  # the verb as it follows "Priya"
    read: Reader  # (context, the match's groups, the sentence after the match, subject start) -> facts


def _residence(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    place = values.proper_name(rest)
    if place:
        yield Found(
            start, "city", place, f"{ctx.name} lives in {place}.", description="Where the subject lives."
        )


def _employer(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    org = values.organisation(rest) if m.get("prep") or m.get("at") else values.proper_name(rest)
    if not org:
        return
    yield Found(
        start, "employer", org, f"{ctx.name} works at {org}.", description="Who the subject works for."
    )
    role = re.match(r"\s+as\s+(?:an?\s+)?", rest[len(org) :])
    if role:
        yield from _occupation(ctx, m, rest[len(org) + role.end() :], start)


def _occupation(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    job = values.noun_phrase(rest)
    if not job:
        return
    sentence = f"{ctx.name} works as {values.article(job)} {job}."
    yield Found(start, "occupation", job, sentence, description="What the subject does for a living.")
    at = re.match(rf"\s*(?:an?\s+)?{re.escape(job)}\s+(?:at|for)\s+", rest, re.I)
    org = values.organisation(rest[at.end() :]) if at else None
    if org:
        yield Found(
            start, "employer", org, f"{ctx.name} works at {org}.", description="Who the subject works for."
        )


def _identity(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    noun = values.noun_phrase(rest, stop_at_prepositions=True)
    if not noun or noun.split()[0].casefold() in PRONOUNS:
        return
    value = f"no longer {values.article(noun)} {noun}" if m.get("neg") else noun
    sentence = f"{ctx.name} is {value}." if m.get("neg") else f"{ctx.name} is {values.article(noun)} {noun}."
    yield Found(start, "identity", value, sentence, SET, "What the subject says they are.", member_of(noun))


def _age(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    unit = re.match(r"\s*(?:(?:years?|yrs?)(?:\s+old)?|y/?o)\b", rest)
    tail = rest[unit.end() :] if unit else rest
    n = m.get("n") or "0"
    if 0 < int(n) <= 120 and ENDS.match(tail):
        yield Found(start, "age", n, f"{ctx.name} is {n} years old.", description="The subject's age.")


def _marital(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    status = (m.get("status") or "").casefold()
    yield Found(
        start,
        "marital_status",
        status,
        f"{ctx.name} is {status}.",
        description="The subject's marital status.",
    )


def _name(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    name = values.proper_name(rest)
    if name and ENDS.match(rest[len(name) :]):
        yield Found(start, "name", name, f"{ctx.name}'s name is {name}.", description="The subject's name.")


def _preference(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    thing = values.trim(values.clause(rest))
    if (
        not thing
        or not values.is_value(thing)
        or thing.split()[0].casefold() in PRONOUNS | {"the idea", "to think"}
    ):
        return
    verb = (m.get("verb") or "").casefold().replace("cannot", "can't").replace("can not", "can't")
    negation = " ".join((m.get("neg") or "").casefold().split())
    base = BASE.get(verb, verb)
    if negation in ("don't", "doesn't", "do not", "does not"):
        value = f"{'does not' if ' ' in negation else 'doesn' + chr(39) + 't'} {base} {thing}"
    else:
        value = f"{negation} {THIRD.get(base, base)} {thing}".strip()
    about = "Something the subject likes or dislikes."
    yield Found(start, "preference", value, f"{ctx.name} {value}.", SET, about, member_of(thing))


def _count(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    n, noun = (m.get("n") or "").casefold(), (m.get("noun") or "").casefold()
    if noun.split()[-1] in COUNT_STOP or any(w in PREPOSITIONS or w in PRONOUNS for w in noun.split()):
        return
    if n == "no" and plural(noun) != noun:
        return  # "no idea", "no time": only a plural counts ("no kids")
    key = key_of(plural(noun))
    if key:
        value = f"{n} {noun}"
        yield Found(
            start,
            key,
            value,
            f"{ctx.name} has {value}.",
            description=f"How many {plural(noun)} the subject has.",
        )


def _activity(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    words = values.clause(rest).split()
    first = words[0].casefold() if words else ""
    if not first or first in PRONOUNS | PREPOSITIONS | {
        "a",
        "an",
        "the",
        "my",
        "your",
        "our",
        "his",
        "their",
        "to",
    }:
        return
    if not words[0].islower() or first in {"working", "work", "job"}:
        return
    cut = next((i for i, w in enumerate(words) if i and w.casefold() in PREPOSITIONS), len(words))
    act = values.trim(" ".join(words[: min(cut, 4)]))
    if act and values.is_value(act):
        value = f"{(m.get('verb') or '').casefold()} {act}"
        yield Found(
            start,
            "activity",
            value,
            f"{ctx.name} {value}.",
            SET,
            "Something the subject started or stopped doing.",
            member_of(act),
        )


def _income(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    money = MONEY.match(rest)
    if money and ENDS.match(rest[money.end() :]):
        value = money.group(0).strip()
        yield Found(start, "income", value, f"{ctx.name} earns {value}.", description="The subject's income.")


def _hometown(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    place = values.proper_name(rest)
    if place:
        yield Found(
            start, "hometown", place, f"{ctx.name} is from {place}.", description="Where the subject is from."
        )


def _birth(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    year = re.match(r"(?:19|20)\d\d\b", rest)
    if year:
        yield Found(
            start,
            "birth_year",
            year.group(0),
            f"{ctx.name} was born in {year.group(0)}.",
            description="The year the subject was born.",
        )
    elif place := values.proper_name(rest):
        yield Found(
            start,
            "birthplace",
            place,
            f"{ctx.name} was born in {place}.",
            description="Where the subject was born.",
        )


def _allergy(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    for item in values.split_list(values.clause(rest)):
        if values.is_value(item):
            yield Found(
                start,
                "allergy",
                item,
                f"{ctx.name} is allergic to {item}.",
                SET,
                "Something the subject is allergic to.",
                member_of(item),
            )


LIKE = r"(?P<verb>like|love|enjoy|prefer|adore|hate|dislike|detest|loathe|can't stand|cannot stand)"
LIKES = (
    r"(?P<verb>likes?|loves?|enjoys?|prefers?|adores?|hates?|dislikes?|detests?|loathes?|"
    r"can't stand|cannot stand)"
)
COUNTED = rf"(?P<n>{NUMBER})\s+(?P<noun>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){{0,2}}?)(?={COUNT_TAIL.pattern})"
STATUS = r"(?P<status>married|single|divorced|engaged|widowed|separated)\b"
JOB = r"\s+(?:started|got|began|landed)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role)\s+(?P<at>at|with)\s+"
STARTED = r"(?:started|began)\s+working"
CHANGE = r"(?P<verb>started|stopped|quit|gave up|took up)\s+"
# Each shape: its verb forms after "I", its verb forms after "Priya", and its reader. A form is
# one pattern (group names may repeat across forms, not within one).
SHAPES = (
    Shape(
        (rf"{PERFECT1}{ADV}\s+(?:live|reside|moved|relocated)\s+(?:in|to)\s+",
         rf"{BE1}{ADV}\s+(?:living|based|staying)\s+in\s+"),
        (rf"{PERFECT3}{ADV}\s+(?:lives|resides|moved|relocated)\s+(?:in|to)\s+",
         rf"{BE3}{ADV}\s+(?:living|based|staying)\s+in\s+"),
        _residence,
    ),
    Shape(
        (rf"{ADV}\s+(?:work|{STARTED}|(?:'m|\s+am)\s+working)\s+(?P<prep>at|for)\s+", ADV + JOB,
         rf"{ADV}\s+joined\s+"),
        (rf"{ADV}\s+(?:works|{STARTED}|is\s+working)\s+(?P<prep>at|for)\s+", ADV + JOB,
         rf"{ADV}\s+joined\s+"),
        _employer,
    ),
    Shape(
        (rf"{ADV}\s+(?:work|(?:'m|\s+am)\s+working)\s+as\s+", rf"{BE1}\s+employed\s+as\s+"),
        (rf"{ADV}\s+(?:works|is\s+working)\s+as\s+", rf"{BE3}\s+employed\s+as\s+"),
        _occupation,
    ),
    Shape(
        (rf"{BE1}(?P<neg>\s+no\s+longer)?{ADV}\s+an?\s+",),
        (rf"{BE3}(?P<neg>\s+no\s+longer)?{ADV}\s+an?\s+",),
        _identity,
    ),
    Shape(
        (rf"{BE1}\s+(?P<n>\d{{1,3}})\b", rf"{ADV}\s+turned\s+(?P<n>\d{{1,3}})\b"),
        (rf"{BE3}\s+(?P<n>\d{{1,3}})\b", rf"{ADV}\s+turned\s+(?P<n>\d{{1,3}})\b"),
        _age,
    ),
    Shape(
        (rf"{BE1}{ADV}\s+{STATUS}", rf"{ADV}\s+got\s+{STATUS}"),
        (rf"{BE3}{ADV}\s+{STATUS}", rf"{ADV}\s+got\s+{STATUS}"),
        _marital,
    ),
    Shape((r"(?:'m|\s+am)\s+called\s+", r"\s+go\s+by\s+"), (r"\s+is\s+called\s+", r"\s+goes\s+by\s+"), _name),
    Shape(
        (rf"{ADV}(?:\s+(?P<neg>don't|do not|no longer|never))?{ADV}\s+{LIKE}\b\s+",),
        (rf"{ADV}(?:\s+(?P<neg>doesn't|does not|no longer|never))?{ADV}\s+{LIKES}\b\s+",),
        _preference,
    ),
    Shape(
        (rf"(?:'ve\s+got|'ve|\s+have\s+got|\s+have|\s+own){ADV}\s+{COUNTED}",),
        (rf"(?:\s+has\s+got|\s+has|\s+owns){ADV}\s+{COUNTED}",),
        _count,
    ),
    Shape((rf"{PERFECT1}{ADV}\s+{CHANGE}",), (rf"{PERFECT3}{ADV}\s+{CHANGE}",), _activity),
    Shape(
        (rf"{ADV}\s+(?:make|earn|take home|bring in)\s+", rf"{BE1}\s+(?:making|earning)\s+"),
        (rf"{ADV}\s+(?:makes|earns|takes home|brings in)\s+", rf"{BE3}\s+(?:making|earning)\s+"),
        _income,
    ),
    Shape((rf"{BE1}\s+(?:originally\s+)?from\s+",), (rf"{BE3}\s+(?:originally\s+)?from\s+",), _hometown),
    Shape((r"\s+was\s+born\s+in\s+",), (r"\s+was\s+born\s+in\s+",), _birth),
    Shape((rf"{BE1}\s+allergic\s+to\s+",), (rf"{BE3}\s+allergic\s+to\s+",), _allergy),
)  # fmt: skip
CALL_ME = re.compile(r"(?:^|(?<=[,;:]\s))(?P<subj>call\s+me)\s+", re.I)


@lru_cache(maxsize=256)
def _compiled(subject: str, first_person: bool) -> tuple[tuple[Shape, re.Pattern[str]], ...]:
    return tuple(
        (shape, re.compile(rf"(?P<subj>{subject})(?:{form})", re.I))
        for shape in SHAPES
        for form in (shape.first if first_person else shape.third)
    )


def find(ctx: Context, sentence: str, states: Callable[[str, int], bool]) -> Iterator[Found]:
    """Every shape's statements in `sentence` that `states` accepts, in no particular order."""
    for subject, first_person in ctx.subjects():
        for shape, pattern in _compiled(subject, first_person):
            for m in pattern.finditer(sentence):
                if states(sentence, m.start("subj")):
                    yield from shape.read(ctx, m.groupdict(), sentence[m.end() :], m.start("subj"))
    if ctx.first_person:
        for m in CALL_ME.finditer(sentence):
            if states(sentence, m.start("subj")):
                yield from _name(ctx, m.groupdict(), sentence[m.end() :], m.start("subj"))
