"""What each shape reads after its verb: a place, an organisation, a figure, an object. Each
reader gets the match's groups, the rest of the sentence and where the subject starts, and yields
the facts it finds (none when what follows is no value: see `values.is_value`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from agentmem.adapters.local.rules import values
from agentmem.adapters.local.rules.found import Context, Found, key_of, member_of, plural
from agentmem.adapters.local.rules.lexicon import COUNT_STOP, NUMBER_WORDS, PREPOSITIONS, PRONOUNS
from agentmem.model.beliefs import Cardinality

SET = Cardinality.SET
SINGLE = frozenset({"one", "a", "an", "1"})  # counts the noun stays singular after
Groups = dict[str, str | None]
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
PARENT_OF = re.compile(
    rf"(?:parent|mother|father|mum|mom|dad)\s+of\s+(?P<n>\d+|{'|'.join(NUMBER_WORDS)})(?:\s+(?P<noun>children|kids))?",
    re.I,
)


def residence(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    place = values.proper_name(rest)
    if place:
        yield Found(
            start, "city", place, f"{ctx.name} lives in {place}.", description="Where the subject lives."
        )


def employer(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    org = values.organisation(rest) if m.get("prep") or m.get("at") else values.proper_name(rest)
    if not org:
        return
    yield Found(
        start, "employer", org, f"{ctx.name} works at {org}.", description="Who the subject works for."
    )
    role = re.match(r"\s+as\s+(?:an?\s+)?", rest[len(org) :])
    if role:
        yield from occupation(ctx, m, rest[len(org) + role.end() :], start)


def occupation(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
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


def identity(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    noun = values.noun_phrase(rest, stop_at_prepositions=True)
    if not noun or noun.split()[0].casefold() in PRONOUNS:
        return
    if {"resident", "local", "inhabitant"} & set(noun.casefold().split()):
        return  # "a Gdańsk resident", "a long-time resident of Leeds": a city (household.py)
    parent = PARENT_OF.fullmatch(noun)
    if parent and not m.get("neg"):  # "I'm a parent of two children": a count, like "I have 2 children"
        if parent.group("noun"):
            yield from counted(ctx, {"n": parent.group("n"), "noun": parent.group("noun")}, "", start)
        else:  # "a parent of four": the count alone, no noun the event did not say
            n = parent.group("n").casefold()
            yield Found(start, "children", n, f"{ctx.name} is a parent of {n}.",
                        description="How many children the subject has.")  # fmt: skip
        return
    value = f"no longer {values.article(noun)} {noun}" if m.get("neg") else noun
    sentence = f"{ctx.name} is {value}." if m.get("neg") else f"{ctx.name} is {values.article(noun)} {noun}."
    yield Found(start, "identity", value, sentence, SET, "What the subject says they are.", member_of(noun))


def age(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    unit = re.match(r"\s*(?:(?:years?|yrs?)(?:\s+old)?|y/?o)\b", rest)
    tail = rest[unit.end() :] if unit else rest
    n = m.get("n") or "0"
    # "I turned 34 in March": a time word may close the clause; "I'm 30 minutes late" may not.
    if 0 < int(n) <= 120 and (ENDS.match(tail) or not values.tail_words(tail)):
        yield Found(start, "age", n, f"{ctx.name} is {n} years old.", description="The subject's age.")


def diet(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    kind = (m.get("diet") or "").casefold()
    # "I eat keto these days and feel better": a second verb without its subject ends the clause
    after = values.tail_words(re.split(r"\s+(?:and|but)\s+", rest, maxsplit=1)[0])
    # "I'm vegan", "I eat vegan at home"; but "vegan cheese", "vegetarian restaurants" name no diet
    if kind and (not after or after[0].casefold() in PREPOSITIONS | {"food", "mostly", "diet", "eating"}):
        yield Found(
            start, "diet", kind, f"{ctx.name} eats {kind}.", description="The diet the subject follows."
        )


def marital(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    status = (m.get("status") or "").casefold()
    yield Found(
        start,
        "marital_status",
        status,
        f"{ctx.name} is {status}.",
        description="The subject's marital status.",
    )


def given_name(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    name = values.proper_name(rest)
    if name and ENDS.match(rest[len(name) :]):
        yield Found(start, "name", name, f"{ctx.name}'s name is {name}.", description="The subject's name.")


def preference(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    thing = values.trim(values.clause(rest))
    if (
        not thing
        or not values.is_value(thing)
        or thing.split()[0].casefold() in PRONOUNS
        or " ".join(thing.split()[:2]).casefold() in {"the idea", "to think"}
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


def counted(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    n, noun = (m.get("n") or "").casefold(), (m.get("noun") or "").casefold()
    if noun.split()[-1] in COUNT_STOP or any(w in PREPOSITIONS or w in PRONOUNS for w in noun.split()):
        return
    if n == "no" and plural(noun) != noun:
        return  # "no idea", "no time": only a plural counts ("no kids")
    if not counts_things(n, noun):
        return
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


def counts_things(n: str, noun: str) -> bool:
    """Whether "<n> <noun>" counts things the subject has. Not when the noun is a number ("one
    eighty-nine": a model year), nor when a count above one meets a noun that is not plural
    ("four altogether", "three playing baseball": the things counted went unsaid)."""
    if any(part in NUMBER_WORDS for word in noun.split() for part in word.split("-")):
        return False
    return n in SINGLE or plural(noun) == noun


def activity(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
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
    if not words[0].islower() or first in {"working", "work", "job", "being"}:
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


def income(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    money = MONEY.match(rest)
    if money and ENDS.match(rest[money.end() :]):
        value = money.group(0).strip()
        yield Found(start, "income", value, f"{ctx.name} earns {value}.", description="The subject's income.")


def hometown(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
    place = values.proper_name(rest)
    if place:
        yield Found(
            start, "hometown", place, f"{ctx.name} is from {place}.", description="Where the subject is from."
        )


def birth(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
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


def allergy(ctx: Context, m: Groups, rest: str, start: int) -> Iterator[Found]:
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
