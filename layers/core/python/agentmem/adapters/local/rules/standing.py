"""The bar a statement must clear to become a belief: its value stands on its own.

A shape reads "I like X" or "my X is Y" wherever the words line up, and spoken or casual text
lines them up by accident: a false start ("I like different, I like the anchors ..."), a value cut
at a filler ("I like to watch, uh, CNN"), an object that only the conversation can resolve ("I
like to eat it"), a count of nothing ("I have one again at UT"). Such a belief costs budget and
misleads; the passage it came from is still in history, where a reader sees it whole. So each
statement is checked against the sentence it came from, and refused when:

- its value holds a filler or a stutter ("the the", a phrase said twice);
- its value ends where a phrase cannot end (an article, a preposition, a conjunction, a particle);
- its value points at something only the conversation names (it, them, him, her, mine, those; and
  "that", "this", "here", "there" at the end of a short value);
- the sentence goes on with a filler right after a bare "to <verb>" (the object was cut off), or
  restarts the same statement ("..., I like ...": the first was a false start);
- a name is read where the sentence uses it as a modifier ("the TWU dorm");
- its value is only a time relative to when it was said ("tomorrow night"), a taste with no
  object or only an empty one ("I really like a lot", "I like the idea"), the household's
  evaluation ("our dining is very limited"), or a start told as a step of a story ("then I
  started cleaning", "I started delivering papers when I was ten");
- its key is made of words that name no attribute (a pronoun, a conjunction, "thing", "day").

Measured on hand-labelled Switchboard beliefs: bench/belief_precision.py, docs/extraction-rules.md.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

from agentmem.adapters.local.rules.found import Found
from agentmem.adapters.local.rules.lexicon import ADVERBS, DEGREE, PREPOSITIONS
from agentmem.adapters.local.rules.lexicon import words as word_set

FILLERS = frozenset({"uh", "um", "er", "erm", "uh-huh", "hm", "hmm", "mm", "huh"})
# Words a value cannot end with: it was cut off mid-phrase.
DANGLING = (
    PREPOSITIONS
    | FILLERS
    | word_set(
        "the a an and or but nor that which who whose than as my your our their his her its of "
        "because if so out up off down back very some any"
    )
)
# Words that leave a value pointing at something the sentence does not name.
DEICTIC_ANYWHERE = word_set("it it's them their theirs mine those these him her hers")
DEICTIC_AT_END = word_set("that this here there one ones both")
SHORT_VALUE_WORDS = 4  # "eating there" points away; "the stair master over there" still says much
TRAILING_ADDITIVE = frozenset({"also", "too"})
RELATIVE_TIME = re.compile(
    r"^(?:tomorrow|tonight|yesterday|today|(?:tomorrow|yesterday|last|next|this) "
    r"(?:night|morning|evening|afternoon|week|weekend|month|year))$",
    re.IGNORECASE,
)
# Attribute words that name nothing by themselves: "my main thing is space".
EMPTY_KEY_WORDS = word_set(
    "i me we you it and or again left more less thing things stuff part point deal problem question "
    "idea way reason day time"
)
TASTE_KEYS = frozenset({"preference"})
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
# A taste's own words; what is left is its object, which must be something.
TASTE_FRAME = DEGREE | word_set(
    "likes like loves love enjoys enjoy hates hate prefers prefer doesn't does don't not to lot much all"
)
# "then I started cleaning": a start told as a step of a story, not what the subject does now.
ONSET = re.compile(r"^(?:started|began)\b", re.IGNORECASE)
STORY_STEP = re.compile(r"\b(?:then|when|after|before|until)\b", re.IGNORECASE)
OURS_IS = re.compile(r"\bour\s+(?:[\w-]+\s+){1,3}(?:is|are)\s+$", re.IGNORECASE)
CUT_CONJUNCTION = re.compile(r"\s+(?:and|or|but)$", re.IGNORECASE)
WORD = re.compile(r"[\w'-]+")
NAME_END = re.compile(r"[A-Z][\w'.-]*$")
RESTARTED_BY_FILLER = re.compile(r"^\s*,?\s*(?:uh|um|er|you know|i mean)\b", re.IGNORECASE)


def admitted(fact: Found, sentence: str) -> Found | None:
    """`fact` as it may become a belief, or None when it does not clear the bar (the module
    docstring lists it). A value cut just after "and" or "or" keeps what came before it."""
    value = fact.value.rstrip(" ,.")
    cut = CUT_CONJUNCTION.search(value)
    if cut and not _dangling([w.casefold() for w in WORD.findall(value[: cut.start()])] or ["and"]):
        trimmed = value[: cut.start()]
        fact = replace(fact, value=trimmed, text=fact.text.replace(value, trimmed))
    return fact if stands_alone(fact, sentence) else None


def stands_alone(fact: Found, sentence: str) -> bool:
    """Whether `fact`, read from `sentence`, clears the bar."""
    words = [w.casefold() for w in WORD.findall(fact.value)]
    if not words or _empty_key(fact.key) or RELATIVE_TIME.match(fact.value.strip(" .")):
        return False
    if _disfluent(fact.value, words) or _dangling(words) or _deictic(words):
        return False
    if _states_no_standing_fact(fact, words, sentence):
        return False
    around = _around_value(fact, sentence)
    if around is None:
        return True
    before, after = around
    if OURS_IS.search(before) and any(w in DEGREE - {"a"} for w in words):
        return False  # "our dining is very limited": the household's evaluation, not a value
    modifier = fact.key in PLACE_KEYS and _name_as_modifier(fact.value, before, after)
    cut = _cut_before_object(words, after) or modifier
    return not (cut or _restarted(fact, sentence, after))


def _states_no_standing_fact(fact: Found, words: list[str], sentence: str) -> bool:
    if fact.key in TASTE_KEYS and not _taste_object(words):
        return True  # "I really like a lot", "I like the idea": a taste of nothing it names
    # "then I started cleaning": what happened next, not what the subject does
    return bool(ONSET.match(fact.value) and STORY_STEP.search(sentence))


def _taste_object(words: list[str]) -> list[str]:
    """What a taste is of: its words past the frame, unless they are only empty words."""
    named = [w for w in words if w not in TASTE_FRAME]
    return [] if all(w in EMPTY_KEY_WORDS or w in {"the", "a", "an"} for w in named) else named


def _empty_key(key: str) -> bool:
    """The key's first or last word names nothing ("capital_of_bosnia_and_herzegovina" is fine)."""
    parts = key.split("_")
    ends = {parts[0], parts[-1]}
    return any(p in EMPTY_KEY_WORDS or (p.endswith("s") and p[:-1] in EMPTY_KEY_WORDS) for p in ends)


