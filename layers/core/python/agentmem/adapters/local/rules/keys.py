"""The local decision of the key resolver: does a proposed key mean what a candidate key means?

Both keys are read as words (`home_city` is "home city"), spelt one way (favourite -> favorite),
made singular, and each word mapped to a concept of a small synonym lexicon (salary, pay and
earnings are income). The proposal means the candidate when the two read alike once the
proposal drops words that do not change what is held ("home", "current", "annual", a trailing
"name" or "number"), or when both carry the same non-empty description. Only the proposal drops
words: `preference` never becomes `investment_preference`, which says more."""

from __future__ import annotations

from collections.abc import Sequence

from agentmem.adapters.local.rules.lexicon import SPELLING, words
from agentmem.adapters.local.rules.verdict_lexicon import stem
from agentmem.model.beliefs import KeyCandidate, KeyChoice, KeyProposal, normalise_value

# Words that change nothing about what a key holds when a proposal carries them.
NEUTRAL = words(
    "home current present new latest main primary usual actual own overall full exact annual yearly "
    "financial investment personal"
)
# A trailing word that only says how the thing is written down: `employer_name` is the employer.
TRAILING = words("name number address title info details")
COMPOUNDS: dict[tuple[str, ...], str] = {
    ("home", "town"): "hometown",
    ("e", "mail"): "email",
    ("place", "of", "residence"): "residence",
    **{("dietary", noun): "diet" for noun in ("needs", "requirements", "restrictions", "preference")},
}
CONCEPTS: dict[str, str] = {
    **dict.fromkeys(["city", "residence", "location", "place", "town"], "city"),
    **dict.fromkeys(
        ["income", "salary", "pay", "earnings", "earning", "wage", "wages", "compensation"], "income"
    ),
    **dict.fromkeys(["employer", "company", "workplace", "firm", "organization"], "employer"),
    **dict.fromkeys(["occupation", "job", "profession", "career", "role", "position"], "occupation"),
    **dict.fromkeys(["child", "children", "kid", "kids"], "child"),
    **dict.fromkeys(["partner", "spouse"], "partner"),
    **dict.fromkeys(["phone", "mobile", "cell", "telephone"], "phone"),
    **dict.fromkeys(["tolerance", "appetite", "profile"], "tolerance"),
    **dict.fromkeys(["goal", "objective", "aim"], "goal"),
    **dict.fromkeys(["hometown", "birthplace"], "hometown"),
}


def key_words(key: str) -> list[str]:
    """The key's words, spelt one way, compounds joined: `home_town` gives ["hometown"]."""
    found = [SPELLING.get(w, w) for w in key.casefold().split("_") if w]
    for parts, joined in COMPOUNDS.items():
        for i in range(len(found) - len(parts) + 1):
            if tuple(found[i : i + len(parts)]) == parts:
                found[i : i + len(parts)] = [joined]
    return found


def concepts(found: list[str]) -> list[str]:
    """Each word as its concept, or its stem: ["salaries"] gives ["income"]."""
    return [CONCEPTS.get(w, CONCEPTS.get(stem(w), stem(w))) for w in found]


def reduced(found: list[str]) -> list[str]:
    """The proposal's words without the neutral ones (never down to nothing)."""
    kept = [w for w in found if w not in NEUTRAL]
    if len(kept) > 1 and kept[-1] in TRAILING:
        kept = kept[:-1]
    return kept or found


def scope(found: list[str]) -> tuple[str, ...]:
    """What a key is scoped by, word for word: `ceo_of_acme` is Acme's, `city` the subject's."""
    return tuple(found[found.index("of") + 1 :]) if "of" in found else ()


def same(proposal: KeyProposal, candidate: KeyCandidate) -> str | None:
    """Why the proposal means the candidate, or None. Keys scoped by different entities never
    mean the same (`ceo_of_acme` is not `ceo_of_globex`, `location_of_acme` is not `city`)."""
    mine = key_words(proposal.key)
    if scope(mine) != scope(key_words(candidate.key)):
        return None
    theirs = concepts(key_words(candidate.key))
    if concepts(mine) == theirs:
        return f"{proposal.key} and {candidate.key} name the same thing"
    kept = reduced(mine)
    if concepts(kept) == theirs:
        dropped = ", ".join(w for w in mine if w not in kept)
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
