"""The local verdict: SAME, UPDATE or CONFLICT for two values of one key, from their words alone.

CONFLICT means the new statement contradicts the old one, not merely that it differs: a reversed
attitude ("likes" against "no longer likes", "dislikes" against "wants"), a negation of the old
value, opposite poles of one scale ("cautious" against "aggressive"), or an explicit change of
mind in the new sentence. Everything else that differs is an UPDATE: a figure that moved, a value
that narrows or adds detail, or a new value that replaces the old one. docs/extraction-rules.md
has the rules in order and the figures they reach on the labelled sets."""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentmem.adapters.local.rules.lexicon import NUMBER_WORDS
from agentmem.adapters.local.rules.verdict_lexicon import (
    CHANGE,
    COMPANY_SUFFIXES,
    CORRECTION,
    FILLER,
    NEGATING_PREFIXES,
    NEGATORS,
    OPPOSITE_SETS,
    POLARITY,
    POLARITY_PHRASES,
    SCALES,
    SYNONYMS,
    stem,
)
from agentmem.model.beliefs import Verdict
from agentmem.model.beliefs import normalise_value as normalise

JACCARD_RELATED = 0.5
NEGATION_REACH = 4  # "I don't work for Acme": the denied value within four words of its negator
# A figure: optional currency, digits with thousands commas and decimals, an optional k/m/bn
# multiplier and an optional %. The lookbehind keeps "v2" and "1.5" from matching mid-token.
FIGURE = re.compile(
    r"(?<![\w.])[$€£]?(?P<num>\d[\d,]*(?:\.\d+)?)(?:\s?(?P<mult>k|m|mm|bn|thousand|million)\b)?(?:\s?%)?",
    re.IGNORECASE,
)
MULTIPLIERS = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "million": 1e6, "bn": 1e9}
REVERSAL = re.compile(
    r"\b(?:no longer|not any ?more|any ?more|changed (?:my|her|his|their) mind|change of heart|"
    r"changed (?:my|her|his|their) opinion|on second thought|not anymore|gave up|stopped|quit)\b",
    re.IGNORECASE,
)
MIND_CHANGE = re.compile(
    r"\b(?:changed (?:my|her|his|their|our) (?:mind|opinion)|change of heart|on second thought)\b", re.I
)
ZERO_COUNT = re.compile(r"\b(?:no|none)\b")
DOTTED = re.compile(r"\b(?:[a-z]\.){2,}")  # "d.c." is "dc"


def _concepts() -> tuple[dict[str, str], dict[str, str]]:
    """(phrase -> concept token, word stem -> concept token) for scales and opposite sets."""
    phrases: dict[str, str] = {}
    stems: dict[str, str] = {}
    for name, poles in SCALES.items():
        for sign, group in zip(("-", "0", "+"), poles, strict=True):
            for entry in group.split():
                target = f"@{name}{sign}"
                if "-" in entry:
                    phrases[entry.replace("-", " ")] = target
                else:
                    stems[stem(entry)] = target
    for index, pair in enumerate(OPPOSITE_SETS):
        for sign, group in zip(("-", "+"), pair, strict=True):
            for entry in group.split():
                if "-" in entry:
                    phrases[entry.replace("-", " ")] = f"@pair{index}{sign}"
                else:
                    stems[stem(entry)] = f"@pair{index}{sign}"
    return phrases, stems


CONCEPT_PHRASES, CONCEPT_STEMS = _concepts()
# An opposite pair's members are one pole but not one thing: "vegetarian" and "vegan" both oppose
# "eats meat", yet going from one to the other is a change. They keep their own stem beside the pole.
PAIR_STEMS = frozenset(
    stem(e) for pair in OPPOSITE_SETS for group in pair for e in group.split() if "-" not in e
)
POLARITY_STEMS = {stem(word): value for word, value in POLARITY.items()}
SYNONYM_PHRASES = {k: v for k, v in SYNONYMS.items() if " " in k}
SYNONYM_STEMS = {stem(k): stem(v) for k, v in SYNONYMS.items() if " " not in k}