def _disfluent(value: str, words: list[str]) -> bool:
    """A filler or a stutter in the value, or the statement starting over inside it ("loves the
    food I love the food"; "likes I just finished ..."; "T I" is a name)."""
    if any(w in FILLERS for w in words) or any(a == b for a, b in itertools.pairwise(words)):
        return True
    verb = words[0].removesuffix("s")
    again = any(a == "i" and b.removesuffix("s") == verb for a, b in itertools.pairwise(words))
    return again or (len(words) > 1 and words[1] == "i" and value.split(maxsplit=1)[0].islower())


def _dangling(words: list[str]) -> bool:
    trimmed = words[:-1] if len(words) > 1 and words[-1] in TRAILING_ADDITIVE else words
    return trimmed[-1] in DANGLING


def _deictic(words: list[str]) -> bool:
    if any(w in DEICTIC_ANYWHERE for w in words):
        return True
    if any(a in {"that", "this"} and b in {"and", "or", "but"} for a, b in itertools.pairwise(words)):
        return True  # "to listen to that and catch": "that" names no thing here
    return words[-1] in DEICTIC_AT_END and len(words) <= SHORT_VALUE_WORDS + 1


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
    """ "I like different, I like the anchors ...": the same opening again right after the value."""
    opening = sentence[fact.start :].split()[:2]
    if len(opening) < 2 or opening[0].casefold() not in {"i", "i'm", "my"}:
        return False
    verb = re.escape(opening[1].strip(",").casefold())
    return bool(re.match(rf"^\s*,\s*(?:\w+\s+){{0,2}}i\s+{verb}\b", after, re.IGNORECASE))
