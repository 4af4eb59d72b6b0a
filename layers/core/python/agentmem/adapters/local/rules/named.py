"""Things the subject has that are named: a partner ("my partner Sam", "my wife's name is Ana",
"Maya's partner is called Noor") and a thing called by name ("we have a terrier called Biscuit",
"Maya has a collie named Bramble"). The key is the relation or the kind of thing, as "my partner
is Sam" and "my dog is Rex" give it; the value is the name, a capitalised word of the event's own.

People other than a partner are refused ("a brother called Tom" is the brother's fact, and a
subject may have many), and so is anything the subject does not have ("a book called Dune")."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from functools import lru_cache

from agentmem.adapters.local.rules import values
from agentmem.adapters.local.rules.found import ADV, Context, Found, key_of
from agentmem.adapters.local.rules.lexicon import COUNT_STOP, PARTNERS, PEOPLE, PREPOSITIONS, PRONOUNS

PARTNER = rf"(?P<rel>{'|'.join(sorted(PARTNERS, key=len, reverse=True))}|(?:other|better)\s+half)"
NAME = r"(?-i:(?P<name>[A-Z][a-z][\w'-]*))\b"
HAVE = r"(?:'ve\s+got|'ve|\s+have\s+got|\s+have|\s+own|\s+has\s+got|\s+has|\s+owns)"
KIND = r"(?P<kind>[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)"


@lru_cache(maxsize=256)
def _patterns(third: str, first_person: bool) -> tuple[re.Pattern[str], ...]:
    owner = rf"\bmy|{third}'s?" if first_person else rf"{third}'s?"
    holder = rf"\b[Ii]\b|\b[Ww]e\b|{third}" if first_person else third
    return (
        re.compile(rf"(?P<subj>{owner})\s+{PARTNER}\s*,?\s+{NAME}(?!\s+(?:and|&)\s)", re.I),
        re.compile(rf"(?P<subj>{owner})\s+{PARTNER}'s\s+name\s+is\s+", re.I),
        re.compile(rf"(?P<subj>{owner})\s+{PARTNER}\s+is\s+(?:called|named)\s+", re.I),
        re.compile(rf"(?P<subj>{holder}){ADV}{HAVE}{ADV}\s+an?\s+{KIND}\s*,?\s+(?:called|named)\s+", re.I),
    )


def find(ctx: Context, sentence: str, states: Callable[[str, int], bool]) -> Iterator[Found]:
    for pattern in _patterns(ctx.third, ctx.first_person):
        for m in pattern.finditer(sentence):
            if not states(sentence, m.start("subj")):
                continue
            groups = m.groupdict()
            name = groups.get("name") or values.proper_name(sentence[m.end() :])
            if not name or name.casefold() in PRONOUNS | {"i"}:
                continue
            if groups.get("rel"):
                relation = groups["rel"].casefold()
                relation = "partner" if relation.endswith("half") else relation  # "my other half"
                relation = ascii_word(relation)  # a key is ASCII: "fiancée" is `fiancee`
                yield Found(m.start("subj"), relation, name, f"{ctx.name}'s {relation} is {name}.",
                            description=f"The name of the subject's {relation}.")  # fmt: skip
            elif found := _thing(ctx, groups.get("kind") or "", name, m.start("subj")):
                yield found


def ascii_word(word: str) -> str:
    return unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()


def _thing(ctx: Context, kind: str, name: str, start: int) -> Found | None:
    words = kind.casefold().split()
    if any(w in PEOPLE or w in COUNT_STOP or w in PRONOUNS or w in PREPOSITIONS for w in words):
        return None
    key = key_of(" ".join(words))
    if key is None:
        return None
    sentence = f"{ctx.name} has {values.article(kind)} {kind} called {name}."
    return Found(start, key, name, sentence, description=f"The name of the subject's {kind}.")