@dataclass(frozen=True)
class Reading:
    """One value as the verdict reads it."""

    core: frozenset[str]  # content stems and concept tokens, without attitude words or fillers
    sign: int  # +1 affirmed, -1 negated or reversed
    strength: int  # 0 unstated, 1 like, 2 love
    figures: tuple[float, ...]
    initials: str


def read(value: str, ignore: frozenset[str], *, zero_counts: bool = False) -> Reading:
    raw = DOTTED.sub(lambda m: m.group(0).replace(".", ""), value.casefold())
    figures = tuple(sorted(_figures(raw)))
    text = normalise(FIGURE.sub(" ", raw)).replace(".", " ").replace("%", " ")
    if zero_counts:
        text = ZERO_COUNT.sub("zero", text)
    for phrase, (word, _) in POLARITY_PHRASES.items():
        text = re.sub(rf"\b{phrase}\b", f" {word} ", text)
    for phrase, token in (CONCEPT_PHRASES | SYNONYM_PHRASES).items():
        text = re.sub(rf"\b{phrase}\b", f" {token} ", text)
    sign, strength = 1, 0
    core: set[str] = set()
    tokens = text.split()
    initials = "".join(t[0] for t in tokens if t not in {"of", "the", "and"})
    for token in tokens:
        number = NUMBER_WORDS.get(token)
        if number is not None:
            figures = tuple(sorted((*figures, float(number))))
            continue
        if token in NEGATORS:
            sign = -sign
            continue
        stemmed = stem(token)
        if stemmed in POLARITY_STEMS:
            polarity = POLARITY_STEMS[stemmed]
            sign *= 1 if polarity > 0 else -1
            strength = max(strength, abs(polarity))
            continue
        if token.startswith("@"):
            core.add(token)  # a concept a phrase was rewritten to
        elif not (token in FILLER or token in COMPANY_SUFFIXES or stemmed in ignore):
            canonical = CONCEPT_STEMS.get(stemmed) or SYNONYM_STEMS.get(stemmed) or stemmed
            if canonical not in ignore:
                core.add(canonical)
                if stemmed in PAIR_STEMS:
                    core.add(stemmed)
    return Reading(frozenset(core), sign, strength, figures, initials)


def _figures(text: str) -> list[float]:
    found = []
    for m in FIGURE.finditer(text):
        number = float(m.group("num").replace(",", ""))
        found.append(number * MULTIPLIERS.get((m.group("mult") or "").lower(), 1))
    return found


def decide(
    old_value: str,
    new_value: str,
    *,
    new_text: str = "",
    old_text: str = "",
    ignore: frozenset[str] = frozenset(),
) -> Verdict:
    """The verdict for `new_value` against `old_value`; `ignore` holds stems that carry nothing in
    this key's values (the key's own words, the subject's name)."""
    if normalise(old_value) == normalise(new_value):
        return Verdict.SAME
    ignore = ignore | {SYNONYM_STEMS.get(word, word) for word in ignore}  # "kids" ignores "children"
    counts = _counts(old_value) or _counts(new_value)
    old, new = read(old_value, ignore, zero_counts=counts), read(new_value, ignore, zero_counts=counts)
    if _contradicts(old, new) or _told_contradiction(old, new, (old_value, old_text), (new_value, new_text)):
        return Verdict.CONFLICT
    if old.figures == new.figures and (
        (old.core == new.core and old.strength == new.strength) or _acronym(old, new) or _acronym(new, old)
    ):
        return Verdict.SAME
    return Verdict.UPDATE  # a figure moved; narrower, more detailed, stronger, or a new value


