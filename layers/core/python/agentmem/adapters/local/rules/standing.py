"""The bar a statement must clear to become a belief: its value stands on its own.

A shape reads "I like X" or "my X is Y" wherever the words line up, and spoken or casual text
lines them up by accident: a false start ("I like different, I like the anchors ..."), a value cut
at a filler ("I like to watch, uh, CNN"), an object that only the conversation can resolve ("I
like to eat it"), a count of nothing ("I have one again at UT"). Such a belief costs budget and
misleads; the passage it came from is still in history, where a reader sees it whole. So each
statement is checked against the sentence it came from, and refused when:

- its value holds a filler ("uh"; "like" after a determiner) or a stutter ("the the", a phrase
  said twice, "to have to have to", "I'm a I'm a"), or is garbled ("I hate to that movie"), or
  holds a clause ("too the bedrooms are too small");
- its value ends where a phrase cannot end (an article, a preposition, a conjunction, a
  subordinator, a particle, a copula, a subject pronoun: "reading books like that I just", "the
  old series better when"), or on a comparative whose other side went unsaid ("a hundred
  percent better"), or opens with a copula, so it is a predicate, not a value ("is just a little over two");
- its value points at something only the conversation names (it, them, him, his, her, mine,
  those; "in there"; "that kind of stuff"; "ones", "the one we saw"; "that", "this", "here",
  "there" at the end of a short value), or its head is an empty noun ("taking my things") or one
  that needs the "of ..." or "in ..." it lost ("I like a variety", "I'm a product myself", "I'm a
  firm believer");
- the value was not read whole (in_sentence.py): the phrase goes on right after it, a noun loses
  the clause it needs, a bare "to <verb>" lost its object, or the statement starts over;
- a name is read where the sentence uses it as a modifier ("the TWU dorm");
- its value is only a time relative to when it was said ("tomorrow night"), a taste with no
  object or only an empty one ("I really like a lot", "I like the idea", "pretty much
  everything"), a taste of a definite singular the conversation just named ("I like the show"),
  the household's evaluation ("our dining is very limited"), or a start told as a step of a
  story ("then I started cleaning", "I started delivering papers when I was ten"), or a start or
  stop of one particular doing ("I started reading the newspaper") or with only a time where
  the habit would go ("I quit ten years ago");
- what the subject is, given as a measure ("I'm a half hour");
- its key is made of words that name no attribute (a pronoun, a conjunction, "thing", "day",
  "now"), or is an evaluation standing where a counted noun should be ("one beautiful").

These are statements about form (where a phrase ends, what a word points at), not lists of
sentences: each was written from a kind of misreading seen on one set of callers and measured on
callers it was not written from.

Measured on hand-labelled Switchboard beliefs: bench/belief_precision.py, docs/extraction-rules.md.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace

from agentmem.adapters.local.rules.found import Found
from agentmem.adapters.local.rules.in_sentence import CLAUSE_HEADED_KEYS, read_whole
from agentmem.adapters.local.rules.keys import singular
from agentmem.adapters.local.rules.lexicon import (
    ADVERBS,
    COUNT_STOP,
    DEGREE,
    DISCOURSE,
    EVALUATIVE,
    FILLERS,
    NUMBER_WORDS,
    PREPOSITIONS,
)
from agentmem.adapters.local.rules.lexicon import words as word_set

# Words a value cannot end with: it was cut off mid-phrase.
DANGLING = (
    PREPOSITIONS
    | FILLERS
    | word_set(
        "the a an and or but nor that which who whose than as my your our their his her its of "
        "because if so out up off down back very pretty quite rather some any just "
        "is are was were be been you we they when where whether unless until"
    )
)
# A value that ends on a bare comparative compares with something it does not say ("my knee is
# a hundred percent better"). Not "more": "I like loud, I like the quiet bands more" names what
# it is compared with in the false start before it.
COMPARATIVES = word_set("less better worse")
# "I" ends no value either, except as the last initial of a name ("T I", "D I S D").
SUBJECT_I = "i"
# Words that leave a value pointing at something the sentence does not name.
DEICTIC_ANYWHERE = word_set("it it's them their theirs mine those these him his her hers ones")
# "put a spoonful in there": the container is one the conversation named
CONTAINED_IN = re.compile(r"\bin (?:there|here)\b")
POINTING_ON = word_set("and or but kind sort type")
FINITE_COPULAS = frozenset({"is", "are", "was", "were"})
RELATIVES = word_set("that which who what")
EMPTY_HEADS = word_set("thing things stuff")
# Nouns that say nothing without the "of ..." or "in ..." they take ("I like a variety", "I'm a
# product myself", "I'm a firm believer").
RELATIONAL_HEADS = word_set(
    "variety kind sort type part member product bunch couple mix range combination believer"
)
REFLEXIVES = word_set("myself ourselves himself herself themselves")
# "the one we saw": "one" after a determiner, with a clause or nothing after it where a noun would
# go, stands for a noun named before.
PRO_ONE = re.compile(
    r"\b(?:the|that|this|which|another|other) one"
    r"(?:$|\s+(?:i|we|you|they|he|she|that|which|who|where|with|in|at|on)\b)"
)
DEICTIC_AT_END = word_set("that this here there one ones both")
SHORT_VALUE_WORDS = 4  # "eating there" points away; "the stair master over there" still says much
TRAILING_ADDITIVE = frozenset({"also", "too"})
# Words after a taste's noun that say how much or when: "the quiet bands more".
TRAILING_WORDS = TRAILING_ADDITIVE | DEGREE | ADVERBS | frozenset({"more", "most", "anymore", "though"})
RELATIVE_TIME = re.compile(
    r"^(?:tomorrow|tonight|yesterday|today|(?:tomorrow|yesterday|last|next|this) "
    r"(?:night|morning|evening|afternoon|week|weekend|month|year))$",
    re.IGNORECASE,
)
# Attribute words that name nothing by themselves: "my main thing is space".
EMPTY_KEY_WORDS = word_set(
    "i me we you it our ours mine yours and or again now left more less thing things stuff part point "
    "deal problem question idea way reason day time"
)
TASTE_KEYS = frozenset({"preference"})
QUANTIFIED = word_set("everything anything something nothing all much many")
# Words after a definite noun that pin it to something named: "the way that ...", "the one who".
PINNING = word_set("and or of that which who whose where when")
# A taste's own words; what is left is its object, which must be something.
TASTE_FRAME = DEGREE | word_set(
    "likes like loves love enjoys enjoy hates hate prefers prefer doesn't does don't not to lot much all"
)
# "then I started cleaning": a start told as a step of a story, not what the subject does now.
ONSET = re.compile(r"^(?:started|began)\b", re.IGNORECASE)
STORY_STEP = re.compile(r"\b(?:then|when|after|before|until)\b", re.IGNORECASE)
CUT_CONJUNCTION = re.compile(r"\s+(?:and|or|but)$", re.IGNORECASE)
WORD = re.compile(r"[\w'-]+")
DETERMINERS = word_set("the a an that this those these my your our his her their")
QUANTIFIERS = word_set("some any several many few all every each")


def admitted(fact: Found, sentence: str) -> Found | None:
    """`fact` as it may become a belief, or None when it does not clear the bar (the module
    docstring lists it). A value cut just after "and" or "or" keeps what came before it."""
    value = fact.value.rstrip(" ,.")
    cut = CUT_CONJUNCTION.search(value)
    if cut and not _dangling(WORD.findall(value[: cut.start()]) or ["and"]):
        trimmed = value[: cut.start()]
        fact = replace(fact, value=trimmed, text=fact.text.replace(value, trimmed))
    return fact if stands_alone(fact, sentence) else None


def stands_alone(fact: Found, sentence: str) -> bool:
    """Whether `fact`, read from `sentence`, clears the bar."""
    words = [w.casefold() for w in WORD.findall(fact.value)]
    if not words or _names_nothing(fact, words):
        return False
    if _states_no_standing_fact(fact, words, sentence):
        return False
    return read_whole(fact, words, sentence)


def _names_nothing(fact: Found, words: list[str]) -> bool:
    """The value alone, whatever the sentence around it, names nothing."""
    if _empty_key(fact.key) or RELATIVE_TIME.match(fact.value.strip(" .")):
        return True
    if len(words) == 1 and words[0] in DISCOURSE | FILLERS:
        return True  # "Well, my husband, ...": the word opening the sentence is no name
    if _disfluent(fact.value, words) or _dangling(WORD.findall(fact.value)) or _deictic(words):
        return True
    return _no_head(fact, words) or _clause_inside(WORD.findall(fact.value))


def _clause_inside(raw: list[str]) -> bool:
    """A copula in the value as said makes it a clause, not a value ("too the bedrooms are too
    small"), unless a relative word opens it ("things that are interesting")."""
    if raw[0].casefold() in FINITE_COPULAS:
        return True  # "my little boy is is just a little over two": the value is a predicate
    return any(b in FINITE_COPULAS and a.casefold() not in RELATIVES for a, b in itertools.pairwise(raw))


def _no_head(fact: Found, words: list[str]) -> bool:
    """ "started taking my things", "I'm a half hour": the value's last word, its head, is an
    empty noun with only a determiner before it, or for what the subject is, a measure of time
    or amount."""
    head = words[-1]
    # "electronic stuff" names a kind; "my things", "the stuff" only point
    pointing = head in EMPTY_HEADS and (len(words) == 1 or words[-2] in DETERMINERS | TASTE_FRAME)
    if pointing or (fact.key in CLAUSE_HEADED_KEYS and head in COUNT_STOP):
        return True
    # "I'm a product myself", "likes a variety": the head needs the "of ..." the value lost
    kept = list(itertools.dropwhile(lambda w: w in REFLEXIVES | TRAILING_WORDS, reversed(words)))
    return bool(kept) and kept[0] in RELATIONAL_HEADS


def _states_no_standing_fact(fact: Found, words: list[str], sentence: str) -> bool:
    if fact.key in TASTE_KEYS and (not _taste_object(words) or _anaphoric(fact.value)):
        return True  # "I really like a lot", "I like the idea", "I like the show": nothing named
    # "then I started cleaning": what happened next, not what the subject does
    return bool(ONSET.match(fact.value) and STORY_STEP.search(sentence)) or _episode(fact, words)


def _episode(fact: Found, words: list[str]) -> bool:
    """A start or a stop is a habit when a bare doing follows it ("quit smoking", "stopped eating
    meat"); a doing of one particular thing is an episode of a story ("started reading the
    newspaper", "started ordering some parts"), and a time right after the verb means the
    habit was named elsewhere ("I quit ten years ago")."""
    if fact.key != "activity" or len(words) < 2:
        return False
    done = words[1]
    if done in NUMBER_WORDS or done.isdigit():
        return True
    return done.endswith("ing") and len(words) > 2 and words[2] in DETERMINERS | QUANTIFIERS


def _taste_object(words: list[str]) -> list[str]:
    """What a taste is of: its words past the frame, unless they are only empty words or a
    quantifier ("pretty much everything")."""
    named = [w for w in words if w not in TASTE_FRAME]
    empty = EMPTY_KEY_WORDS | QUANTIFIED | {"the", "a", "an"}
    return [] if all(w in empty for w in named) else named


def _anaphoric(value: str) -> bool:
    """ "I like the show", "I love the space": a definite singular common noun with nothing to
    pin it down names what the conversation was about a moment ago, not a standing taste; a
    plural ("the mountains"), a name ("the PEOPLE magazine") or a phrase after it ("the system
    of house arrest") names something by itself."""
    raw = [w for w in WORD.findall(value) if w.casefold() not in TASTE_FRAME]
    if len(raw) < 2 or raw[0].casefold() != "the":
        return False
    rest = list(itertools.dropwhile(lambda w: w.casefold() in TRAILING_WORDS, reversed(raw[1:])))[::-1]
    if not rest:
        return False
    bare = all(w.islower() and w not in PREPOSITIONS and w not in PINNING for w in rest)
    # a plural is generic, and so is a gerund: "I like the planting" names an activity
    return bare and not rest[-1].endswith(("s", "ing"))


def _empty_key(key: str) -> bool:
    """The key's first or last word names nothing ("capital_of_bosnia_and_herzegovina" is fine)."""
    parts = key.split("_")
    ends = {parts[0], parts[-1]}
    if any(p in EMPTY_KEY_WORDS or (p.endswith("s") and p[:-1] in EMPTY_KEY_WORDS) for p in ends):
        return True
    # "I have one beautiful with peonies, uh, umbrella stand": an evaluation stands where the
    # counted noun should be, so the key is an adjective ("beautifuls") and names no attribute
    return len(parts) == 1 and singular(parts[0]) in EVALUATIVE


def _disfluent(value: str, words: list[str]) -> bool:
    """A filler or a stutter in the value, or the statement starting over inside it ("loves the
    food I love the food"; "likes I just finished ..."; "T I" is a name)."""
    if any(w in FILLERS for w in words) or any(a == b for a, b in itertools.pairwise(words)):
        return True
    if _phrase_said_twice(words):
        return True
    # "I like the like stretch pants": "like" after a determiner is a filler, not a word of the value
    if any(a in DETERMINERS and b == "like" for a, b in itertools.pairwise(words)):
        return True
    verb = words[0].removesuffix("s")
    again = any(a == "i" and b.removesuffix("s") == verb for a, b in itertools.pairwise(words))
    # "I'm a I'm a second lieutenant": the opening said twice, the first time left unfinished
    again = again or "i'm" in words
    # "I hate to that movie": "to" before a determiner is no infinitive, so words are missing
    garbled = words[1:2] == ["to"] and words[2:3] != [] and words[2] in DETERMINERS
    return again or garbled or (len(words) > 1 and words[1] == "i" and value.split(maxsplit=1)[0].islower())


def _phrase_said_twice(words: list[str]) -> bool:
    """ "to have to have to pull grass": two or three words said again at once, a restart."""
    return any(
        words[i : i + n] == words[i + n : i + 2 * n] for n in (2, 3) for i in range(len(words) - 2 * n + 1)
    )


def _dangling(raw: list[str]) -> bool:
    """The value ends where a phrase cannot: `raw` are its words as written."""
    trimmed = raw[:-1] if len(raw) > 1 and raw[-1].casefold() in TRAILING_ADDITIVE else raw
    last = trimmed[-1].casefold()
    if last == SUBJECT_I:  # "reading books like that I just": a clause cut after its subject
        return not (trimmed[-1] == "I" and len(trimmed) > 1 and _initial(trimmed[-2]))
    return last in DANGLING or last in COMPARATIVES


def _initial(word: str) -> bool:
    return len(word) == 1 and word.isupper()


def _deictic(words: list[str]) -> bool:
    if any(w in DEICTIC_ANYWHERE for w in words) or CONTAINED_IN.search(" ".join(words)):
        return True
    if PRO_ONE.search(" ".join(words)):
        return True  # "the one we saw before", "that one": a noun named before, not here
    if any(a in {"that", "this"} and b in POINTING_ON for a, b in itertools.pairwise(words)):
        return True  # "to listen to that and catch", "that kind of stuff": "that" names no thing
    # "likes to have a little there": the frame ("likes to") says nothing, so it does not count
    told = list(itertools.dropwhile(lambda w: w in TASTE_FRAME, words)) or words
    return words[-1] in DEICTIC_AT_END and len(told) <= SHORT_VALUE_WORDS
