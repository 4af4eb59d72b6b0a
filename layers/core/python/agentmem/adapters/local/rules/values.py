"""Where a value ends, what is trimmed from it, and which values are no value at all."""

from __future__ import annotations

import re

from agentmem.adapters.local.rules.lexicon import (
    DEGREE,
    EVALUATIVE,
    NEGATORS,
    PREPOSITIONS,
    PRONOUNS,
)

MAX_VALUE_CHARS = 200
MAX_VALUE_WORDS = 12
SECOND_PERSON = frozenset({"you", "your", "yours", "yourself", "you're", "you've"})
SUBJECT_START = r"(?:i|i'm|i've|i'd|my|she|he|they|we|her|his|their|our|it|the client|the user)\b"
# A clause ends at sentence punctuation followed by a space, a line break, a comma, a dash, an
# opening bracket, a conjunction that starts a new clause, or "and"/"but" before a new subject.
CLAUSE_END = re.compile(
    # A period after a lone capital inside the sentence is an initial ("Michael J. Fox").
    r"(?:[!?;:,]|(?<!\b(?-i:[A-Z]))\.)(?:\s|$)|(?<=\b(?-i:[A-Z]))\.$|\s[-\u2013\u2014]\s|\s\(|\n|"
    r"\s(?:because|since|although|though|while|whereas|which|who|where|when|if|unless|until|so that)\s|"
    rf"\s(?:and|but|or|so)\s+(?={SUBJECT_START})",
    re.IGNORECASE,
)
AND = re.compile(r"\s(?:and|&|or|but|plus)\s", re.IGNORECASE)
MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
SEASONS = "spring|summer|fall|autumn|winter"
TRAILING = re.compile(
    r"(?:\s+(?:now|anymore|any more|these days|nowadays|currently|at the moment|right now|lately|"
    r"recently|again|too|as well|still|originally|for now|for good|already|today|though|honestly|"
    r"actually|by the way|btw|haha|lol|yet|finally|officially|"
    rf"(?:this|last|next) (?:week|month|year|night|{SEASONS})|"
    rf"in (?:\d{{4}}|{MONTHS}|{SEASONS}|the {SEASONS})|"
    r"since \w+|for (?:\d+|a few|several|many|two|three|four|five|ten) \w+|"
    r"(?:a|one|two|three|four|five|six|\d+|a few|several) (?:days?|weeks?|months?|years?) ago|"
    r"a while ago|someday|one day|for work|for school|yesterday|(?:this|last) weekend|"
    r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|the weekend)))+$",
    re.IGNORECASE,
)
LEADING = re.compile(
    r"^(?:(?:now|still|currently|actually|officially|definitely|really|also|just)\s+)+", re.I
)
PROPER = re.compile(
    r"(?-i:(?:the\s+)?[A-Z][\w.'&-]*(?:\s+(?:[A-Z][\w.'&-]*|of|de|del|da|do|la|le|upon|on|am|y|&)(?=\s|$|[,.;!?]))*)"
)
# A value that opens by grading or hedging is a comparison without its comparand ("even more
# common", "a little bit different") or a guess ("probably what turned me off"), not a value;
# "very cautious" grades a value and stays one.
HEDGED_OPENING = re.compile(
    r"^(?:even|more|less|a\s+(?:little\s+)?bit|probably|practically|almost|nearly|"
    r"basically|kind\s+of|sort\s+of|always|never|been|per)\b",
    re.IGNORECASE,
)
ARTICLED = re.compile(r"(?:a|an|the)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}", re.IGNORECASE)


def clause(rest: str) -> str:
    """`rest` up to the end of its clause."""
    m = CLAUSE_END.search(rest)
    return rest[: m.start()] if m else rest


def trim(value: str) -> str:
    """Time words and hedges off the end, adverbs off the start, whitespace and quotes off both."""
    value = " ".join(value.split()).strip(" ,\"'")
    previous = None
    while previous != value:
        previous = value
        value = LEADING.sub("", TRAILING.sub("", value)).strip(" ,")
    return value[:MAX_VALUE_CHARS].rstrip()


def tail_words(rest: str) -> list[str]:
    """The words left in `rest`'s clause once time words and hedges are trimmed: none for
    " in March." or " this year", ["minutes", "late"] for " minutes late"."""
    return trim(TRAILING.sub("", " " + clause(rest).strip())).split()


def words_of(value: str) -> list[str]:
    return value.casefold().replace("'", " ' ").split()


def is_value(value: str) -> bool:
    """False for what names nothing: a pronoun or a clause, a bare evaluation ("beautiful", "very
    busy"), a hedged comparison ("a little bit different"), a negation (which states no new
    value), a prepositional phrase, or a whole clause."""
    tokens = [w.strip(".,!?;:") for w in value.casefold().split()]
    if not tokens or len(tokens) > MAX_VALUE_WORDS or any(t in SECOND_PERSON for t in tokens):
        return False  # "your service": about whoever is addressed, not the subject
    first = tokens[0]
    if HEDGED_OPENING.match(value.strip()):
        return False
    if first in PRONOUNS or first in NEGATORS or first in PREPOSITIONS or first in {"to", "that"}:
        return first == "to" and len(tokens) > 1 and tokens[1] not in {"be", "do", "say", "think", "know"}
    evaluation = [t for t in tokens if t not in DEGREE and t not in {"and", "a"}]
    return not (evaluation and all(t in EVALUATIVE for t in evaluation))


def proper_name(rest: str) -> str | None:
    """A capitalised name at the start of `rest` ("Austin", "the Bay Area", "New York City"),
    up to a comma: "Austin, Texas" gives "Austin"."""
    m = PROPER.match(rest)
    if not m:
        return None
    name = re.sub(r"(?:\s+(?:of|de|del|da|do|la|le|upon|on|am|y|&))+$", "", m.group(0)).rstrip(".")
    bare = name[4:] if name.casefold().startswith("the ") else name
    return name if bare[:1].isupper() and bare.casefold() not in PRONOUNS | {"i"} else None


def organisation(rest: str) -> str | None:
    """A named organisation, or "a/an/the" and a few words ("the city council")."""
    name = proper_name(rest)
    if name:
        return name
    m = ARTICLED.match(clause(rest))
    if not m:
        return None
    words = m.group(0).split()
    cut = next((i for i, w in enumerate(words) if i and w.casefold() in PREPOSITIONS), len(words))
    return " ".join(words[:cut]) if cut > 1 else None


def noun_phrase(rest: str, *, stop_at_prepositions: bool = True, article: bool = False) -> str | None:
    """A short lowercase-led noun phrase (an occupation, a kind of person), article dropped."""
    words = clause(rest).split()
    if words and words[0].casefold() in {"a", "an"} and not article:
        words = words[1:]
    if stop_at_prepositions:
        cut = next((i for i, w in enumerate(words) if w.casefold() in PREPOSITIONS - {"of"}), len(words))
        words = words[:cut]
    phrase = trim(" ".join(words))
    if (
        not phrase
        or len(phrase.split()) > 5
        or phrase.split()[0].casefold() in DEGREE | {"bit", "lot", "little"}
    ):
        return None
    return phrase if is_value(phrase) else None


def split_list(value: str) -> list[str]:
    """ "chess and climbing" or "a house, a boat" as members; one member when nothing splits."""
    parts = [p for chunk in re.split(r",\s*(?:and\s+)?", value) for p in AND.split(chunk)]
    return [trim(p) for p in parts if trim(p)]


def article(noun: str) -> str:
    return "an" if noun[:1].casefold() in "aeiou" else "a"
