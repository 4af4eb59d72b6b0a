"""The subject's household said in passing: an age in apposition ("Priya, aged 49, asked ...",
"Priya, 52,", "Priya (age 38)") or after a birthday ("I had my birthday on Sunday — 28 now!"), a
partner lived with ("Priya lives with her partner Sam", "I live with my girlfriend Ada"), a
partner or a pet in apposition ("I'll check with Cormac, my partner", "I'll be home for Figaro,
my budgie"), a residence ("Priya is a Gdańsk resident", "a long-time resident of Leeds"), a
household line ("Household: a cat, Kiwi (a tabby)") and a pet corrected ("Pepper was our old
cat. The one we have now is Dot").

Keys as the other shapes give them: `age`; the relation (`partner`, `wife`, ...); the pet's
kind (`budgie`; on a household line the kind in brackets, "a tabby", as "a tabby called Kiwi"
gives it); `city`. A person other than a partner is refused ("Kofi, my brother"), and so is
anything not the subject's ("Rex, my neighbour's dog")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from agentmem.adapters.local.rules import values
from agentmem.adapters.local.rules.found import ADV, Context, Found, key_of
from agentmem.adapters.local.rules.idiom_lexicon import PETS
from agentmem.adapters.local.rules.idiom_parts import States, free
from agentmem.adapters.local.rules.named import PARTNER, ascii_word

NAME = r"(?-i:(?P<name>[A-Z][a-z][\w'-]*))"
PET = r"(?P<kind>" + "|".join(sorted(PETS, key=len, reverse=True)) + r")"
ANY_PET = PET.replace("?P<kind>", "")
ENDS = r"(?=\s*(?:$|[.,;!?)\u2014-]))"
HOUSEHOLD = re.compile(
    r"^[ \t]*(?:[-*\u2022][ \t]+)?(?P<subj>household|pets?|animals?)[ \t]*:[ \t]*"
    rf"an?\s+(?P<kind>[a-z][\w-]*)\s*,\s+{NAME}"
    r"(?:\s*\(an?\s+(?P<breed>[A-Za-z][\w-]*)\))?",
    re.I,
)
OLD_PET = re.compile(
    rf"(?-i:(?P<old>[A-Z][a-z][\w'-]*))\s+was\s+(?:our|my)\s+(?:old|previous|last|former)\s+{PET}\b", re.I
)
NOW_PET = re.compile(
    rf"(?P<subj>\bthe\s+(?:current\s+)?(?:one|{PET}))(?:\s+(?:we|I)\s+(?:have|'ve\s+got|own)(?:\s+now)?)?\s+is\s+{NAME}{ENDS}",
    re.I,
)


@lru_cache(maxsize=256)
def _patterns(third: str, first_person: bool) -> tuple[tuple[str, re.Pattern[str]], ...]:
    forms = [
        ("age", rf"(?P<subj>{third})\s*(?:,\s*(?:aged?\s+)?(?P<n>\d{{1,3}})\s*,"
                r"|\(\s*(?:aged?\s+)?(?P<m>\d{1,3})\s*\))"),
        ("lives_with", rf"(?P<subj>{third}){ADV}\s+lives\s+with\s+(?:her|his|their)\s+{PARTNER}"
                       rf"\s*,?\s+{NAME}"),
        ("resident", rf"(?P<subj>{third})\s+is{ADV}\s+an?\s+(?:(?:long-?time|lifelong)\s+)?"),
    ]  # fmt: skip
    if first_person:
        forms += [
            ("lives_with", rf"(?P<subj>\b[Ii]){ADV}\s+live\s+with\s+my\s+{PARTNER}\s*,?\s+{NAME}"),
            ("resident", rf"(?P<subj>\b[Ii])(?:'m|\s+am){ADV}\s+an?\s+(?:(?:long-?time|lifelong)\s+)?"),
            ("home", r"(?P<subj>\bhome)\s+(?:for\s+(?:us|me)\s+)?is\s+"),
            # "I had my birthday on Sunday — 28 now!": the age said after a break, "now" or "today"
            # (the statement is the age's clause: "I had my birthday" before it is no hedge)
            ("age", r"\bmy\s+birthday\b[^.!?;]{0,40}?(?:\s*[\u2014\u2013,;:-]\s*|\s+and\s+)"
                    r"(?P<subj>(?:(?:I'm|I\s+am)\s+)?(?P<n>\d{1,3}))\s+(?:now|today)\b"),
            ("our_pet", rf"(?P<subj>\b(?:my|our))\s+(?P<kind>(?:[a-z][\w-]*\s+)?{ANY_PET})\s*,\s+{NAME}\s*,"),
            ("apposition", rf"(?<![\w'-]){NAME}\s*,\s+(?P<subj>my|our)\s+(?:{PARTNER}|{PET}){ENDS}"),
        ]  # fmt: skip
    return tuple((name, re.compile(p, re.I)) for name, p in forms)


def find(ctx: Context, sentence: str, states: States, before: str) -> Iterator[Found]:
    for name, pattern in _patterns(ctx.third, ctx.first_person):
        for m in pattern.finditer(sentence):
            start = m.start("subj") if name != "apposition" else m.start("name")
            if name == "apposition" and not free(sentence, start):
                continue
            if name != "apposition" and not states(sentence, start):
                continue
            found = _read(ctx, name, m, sentence[m.end() :], start)
            if found:
                yield found
    yield from _pets(ctx, sentence, states, before)


def _read(ctx: Context, name: str, m: re.Match[str], rest: str, start: int) -> Found | None:
    groups = m.groupdict()
    if name == "age":
        n = groups.get("n") or groups.get("m") or "0"
        if 0 < int(n) <= 120:
            return Found(start, "age", n, f"{ctx.name} is {n} years old.", description="The subject's age.")
        return None
    if name in ("resident", "home"):
        place = _residence(rest) if name == "resident" else values.proper_name(rest)
        return Found(start, "city", place, f"{ctx.name} lives in {place}.",
                     description="Where the subject lives.") if place else None  # fmt: skip
    person = groups.get("rel")
    if person:
        relation = ascii_word("partner" if person.casefold().endswith("half") else person.casefold())
        return Found(start, relation, groups["name"], f"{ctx.name}'s {relation} is {groups['name']}.",
                     description=f"The name of the subject's {relation}.")  # fmt: skip
    return _pet(ctx, groups.get("kind") or "", groups["name"], start)


def _residence(rest: str) -> str | None:
    """ "Gdańsk resident", "resident of Leeds", "Leeds local": the place."""
    of = re.match(r"(?:resident|local|inhabitant)\s+of\s+", rest, re.I)
    if of:
        return values.proper_name(rest[of.end() :])
    place = values.proper_name(rest)
    if place and re.match(r"\s+(?:resident|local)\b", rest[len(place) :], re.I):
        return place
    return None


def _pet(ctx: Context, kind: str, name: str, start: int, old: str | None = None) -> Found | None:
    """`kind` is a word of PETS, or the breed in brackets after one."""
    key = key_of(kind.casefold())
    if not key:
        return None
    return Found(start, key, name, f"{ctx.name} has {values.article(kind)} {kind.casefold()} called {name}.",
                 description=f"The name of the subject's {kind.casefold()}.", replaces=old)  # fmt: skip


def _pets(ctx: Context, sentence: str, states: States, before: str) -> Iterator[Found]:
    for m in HOUSEHOLD.finditer(sentence):
        kind = m.group("breed") or m.group("kind")  # "a cat, Kiwi (a tabby)": as "a tabby called Kiwi"
        if m.group("kind").casefold() in PETS and (
            found := _pet(ctx, kind, m.group("name"), m.start("subj"))
        ):
            yield found
    if not ctx.first_person:
        return
    for m in NOW_PET.finditer(sentence):
        was = list(OLD_PET.finditer(sentence[: m.start()])) or list(OLD_PET.finditer(before))
        if not was or not states(sentence, m.start("subj")):
            continue
        kind = m.group("kind") or was[-1].group("kind")
        old = was[-1].group("old")
        if old.casefold() != m.group("name").casefold() and (
            found := _pet(ctx, kind, m.group("name"), m.start("subj"), old)
        ):
            yield found
