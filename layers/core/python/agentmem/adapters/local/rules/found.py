"""What a shape finds, and the context every shape reads a sentence in."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from agentmem.adapters.local.rules.lexicon import ADVERBS, PLURALS, SPELLING
from agentmem.adapters.local.rules.voice import display_name, subject_words
from agentmem.model.beliefs import Cardinality, FactType, member_id

SEPARATORS = re.compile(r"[\s_-]+")
KEY = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
NOT_IN_ID = re.compile(r"[^A-Za-z0-9._:-]+")


def member_of(thing: str) -> str:
    """A set member's id from what the member is about ("sushi" in "no longer likes sushi")."""
    return NOT_IN_ID.sub("", member_id(thing))[:128] or "member"


@dataclass(frozen=True)
class Found:
    """One statement: where its subject starts in the sentence, and the fact it states."""

    start: int
    key: str
    value: str
    text: str
    cardinality: Cardinality = Cardinality.SINGLE
    description: str = ""
    member: str | None = None
    replaces: str | None = None  # the old value a change names ("moved from Porto to Lisbon")


@dataclass(frozen=True)
class Context:
    """How one passage is read: who "I" is, how the subject is named, what is declared."""

    subject_id: str
    first_person: bool
    declared: dict[str, FactType] = field(default_factory=dict)

    @cached_property
    def name(self) -> str:
        return display_name(self.subject_id)

    @cached_property
    def third(self) -> str:
        """The subject in the third person: "Priya", "the client"."""
        return r"\b(?:" + "|".join(re.escape(n) for n in subject_words(self.subject_id)) + r")\b"

    def subjects(self) -> list[tuple[str, bool]]:
        """(subject pattern, is first person): "I" only in the subject's own voice."""
        found = [(self.third, False)]
        return [(r"\b[Ii]\b", True), *found] if self.first_person else found

    def declared_type(self, name: str) -> FactType | None:
        """The declared type `name` loosely spells: any case, spaces or hyphens, a plural last word."""
        loose = SEPARATORS.sub("_", name.strip().casefold())
        for candidate in (
            loose,
            loose[:-1] if loose.endswith("s") else "",
            loose[:-2] if loose.endswith("es") else "",
        ):
            if candidate in self.declared:
                return self.declared[candidate]
        return None

    def cardinality(self, key: str, proposed: Cardinality) -> Cardinality:
        declared = self.declared.get(key)
        return declared.cardinality if declared else proposed


ADV = r"(?:\s+(?:" + "|".join(sorted(ADVERBS)) + r"))*"


def key_of(words: str) -> str | None:
    """A fact key from an attribute's words: "favourite colour" gives `favorite_color`."""
    parts = [SPELLING.get(w, w) for w in SEPARATORS.split(words.casefold().strip()) if w]
    key = "_".join(parts)
    return key if KEY.match(key) else None


def plural(noun: str) -> str:
    """The last word in the plural, so "1 child" and "2 children" share a key."""
    *head, last = noun.split()
    if last in PLURALS:
        last = PLURALS[last]
    elif not last.endswith("s") and not last.endswith(tuple(PLURALS.values())):
        last = last[:-1] + "ies" if last.endswith("y") and last[-2:-1] not in "aeiou" else last + "s"
    return " ".join([*head, last])
