"""What the local verdict knows about English values: polarity verbs, scales with opposite poles,
a few synonyms, filler words, and a crude stemmer. Generic lists, not tuned per sentence."""

from __future__ import annotations

import re

from agentmem.adapters.local.rules.lexicon import words

# Verbs and adjectives of attitude, with a sign and a strength: "likes" (+1) and "loves" (+2) say
# the same thing more or less strongly, "dislikes" (-1) says the opposite. A verb of starting is
# positive and one of stopping negative: "stopped running" reverses "started running".
POLARITY: dict[str, int] = {
    **dict.fromkeys(
        words("like enjoy prefer fond want wish trust favor favour support keen interested into start begin"),
        1,
    ),
    **dict.fromkeys(words("love adore cherish"), 2),
    **dict.fromkeys(words("dislike avoid distrust mistrust oppose reject refuse against stop quit skip"), -1),
    **dict.fromkeys(words("hate detest loathe despise abhor"), -2),
}
POLARITY_PHRASES: dict[str, tuple[str, int]] = {
    "can t stand": ("hate", -2),
    "cannot stand": ("hate", -2),
    "gave up": ("quit", -1),
    "given up": ("quit", -1),
    "give up": ("quit", -1),
    "took up": ("start", 1),
    "take up": ("start", 1),
    "no longer": ("not", 0),
    "not any more": ("not", 0),
    "any more": ("", 0),
    "anymore": ("", 0),
}
"""Multi-word forms, rewritten to one word before anything else (0: a plain negator)."""
NEGATORS = words("not no never t cannot none nor neither without non")
"""Negators after normalisation, which turns "doesn't" into "doesn t": the `t` carries it."""
NEGATING_PREFIXES = ("non", "un", "dis", "in", "im", "ir", "il")
"""`un` + a word the other side holds is its opposite: "unemployed" against "employed"."""

# Scales: (one pole, the middle, the other pole). Opposite poles contradict each other; a move
# to or from the middle is an update. Phrases are matched before words.
SCALES: dict[str, tuple[str, str, str]] = {
    "level": (
        "low cautious careful conservative safe prudent defensive averse risk-averse low-risk",
        "moderate balanced medium middle",
        "high aggressive risky bold adventurous speculative daring high-risk risk-seeking risk-tolerant",
    ),
    "temperature": ("cold cool chilly freezing", "mild temperate", "hot warm"),
    "term": ("short short-term", "medium-term", "long long-term"),
    "sociability": (
        "introvert introverted shy reserved",
        "ambivert",
        "extrovert extroverted outgoing sociable",
    ),
    "loudness": ("quiet calm silent peaceful", "", "loud noisy lively"),
    "chronotype": ("morning-person early-bird early-riser lark", "", "night-owl night-person evening-person"),
    "spending": ("frugal thrifty saver", "", "big-spender spendthrift extravagant lavish"),
    "outlook": ("bullish optimistic", "neutral", "bearish pessimistic"),
    "weight": ("light", "", "heavy"),
    "frequency": (
        "never rarely seldom hardly",
        "sometimes occasionally",
        "always often daily frequently regularly",
    ),
    "timing": ("early", "on-time", "late"),
    "price": ("cheap inexpensive low-cost budget affordable", "mid-range", "expensive pricey premium luxury"),
    "speed": ("slow", "", "fast quick"),
    "activity": ("sedentary inactive", "", "active athletic"),
}
OPPOSITE_SETS: tuple[tuple[str, str], ...] = (
    ("vegetarian vegan", "meat steak beef pork carnivore meat-eater"),
    ("sober teetotal", "drinker drunk"),
    ("employed", "unemployed jobless"),
    ("asset gain profit surplus", "liability loss deficit"),
)
"""Pairs of word groups that contradict each other without lying on one scale."""

SYNONYMS: dict[str, str] = {
    # periods of a figure
    "per year": "peryear", "a year": "peryear", "annually": "peryear", "yearly": "peryear",
    "per annum": "peryear", "a yr": "peryear", "per yr": "peryear", "annual": "peryear",
    "per month": "permonth", "a month": "permonth", "monthly": "permonth", "per mo": "permonth",
    "per hour": "perhour", "an hour": "perhour", "hourly": "perhour",
    "per week": "perweek", "a week": "perweek", "weekly": "perweek",
    # people and things
    "software engineer": "programmer", "software developer": "programmer", "coder": "programmer",
    "developer": "programmer", "software dev": "programmer",
    "physician": "doctor", "attorney": "lawyer",
    "kid": "child", "kids": "child", "children": "child",
    "home": "house", "due": "expect", "expecting": "expect",
    "spouse": "partner",
}  # fmt: skip
"""Different words for one thing, each rewritten to the last form (phrases before words)."""

FILLER = words(
    "a an the is are am be was were she he they her his their its it of to in on at for with and or "
    "really very truly just definitely certainly indeed still currently now also totally quite "
    "pretty so basically literally actually about around approximately roughly nearly almost "
    "dollars dollar usd bucks years year old yo y o s don doesn didn isn aren wasn won can do does did"
)
"""Words that carry no value of their own in a short value ("she is married" is "married")."""
COMPANY_SUFFIXES = words("inc corp corporation llc ltd co plc gmbh limited incorporated company")
IRREGULAR = {"children": "child", "people": "person", "men": "man", "women": "woman", "feet": "foot"}


def stem(word: str) -> str:
    """Crude on purpose: retire, retiring, retirement and retired all become `retir`."""
    word = IRREGULAR.get(word, word)
    stripped = False
    for suffix in ("ment", "ing", "ed", "ies", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
            stripped = True
            break
    if stripped and len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeioulsz":
        word = word[:-1]  # running -> runn -> run, stopped -> stopp -> stop
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


# What a new statement's own sentence says about the old value. A correction says the old value
# was wrong (CONFLICT); a change of the world says it was true and is no more (UPDATE), even when
# it also says "no longer" or "not X any more".
CORRECTION = re.compile(
    r"\b(?:wrong|incorrect|not (?:right|correct|true)|correction|correcting|mistake|mistaken|mix-?up|"
    r"mixed up|typo|autocorrect|misspoke|misheard|i meant|meant to say|never)\b",
    re.IGNORECASE,
)
CHANGE = re.compile(
    r"\b(?:moved|relocated|switched|changed|left|joined|new job|went (?:up|down|from)|gone (?:up|down)|"
    r"raised|increased|cut|reduced|lowered|upped|rose|fell|dropped|now|previously|formerly|turned|"
    r"became|become|arrived|was born|any ?more|no more|these days|since)\b|\((?:was|previously|formerly)\b",
    re.IGNORECASE,
)
