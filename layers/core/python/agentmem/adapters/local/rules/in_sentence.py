"""Where a value sits in the sentence it was read from, and whether it was read whole.

A shape stops a value at the first place a phrase may end; spoken text goes on past it. The
value was cut when the phrase plainly continues (an open-class word right after it with no
pause: "a king size bedspread"), when a noun that needs its clause loses it ("I'm a person who
wishes ..."), when a bare "to <verb>" lost its object to a filler, or when the statement starts
over right after it ("I'm a real, I'm a realist"). A place read from a name used as a modifier
("the T W U dorm") is no place."""

from __future__ import annotations

import re

from agentmem.adapters.local.rules.found import Found
from agentmem.adapters.local.rules.lexicon import (
    ADVERBS,
    DEGREE,
    DISCOURSE,
    FILLERS,
    HYPOTHETICAL,
    NEGATORS,
    PREPOSITIONS,
    PRONOUNS,
)
from agentmem.adapters.local.rules.lexicon import words as word_set

WORD = re.compile(r"[\w'-]+")

# Where a name before a plain word is the place's owner, not the place ("the T W U dorm"); a
# cuisine or an employer reads a name as a modifier on purpose ("goes for Turkish food").
PLACE_KEYS = frozenset({"city", "hometown", "home_city", "country", "location", "neighborhood"})


SAFE_AFTER_NAME = (
    ADVERBS
    | PREPOSITIONS
    | FILLERS
    | word_set(
        "and or but so because which who where when that i is was now originally really actually "
        "here there too though anyway again these this last next every ever a an the all full-time part-time"
    )
)


OURS_IS = re.compile(r"\bour\s+(?:[\w-]+\s+){1,3}(?:is|are)\s+$", re.IGNORECASE)


NAME_END = re.compile(r"[A-Z][\w'.-]*$")


# Keys whose value is a noun that a clause after it may be needed for: "I'm a person who wishes
# ...", "I'm a fanatic when it comes to bowling".
CLAUSE_HEADED_KEYS = frozenset({"identity"})


RELATIVE_AFTER = re.compile(r"^\s+(?:who|that|when|which|whose)\b", re.IGNORECASE)


# Words that may open what follows a whole value without a pause.
MAY_FOLLOW_A_VALUE = (
    ADVERBS
    | DEGREE
    | PREPOSITIONS
    | PRONOUNS
    | DISCOURSE
    | NEGATORS
    | HYPOTHETICAL
    | FILLERS
    | SAFE_AFTER_NAME
    | word_set(
        "and or but nor so which who whose that where when while i'm i've i'd it's that's is are was "
        "were be been am has have had do did does will would can could should last next this every "
        "ago as instead anymore today tonight yesterday tomorrow originally here there too though "
        "again anyway myself yourself himself herself ourselves right especially else now then "
        "still even more most much many some any no each such other"
    )
)


RESTARTED_BY_FILLER = re.compile(r"^\s*,?\s*(?:uh|um|er|you know|i mean)\b", re.IGNORECASE)


def read_whole(fact: Found, words: list[str], sentence: str) -> bool:
    """Whether the value (`words`, casefolded) is read whole from `sentence`: not cut off, not a
    false start, not a name used as a modifier."""
    around = _around_value(fact, sentence)
    if around is None:
        return True
    before, after = around
    if OURS_IS.search(before) and any(w in DEGREE - {"a"} for w in words):
        return False  # "our dining is very limited": the household's evaluation, not a value
    modifier = fact.key in PLACE_KEYS and _name_as_modifier(fact.value, before, after)
    cut = _cut_before_object(words, after) or modifier or _phrase_goes_on(fact.value, after)
    unfinished = fact.key in CLAUSE_HEADED_KEYS and RELATIVE_AFTER.match(after) is not None
    return not (cut or unfinished or _restarted(fact, sentence, after))


def _phrase_goes_on(value: str, after: str) -> bool:
    """ "started crocheting a king size bedspread", "stopped comparing myself a long time ago":
    the word right after the value, with no pause between, is an open-class word, so the
    phrase the value cut goes on. Closed-class words (a preposition, a conjunction, an adverb,
    a pronoun, a time word) may start what follows a whole value, and anything may follow a
    name or a number ("35 today")."""
    said = WORD.findall(value)
    if after[:1] != " " or len(said) < 2 or not said[-1].isalpha() or not said[-1].islower():
        return False  # a one-word value may be a modifier read on purpose ("a keto diet")
    following = after.split(maxsplit=1)[:1]
    word = following[0].rstrip(",.;:!?") if following else ""
    adverb = word.endswith("ly")  # "lately", "really"
    return word.isalpha() and word.islower() and not adverb and word not in MAY_FOLLOW_A_VALUE


def _around_value(fact: Found, sentence: str) -> tuple[str, str] | None:
    """The sentence's text before the value's first words and after its last ones, when the
    value can be found there."""
    words = fact.value.split()
    folded = sentence.casefold()
    # The value may begin with a verb the sentence does not spell ("likes" for "I like"), so
    # its last two words are looked for, or its last one.
    tail = " ".join(words[-2:]).casefold()
    end = folded.find(tail, fact.start)
    if end < 0:
        tail = words[-1].casefold()
        end = folded.find(tail, fact.start)
    if end < 0:
        return None
    head = next((w.casefold() for w in words if w.casefold() in folded[fact.start : end + 1]), tail)
    start = folded.rfind(head, fact.start, end + len(tail))
    return sentence[: max(start, 0)], sentence[end + len(tail) :]


def _cut_before_object(words: list[str], after: str) -> bool:
    """ "I like to watch, uh, CNN": a bare "to <verb>" with a filler after it lost its object."""
    return words[-2:-1] == ["to"] and bool(RESTARTED_BY_FILLER.match(after))


def _name_as_modifier(value: str, before: str, after: str) -> bool:
    """ "I'm living in the T W U dorm": a name read after a preposition and followed by a plain
    word names the dorm's owner, not the place ("Dana Lee became ..." is a name and a verb)."""
    follows, leads = after.split()[:1], before.casefold().split()[-2:]
    return bool(
        follows
        and any(w in PREPOSITIONS for w in leads)
        and after[:1] == " "
        and NAME_END.search(value.rstrip(" .,"))
        and follows[0][:1].islower()
        and follows[0].casefold().strip(",.;:!?") not in SAFE_AFTER_NAME
    )


def _restarted(fact: Found, sentence: str, after: str) -> bool:
    """ "I like different, I like the anchors ...", "I'm a real, I'm a realist": the same opening
    again right after the value, so the first was a false start. (The value's last word said
    again is not one: "I like sewing, sewing up the garment itself" goes on about it.)"""
    if not after.lstrip().startswith(","):
        return False
    next_words = [w.casefold() for w in WORD.findall(after)[:2]]
    opening = [w.strip(",").casefold() for w in sentence[fact.start :].split()[:2]]
    if len(opening) < 2:
        return False
    if next_words == opening:
        return True
    if opening[0] not in {"i", "i'm", "my"}:
        return False
    verb = re.escape(opening[1])
    return bool(re.match(rf"^\s*,\s*(?:\w+\s+){{0,2}}i\s+{verb}\b", after, re.IGNORECASE))
