"""Shapes that name an attribute: "my X is Z", "Priya's X is Z", "the X of Priya is Z", the
`key: value` lines of declared keys, and JSON objects with declared keys.

The attribute's words must be the subject's own: "my daughter's name" is the daughter's, "my wife
is a doctor" is about the wife (after a relation noun only a name may follow: "my partner is
Alex"), and "my question is whether ..." is a remark, not an attribute."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from agentmem.adapters.local.rules import labels, plans, values
from agentmem.adapters.local.rules.found import Context, Found, key_of
from agentmem.adapters.local.rules.lexicon import (
    DISCOURSE_NOUNS,
    KEY_MODIFIERS,
    PREPOSITIONS,
    PRONOUNS,
    RELATION_NOUNS,
    words,
)
from agentmem.model.beliefs import Cardinality, FactType

ATTRIBUTE = r"(?P<attr>[a-z][\w-]*(?:\s+[a-z][\w'-]*){0,3}?)"
# The old value of a change ("changed from Thai to Mexican", "went up from $4,250 to"): a few words.
FROM = r"(?:\s+from\s+\S+(?:\s+\S+){0,3}?)"
RAISED = r"(?:raised|increased|cut|reduced|lowered|upped|bumped\s+up|dropped)"
COPULA = (
    r"\s+(?P<verb>is|are|has\s+changed\s+to|changed\s+to|has\s+become|"
    rf"(?:has\s+)?changed{FROM}\s+to|went(?:\s+(?:up|down){FROM}?|{FROM})\s+to|"
    rf"(?:has\s+)?(?:gone\s+(?:up|down)|risen|fallen|dropped|grown){FROM}?\s+to|"
    rf"(?:rose|fell|increased|decreased|grew){FROM}?\s+to|"
    rf"(?:(?:was|has\s+been|got)\s+)?{RAISED}{FROM}?\s+to)\s+"
)
# A period after the attribute qualifies it, and is no part of the key: "our travel budget for the
# year is $2,500" (unlike "my goal for today", whose preposition the attribute itself holds).
PERIOD = r"(?:\s+for\s+(?:the|this|next)\s+(?:year|month|week|summer|winter|trip|holidays?))?"
VERBS = words(
    "is are was were has have had do does did said says think thinks told know feel guess will would"
)
# A value that opens with a participle says what the attribute is doing or how it is made, not
# what it is; a declared key's value is read whatever its shape.
VERB_FORM = re.compile(r"^(?-i:[a-z]{2,}(?:ing|ed))\b")
GRADED = re.compile(
    r"^(?:very|so|too|pretty|quite|rather|really|extremely|super|kinda|somewhat|fairly|absolutely|"
    r"totally|completely|incredibly)\s",
    re.IGNORECASE,
)
OWN_PREPOSITIONS = PREPOSITIONS - {"of"}  # "place of residence" is an attribute, "goal for today" not
LINE = re.compile(
    r"^[ \t]*(?:[-*\u2022][ \t]+)?(?P<name>[A-Za-z][\w -]{0,60}?)[ \t]*[:=][ \t]*(?P<value>[^\n]+?)"
    r"(?=[.!?;](?:\s|\Z)|\n|\Z)",
    re.MULTILINE,
)


@lru_cache(maxsize=256)
def _patterns(third: str, first_person: bool) -> tuple[re.Pattern[str], re.Pattern[str]]:
    # In the subject's own voice "her" is someone else; in an agent's it may be the subject.
    # "our" in the user's own words is the user's household ("our travel budget is ...").
    owners = [r"\bmy", r"\bour", rf"{third}'s?"] if first_person else [rf"{third}'s?", r"\b(?:her|his|their)"]
    possessive = re.compile(rf"(?P<subj>{'|'.join(owners)})\s+{ATTRIBUTE}{PERIOD}(?:{COPULA})", re.I)
    of = re.compile(rf"(?P<subj>\bthe)\s+{ATTRIBUTE}\s+of\s+(?:{third})\s+(?P<verb>is|are)\s+", re.I)
    return possessive, of


def find(ctx: Context, sentence: str, states: Any) -> Iterator[Found]:
    """Statements "my X is Z" and the like in `sentence`."""
    for pattern in _patterns(ctx.third, ctx.first_person):
        for m in pattern.finditer(sentence):
            if not states(sentence, m.start("subj")):
                continue
            pronoun = m.group("subj").casefold() in {"her", "his", "their"}
            yield from _attribute(ctx, m, sentence[m.end() :], pronoun=pronoun)


def _attribute(ctx: Context, m: re.Match[str], rest: str, *, pronoun: bool) -> Iterator[Found]:
    attr = m.group("attr")
    words = [w for w in attr.casefold().split() if w not in KEY_MODIFIERS]
    if not words or "'" in attr or any(w in VERBS or w in PRONOUNS or w in OWN_PREPOSITIONS for w in words):
        return  # "my sister's name": someone else's; "my mom said the city", "my goal for today": none
    if words[-1] in DISCOURSE_NOUNS or (len(words) > 1 and plans.is_plan_label(" ".join(words))):
        return  # "my big plan is ...": plans.py reads it, under `plan`
    value = values.trim(values.clause(rest))
    if any(w in RELATION_NOUNS for w in words) and not _names_relation(words, m, value):
        return
    if not value or not values.is_value(value):
        return
    declared = ctx.declared_type(" ".join(words))
    # "her" may be anyone: only a declared key is read after a pronoun. "my other line is
    # ringing", "our economy is based on loans": what the attribute does, not what it is; "my
    # reading is quite wide": how it seems. A declared key ("my risk tolerance is very
    # cautious") takes its value whatever its shape.
    if declared is None and (pronoun or VERB_FORM.match(value) or GRADED.match(value)):
        return
    key = declared.key if declared else key_of(" ".join(words))
    if key is None:
        return
    plural = (m.group("verb") or "").casefold() == "are" and words[-1].endswith("s")
    cardinality = ctx.cardinality(key, Cardinality.SET if plural else Cardinality.SINGLE)
    noun = " ".join(words) if declared is None else key.replace("_", " ")
    members = values.split_list(value) if cardinality is Cardinality.SET else [value]
    for member in members:
        if values.is_value(member):
            yield Found(
                m.start("subj"), key, member, sentence_for(ctx.name, noun, member, cardinality), cardinality
            )


def _names_relation(words: list[str], m: re.Match[str], value: str) -> bool:
    """ "my partner is Alex" names her; "my wife is a doctor" is about the wife, and "my daughter
    went from Yale to Harvard" or "my wife changed from X to Y" are theirs."""
    if (m.group("verb") or "").casefold() not in ("is", "are"):
        return False
    return len(words) == 1 and values.proper_name(value) == value


