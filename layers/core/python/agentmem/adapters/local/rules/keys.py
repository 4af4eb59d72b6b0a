"""The local decision of the key resolver: does a proposed key mean what a candidate key means?

Both keys are read as words (`home_city` is "home city"), spelt one way (favourite -> favorite),
phrases written several ways joined (`date_of_birth` is `birth_date`), and each word mapped to a
concept of a small synonym lexicon (salary, pay and earnings are income; food, cuisine and dish
are food). The two mean the same when they read alike once words that change nothing about what
is held are dropped: from either key the vacuous ones ("home", "current", "annual", a trailing
"name" or "number"), from the proposal alone the narrowing ones ("investment": `preference`
never becomes `investment_preference`, which says more). An animal's kind or breed used as a key
for an animal the subject has is that pet (`whippet` is the `dog`, any kind is the `pet`); a
count ("2 dogs") is not. Two keys with the same non-empty description also mean the same. The
words are in key_lexicon.py."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence

from agentmem.adapters.local.rules.key_lexicon import (
    COMPOUNDS,
    CONCEPTS,
    COUNTED,
    NARROWING,
    NUMBER_WORDS,
    PET,
    PET_KINDS,
    TRAILING,
    VACUOUS,
)
from agentmem.adapters.local.rules.lexicon import SPELLING
from agentmem.adapters.local.rules.verdict_lexicon import stem
from agentmem.model.beliefs import KeyCandidate, KeyChoice, KeyProposal, normalise_value


def singular(word: str) -> str:
    """A plural made singular the plain way: enough to match phrases and tell `dogs` from `dog`."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


_COMPOUNDS = sorted(
    ((tuple(singular(p) for p in parts), joined) for parts, joined in COMPOUNDS.items()),
    key=lambda c: -len(c[0]),  # the longest phrase first: "place of residence" before "residence"
)


def key_words(key: str) -> list[str]:
    """The key's words, spelt one way, phrases joined: `home_town` gives ["hometown"], and a
    leading "number of" is dropped (`number_of_children` holds the children, counted)."""
    return list(_key_words(key))


@functools.lru_cache(maxsize=4096)  # a proposal is read against every shortlisted key, per batch
def _key_words(key: str) -> tuple[str, ...]:
    found = [SPELLING.get(w, w) for w in key.casefold().split("_") if w]
    for parts, joined in _COMPOUNDS:
        i = 0
        while i <= len(found) - len(parts):
            if tuple(singular(w) for w in found[i : i + len(parts)]) == parts:
                found[i : i + len(parts)] = [joined]
            i += 1
    for lead in COUNTED:
        if tuple(found[: len(lead)]) == lead and len(found) > len(lead):
            return tuple(found[len(lead) :])
    return tuple(found)


def counts(text: str, word: str) -> bool:
    """Does `text` count the animal rather than name one ("2 dogs", "two cats")?"""
    number = r"(?:\d+|" + "|".join(sorted(NUMBER_WORDS)) + ")"
    animal = re.escape(singular(word).replace("_", " "))
    return re.search(rf"\b{number}\s+(?:\w+\s+)?{animal}", text, re.IGNORECASE) is not None


def concepts(found: list[str], said: str = "") -> list[str]:
    """Each word as its concept, or its stem: ["salaries"] gives ["income"]. An animal named in
    the singular, and not counted in `said` (the value or sentence), is a pet: "pet" for the
    word itself, "pet:dog" for a dog of any breed; counted or plural, it stays the animal."""
    out = []
    for word in found:
        kind = PET_KINDS.get(word)
        if (word == PET or kind is not None) and not counts(said, word):
            out.append(PET if word == PET else f"{PET}:{kind}")
            continue
        out.append(CONCEPTS.get(word, CONCEPTS.get(stem(word), stem(word))))
    return out


def alike(mine: list[str], theirs: list[str]) -> bool:
    """Concept for concept the same; the bare "pet" is a pet of any kind."""
    return len(mine) == len(theirs) and all(
        a == b or (PET in (a, b) and a.startswith(PET) and b.startswith(PET))
        for a, b in zip(mine, theirs, strict=True)
    )


def reduced(found: list[str], dropped: frozenset[str]) -> list[str]:
    """The words without the `dropped` ones and a trailing word of writing (never down to nothing)."""
    kept = [w for w in found if w not in dropped]
    if len(kept) > 1 and kept[-1] in TRAILING:
        kept = kept[:-1]
    return kept or found


def scope(found: list[str]) -> tuple[str, ...]:
    """What a key is scoped by, word for word: `ceo_of_acme` is Acme's, `city` the subject's."""
    return tuple(found[found.index("of") + 1 :]) if "of" in found else ()


def readings(found: list[str], dropped: frozenset[str]) -> Iterator[tuple[list[str], list[str]]]:
    """The key's words as written, then without what may be dropped; each with what was dropped."""
    yield found, []
    kept = reduced(found, dropped)
    if kept != found:
        yield kept, [w for w in found if w not in kept]


def same(proposal: KeyProposal, candidate: KeyCandidate) -> str | None:
    """Why the proposal means the candidate, or None. Keys scoped by different entities never
    mean the same (`ceo_of_acme` is not `ceo_of_globex`, `location_of_acme` is not `city`)."""
    mine, theirs = key_words(proposal.key), key_words(candidate.key)
    if scope(mine) != scope(theirs):
        return None
    for my_words, my_dropped in readings(mine, VACUOUS | NARROWING):
        for their_words, their_dropped in readings(theirs, VACUOUS):
            if alike(concepts(my_words, proposal.value), concepts(their_words, candidate.example)):
                if not my_dropped and not their_dropped:
                    return f"{proposal.key} and {candidate.key} name the same thing"
                dropped = ", ".join([*my_dropped, *their_dropped])
                return f"{proposal.key} is {candidate.key} once {dropped} is dropped"
    description = normalise_value(proposal.description)
    if description and description == normalise_value(candidate.description):
        return f"{proposal.key} and {candidate.key} have the same description"
    return None


def decide(proposal: KeyProposal, candidates: Sequence[KeyCandidate]) -> KeyChoice:
    """The first candidate (best by embedding) that means the same, or none."""
    for candidate in candidates:
        reason = same(proposal, candidate)
        if reason is not None:
            return KeyChoice(key=candidate.key, reason=reason)
    return KeyChoice(key=None, reason=f"no candidate means what {proposal.key} means")
