"""Facts about named entities other than the subject: "The CEO of Acme is Dana Lee", "Acme's CEO
is Dana Lee", "Dana Lee is the CEO of Acme", and their changes ("is now", "has changed to",
"became", "has been V since", "E's new R is V", "is no longer X; it is V").

A memory is often a knowledge base about the world kept under one subject (`kb`): each such
statement becomes a fact of that subject under a key scoped by the entity (`ceo_of_acme`, "the
CEO of Acme"), single-valued, so every shape of one relation lands on one key and the latest
value is the one current belief. The entity is a capitalised name that is not the subject, a
pronoun, a relative or a day; what the subject-shape rules read ("my city", "Priya's city") is
never read here. docs/extraction-rules.md ("Facts about named entities") lists what is refused."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from agentmem.adapters.local.rules import values
from agentmem.adapters.local.rules.found import KEY, Context, Found
from agentmem.adapters.local.rules.lexicon import (
    DISCOURSE,
    DISCOURSE_NOUNS,
    KEY_MODIFIERS,
    PREPOSITIONS,
    PRONOUNS,
    RELATION_NOUNS,
    SPELLING,
    words,
)
from agentmem.adapters.local.rules.possessive import VERBS
from agentmem.adapters.local.rules.sentences import ABBREVIATIONS
from agentmem.adapters.local.rules.verdict_lexicon import COMPANY_SUFFIXES
from agentmem.adapters.local.rules.voice import subject_words

MAX_RELATION_WORDS = 4  # "head of state", "chief executive officer"
MAX_ENTITY_WORDS = 6  # "the Bank of England", "Bosnia and Herzegovina"
MAX_KEY_CHARS = 64  # a fact key's own limit
CONNECTORS = words(
    "of from to in at de du des del da do di la le los las von van der den and & the for upon on y al el bin"
)
CONNECTOR = "(?:" + "|".join(re.escape(w) for w in sorted(CONNECTORS)) + ")"  # inside a name
NAME_WORD = r"(?:[A-Z0-9][\w.&-]*(?:'[A-Za-z][\w-]+)?)"  # "O'Neill", never "Acme's"
ENTITY = rf"(?-i:(?P<e>(?:[Tt]he\s+)?{NAME_WORD}(?:\s+(?:{CONNECTOR}\s+)*{NAME_WORD})*))"
VALUE_NAME = rf"(?-i:(?P<v>{NAME_WORD}(?:\s+(?:{CONNECTOR}\s+)*{NAME_WORD})*))"
RELATION = r"(?P<r>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,5}?)"
VERB = (
    r"\s+(?P<verb>is\s+no\s+longer|are\s+no\s+longer|is\s+now|are\s+now|has\s+now\s+become|"
    r"has\s+become|have\s+become|became|has\s+(?:now\s+)?changed\s+to|have\s+changed\s+to|"
    r"was\s+changed\s+to|changed\s+to|changed\s+from\s+.+?\s+to|has\s+been|have\s+been|is|are)\s+"
)
CHANGE_VERBS = re.compile(r"\b(?:now|no longer|become|became|changed)\b", re.I)
OF_SHAPE = re.compile(rf"(?P<subj>\bthe)\s+{RELATION}\s+of\s+{ENTITY}{VERB}", re.I)
POSSESSIVE_SHAPE = re.compile(rf"(?<![\w'])(?P<subj>){ENTITY}(?:'s|')\s+{RELATION}{VERB}", re.I)
INVERSE_SHAPE = re.compile(
    rf"(?<![\w'])(?P<subj>){VALUE_NAME}\s+(?P<verb>is\s+now|is|has\s+become|became|has\s+been)\s+the\s+"
    rf"{RELATION}\s+of\s+{ENTITY}(?=\s*(?:[.!?;,]|$)|\s+(?:and|but|since|now|today)\b)",
    re.I,
)
# "is no longer X; it is V", "is no longer X but V": the new value after the old one.
NO_LONGER = re.compile(
    r"^.+?(?:[;,]\s*(?:it|they|he|she|that)(?:'s|\s+is|\s+are)\s+|\s+but\s+(?:(?:it|they)\s+(?:is|are)\s+)?)"
    r"(?:now\s+)?",
    re.I,
)
SINCE = re.compile(r"^\s+since\b", re.I)
ABOUT_TO = re.compile(r"^about\s+to\b", re.I)
APPROXIMATE = re.compile(
    r"^(?:about|around|roughly|approximately|nearly|almost|over|under)\s+[$\u20ac\u00a3]?\d", re.I
)
# "Jeff Bezos and the CEO of Amazon is Andy Jassy": the value ends where another statement starts.
NEXT_STATEMENT = re.compile(
    r"\s+(?:and|but)\s+(?=(?:the\s+)?\S+(?:\s+\S+){0,6}?\s+(?:is|are|was|were|has|have)\s)", re.I
)

NOT_ENTITIES = PRONOUNS | words(
    "my your our his her their its everybody everyone nobody somebody anybody let today tomorrow "
    "yesterday tonight monday tuesday wednesday thursday friday saturday sunday january february "
    "march april may june july august september october november december week month year"
)
"""First words that make an owner no named entity: a pronoun, a day, "Let's"."""
NAME_HEADS = words(
    "city town village state republic kingdom province county district borough university college "
    "school bank gulf bay isle island lake sea strait cape port church cathedral house duchy empire "
    "commonwealth federation union people museum institute department ministry"
)
"""Heads of names, not attributes: "the city of Paris", "the Bank of England" name one thing."""
PARTS = words(
    "rest majority minority most part half end start beginning middle top bottom side lot kind type "
    "sort bulk remainder whole front back future history story idea"
)
"""Parts and kinds of an entity, not attributes of it ("the rest of Acme is ...")."""
NO_VALUES = words(
    "unknown unclear undecided uncertain disputed tbd tba vacant expected set likely probably possibly "
    "rumoured rumored said thought believed supposed reportedly allegedly apparently going "
    "maybe perhaps also still"
)
"""A first word that makes what follows no stated value ("is expected to be", "is probably")."""
LOCATIONS = words("headquarters hq location seat base office offices home venue")
"""Attributes whose value may follow "in" or "at": "the headquarters of Acme is in Berlin"."""
AT_PLACE = re.compile(r"^(?:in|at)\s+", re.I)


@dataclass(frozen=True)
class Relation:
    """An attribute of a named entity, as one key."""

    key: str
    noun: str  # "CEO", "head of state": as written, acronyms kept
    entity: str  # "Acme", "the Bank of England"

    @property
    def description(self) -> str:
        return f"the {self.noun} of {self.entity}"


def find(ctx: Context, sentence: str, states: Callable[[str, int], bool]) -> Iterator[Found]:
    """Every statement of an attribute of a named entity in `sentence` that `states` accepts."""
    for pattern, possessive in ((OF_SHAPE, False), (POSSESSIVE_SHAPE, True)):
        for m in pattern.finditer(sentence):
            if not states(sentence, m.start("subj")):
                continue
            relation = relation_of(ctx, m.group("r"), m.group("e"), possessive=possessive)
            if relation is not None:
                new = _modified(m.group("r"))
                yield from _stated(relation, m.group("verb"), sentence[m.end() :], m.start("subj"), new)
    for m in INVERSE_SHAPE.finditer(sentence):
        name, start = _after_discourse(m.group("v"), m.start("v"))
        if not name or not states(sentence, start):
            continue
        relation = relation_of(ctx, m.group("r"), m.group("e"), possessive=False)
        value = values.proper_name(name)
        if relation is not None and value == name and _acceptable(relation, value):
            changed = bool(CHANGE_VERBS.search(m.group("verb"))) or _modified(m.group("r"))
            yield _found(relation, value, start, changed=changed)


def relation_of(ctx: Context, relation: str, entity: str, *, possessive: bool) -> Relation | None:
    """The key for "the `relation` of `entity`", or None when either is no attribute or no named
    entity (too long, a pronoun, the subject, a relative, a part or a name's head)."""
    named = _named_entity(ctx, entity)
    kept = _attribute_words(relation, possessive=possessive)
    if named is None or kept is None:
        return None
    entity, folded = named
    key = "_".join(
        [SPELLING.get(w.casefold(), w.casefold()) for w in kept] + ["of"] + _entity_key_words(folded)
    )
    if len(key) > MAX_KEY_CHARS or not KEY.match(key):
        return None
    noun = " ".join(w if w.isupper() and len(w) > 1 else w.casefold() for w in kept)
    return Relation(key, noun, entity)


def _named_entity(ctx: Context, entity: str) -> tuple[str, list[str]] | None:
    """The entity as written ("the Bank of England") and its words without "the", casefolded."""
    if entity.endswith(".") and entity[:-1].rsplit(None, 1)[-1].casefold() not in ABBREVIATIONS:
        entity = entity[:-1]  # the sentence's full stop, not "Inc."
    if entity.casefold().startswith("the "):
        entity = "the " + entity[4:]
    names = entity.split()
    folded = [w.casefold() for w in (names[1:] if names[0].casefold() == "the" else names)]
    if not folded or len(names) > MAX_ENTITY_WORDS or folded[0] in NOT_ENTITIES:
        return None
    if all(w in RELATION_NOUNS for w in folded) or " ".join(folded) in _subject_names(ctx):
        return None  # "my sister's city", "Dad's job", "Priya's city": the subject rules' business
    return entity, folded


def _attribute_words(relation: str, *, possessive: bool) -> list[str] | None:
    """The relation's words without modifiers ("new", "current"), or None when it is no attribute."""
    kept = [w for w in relation.split() if w.casefold() not in KEY_MODIFIERS]
    low = [w.casefold() for w in kept]
    refused = (
        not kept
        or len(kept) > MAX_RELATION_WORDS
        or "'" in relation
        # "Acme's CEO Dana Lee is ...": a name, not an attribute
        or (possessive and any(w[:1].isupper() and not w.isupper() for w in kept))
        or any(w in PRONOUNS or w in VERBS or (w in PREPOSITIONS and w != "of") for w in low)
        or low[0] in PARTS
        or low[-1] in DISCOURSE_NOUNS
        or low[-1] == "of"
        # "the city of Paris" names Paris; "Paris's city" would not
        or (not possessive and len(low) == 1 and low[0] in NAME_HEADS)
    )
    return None if refused else kept


def _entity_key_words(folded: list[str]) -> list[str]:
    """The entity's words for its key: punctuation dropped, "&" read "and", a company suffix
    dropped ("Acme Inc." is Acme)."""
    found = [re.sub(r"[^a-z0-9]", "", w.replace("&", "and")) for w in folded]
    found = [w for w in found if w]
    while len(found) > 1 and found[-1] in COMPANY_SUFFIXES:
        found.pop()
    return found


def _subject_names(ctx: Context) -> frozenset[str]:
    return frozenset(n.casefold() for n in subject_words(ctx.subject_id))


def _modified(relation: str) -> bool:
    """ "Acme's new CEO": a change of value."""
    return any(w.casefold() == "new" for w in relation.split())


def _after_discourse(name: str, start: int) -> tuple[str, int]:
    """ "So Paris is ...": the name without the discourse words that open its clause."""
    while True:
        head = name.split(maxsplit=1)[0]
        if head == name or head.casefold() not in DISCOURSE:
            return name, start
        offset = name.index(head) + len(head)
        offset += len(name[offset:]) - len(name[offset:].lstrip())
        name, start = name[offset:], start + offset


def _stated(relation: Relation, verb: str, rest: str, start: int, new: bool) -> Iterator[Found]:
    changed = new or bool(CHANGE_VERBS.search(verb))
    if re.match(r"(?:is|are)\s+no\s+longer", verb, re.I):
        m = NO_LONGER.match(rest)
        if m is None:
            return  # "is no longer X." states no new value
        rest = rest[m.end() :]
    value, tail = _value(relation, rest)
    if value and _acceptable(relation, value):
        since = verb.casefold().startswith(("has been", "have been")) and bool(SINCE.match(tail))
        now = bool(re.search(r"\bnow\s*$", values.clause(rest).strip(), re.I))
        plural = verb.casefold().startswith(("are", "have"))
        yield _found(relation, value, start, changed=changed or since or now, plural=plural)


def _value(relation: Relation, rest: str) -> tuple[str, str]:
    """The value at the start of `rest`, up to its clause's end, and what follows it."""
    if relation.key.split("_of_")[0] in LOCATIONS:
        place = AT_PLACE.match(rest)
        if place and values.proper_name(rest[place.end() :]):
            rest = rest[place.end() :]
    clause = values.clause(rest)
    cut = NEXT_STATEMENT.search(clause)
    clause = clause[: cut.start()] if cut else clause
    name = values.proper_name(rest)
    raw = name if name and len(name) > len(clause) else clause  # "Dr. Dana Lee" is one name
    return values.trim(raw), rest[len(raw) :]


def _acceptable(relation: Relation, value: str) -> bool:
    """Whether `value` states one: no hedge, no gerund ("is retiring"), and after a person's
    relation ("Tom's wife") only a name."""
    first = value.split(maxsplit=1)[0]
    if first.casefold() in NO_VALUES or (first.islower() and first.endswith("ing")) or ABOUT_TO.match(value):
        return False
    if (
        any(w.casefold() in RELATION_NOUNS for w in relation.noun.split())
        and values.proper_name(value) != value
    ):
        return False
    figure = value.split(maxsplit=1)[1] if APPROXIMATE.match(value) else value  # "about 15 million"
    return values.is_value(figure)


def _found(relation: Relation, value: str, start: int, *, changed: bool, plural: bool = False) -> Found:
    stop = "" if value[-1] in ".!?" else "."
    verb = "are" if plural else "is"
    text = f"The {relation.noun} of {relation.entity} {verb} {'now ' if changed else ''}{value}{stop}"
    return Found(start, relation.key, value, text, description=relation.description)


def changed(text: str) -> bool:
    """Whether an entity fact's sentence marks its value as a change ("is now")."""
    return bool(
        re.search(r"\b(?:is|are)\s+now\b|\bhas\s+(?:now\s+)?(?:become|changed)\b|\bbecame\b", text, re.I)
    )


def is_entity_key(key: str, *texts: str) -> bool:
    """Whether a key holds an attribute of a named entity: scoped by "of" and stated as "The R of
    E is V" (the sentence this module writes, and the reference form for explicit facts)."""
    return "_of_" in key and any(re.match(r"^the\s+.+?\s+of\s+.+?\s+(?:is|are)\s+", t, re.I) for t in texts)