def _told_contradiction(old: Reading, new: Reading, before: tuple[str, str], after: tuple[str, str]) -> bool:
    """What the new statement's sentence says: a correction ("that's wrong", "correction:", "I
    never lived in") or a change of mind contradicts; a change of the world ("moved", "switched",
    "now", "(was X)") does not, even with "no longer" in it; otherwise a denial of the old value
    ("I'm not vegetarian, I'm vegan") or a reversal ("no longer", "gave up") contradicts.
    `before` and `after` are (value, sentence) of the old and the new statement."""
    (old_value, old_text), (new_value, new_text) = before, after
    if CORRECTION.search(new_text) and not CORRECTION.search(old_text):
        return True
    if MIND_CHANGE.search(f"{new_value} {new_text}") and not MIND_CHANGE.search(f"{old_value} {old_text}"):
        return True
    if CHANGE.search(new_text):
        return False
    if negates(new_text, old.core - new.core, frozenset(old.figures) - frozenset(new.figures)):
        return True
    return bool(REVERSAL.search(f"{new_value} {new_text}")) and not REVERSAL.search(f"{old_value} {old_text}")


def negates(text: str, old_core: frozenset[str], old_figures: frozenset[float] = frozenset()) -> bool:
    """Whether `text` denies the old value: a negator with one of the old value's own words (those
    the new value lacks) close behind ("not Porto", "I don't work for Acme")."""
    tokens = normalise(text).replace(".", " ").split()
    for i, word in enumerate(tokens):
        if word in NEGATORS or word == "never":
            following = tokens[i + 1 : i + 1 + NEGATION_REACH]
            if any(SYNONYM_STEMS.get(stem(t), stem(t)) in old_core or stem(t) in old_core for t in following):
                return True
            if any(f in old_figures for t in following for f in _figures(t)):
                return True  # "I'm not 33, I'm 34"
    return False


def _contradicts(old: Reading, new: Reading) -> bool:
    """A negation or a reversed attitude towards the same thing, or opposite poles of a scale."""
    if old.sign != new.sign and (_related(old.core, new.core) or not old.core or not new.core):
        return True
    return _opposed(old.core, new.core)


def _counts(value: str) -> bool:
    """Whether a value holds a figure, so that "no" in the other one means zero, not "not"."""
    return bool(FIGURE.search(value)) or any(w in NUMBER_WORDS for w in normalise(value).split())


def _related(a: frozenset[str], b: frozenset[str]) -> bool:
    if not a or not b:
        return False
    return a <= b or b <= a or len(a & b) / len(a | b) >= JACCARD_RELATED


def _opposed(a: frozenset[str], b: frozenset[str]) -> bool:
    """Opposite poles of one scale (or of one opposite pair), the rest of the values compatible."""
    for token in a:
        scale, pole = token[:-1], token[-1]
        if pole in "+-" and f"{scale}{'+' if pole == '-' else '-'}" in b and token not in b:
            rest_a = {t for t in a if not t.startswith(scale) and t not in PAIR_STEMS}
            rest_b = {t for t in b if not t.startswith(scale) and t not in PAIR_STEMS}
            if not rest_a or not rest_b or _related(frozenset(rest_a), frozenset(rest_b)):
                return True
    return any(f"{prefix}{word}" in b and word not in b for word in a for prefix in NEGATING_PREFIXES) or any(
        f"{prefix}{word}" in a and word not in a for word in b for prefix in NEGATING_PREFIXES
    )


def _acronym(short: Reading, long: Reading) -> bool:
    """ "NYC" for "New York City": one short word, the other's initials."""
    if len(short.core) != 1 or len(long.initials) < 2:
        return False
    (word,) = short.core
    return 2 <= len(word) <= 5 and word == long.initials


def decide_entity(
    old_value: str, new_value: str, *, changed: bool, ignore: frozenset[str] = frozenset()
) -> Verdict:
    """The verdict for an attribute of a named entity ("the CEO of Acme"). Unlike the subject's
    own statements, two sources may disagree about the world: a different value is an UPDATE when
    its sentence marks the change ("is now", "has changed to", "became") or only adds detail to
    the old one, and a CONFLICT when it states another value as if nothing had changed."""
    plain = decide(old_value, new_value, ignore=ignore)
    if plain is Verdict.SAME:
        return plain
    if changed:
        return Verdict.UPDATE
    old, new = read(old_value, ignore), read(new_value, ignore)
    detail = old.figures == new.figures and bool(old.core) and (old.core <= new.core or new.core <= old.core)
    return Verdict.UPDATE if plain is Verdict.UPDATE and detail else Verdict.CONFLICT