def sentence_for(name: str, noun: str, value: str, cardinality: Cardinality) -> str:
    """ "Priya's risk tolerance is aggressive." or, for a set key, "Priya's goals include a house"."""
    stop = "" if value[-1] in ".!?" else "."
    if cardinality is Cardinality.SET:
        return f"{name}'s {noun if noun.endswith('s') else noun + 's'} include {value}{stop}"
    return f"{name}'s {noun} is {value}{stop}"


def lines(ctx: Context, text: str) -> Iterator[tuple[int, FactType, str]]:
    """`key: value` and `key = value` lines (or sentences): (position, type, value). A declared key
    in any voice; an undeclared label only in an agent's note, as `labels` guards it."""
    for m in LINE.finditer(text):
        value = m.group("value")
        if values.clause(value).rstrip().endswith("?") or labels.is_personal(values.clause(value)):
            continue
        fact_type = ctx.declared_type(m.group("name"))
        if fact_type is not None:
            yield m.start("name"), fact_type, value
        elif plans.is_plan_label(m.group("name")):
            continue  # "Upcoming plan: a sabbatical in Chile": plans.py reads it, up to 12 words
        elif not ctx.first_person and labels.fits(value) and (key := labels.key(m.group("name"))):
            yield m.start("name"), FactType(key=key), values.trim(values.clause(value))


def from_object(content: dict[str, Any], ctx: Context) -> Iterator[tuple[FactType, str]]:
    """Top-level entries of a JSON object that name a declared key, with a scalar (or, for a set
    key, a list of scalars). Nested objects are not searched."""
    for name, value in content.items():
        fact_type = ctx.declared_type(name)
        if fact_type is None:
            continue
        if _is_scalar(value):
            yield fact_type, _scalar_text(value)
        elif isinstance(value, list) and fact_type.cardinality is Cardinality.SET:
            yield from ((fact_type, _scalar_text(item)) for item in value if _is_scalar(item))


def _is_scalar(value: Any) -> bool:
    # bool is excluded: "dependents": true names no value a sentence could state.
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _scalar_text(value: str | float) -> str:
    return value if isinstance(value, str) else json.dumps(value)
