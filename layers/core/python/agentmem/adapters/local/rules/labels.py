"""Label lines of an agent's note about the subject ("Home city: Porto", "- Employer: Acme",
"Age: 36") under a key nobody declared. Declared keys are read from such lines in any voice
(`possessive.lines`); an undeclared label is a fact only when all of these hold, because a
note is full of lines that look alike ("Summary: ...", "Next steps: ...", "Date: ..."):

- the line is in an agent's voice (never the subject's own words, where "Employer: I'd rather
  not say" is chat);
- the label is 1-3 words of letters, none of them a note's own heading word (`HEADINGS`), a
  verb, a preposition or a pronoun ("Sunday is busy: ...", "Free slots on Sunday: ...");
- the value is one clause (no comma, bracket or second clause: "Household: a cat, Tofu (a
  tabby)" is refused) and short: at most `MAX_WORDS` words, no first or second person ("I", "we", "you"),
  no question, a value by `values.is_value`, and led by a capital, a figure or a currency sign
  unless it is at most three words ("vegan", "two kids").

The key is the label's words (`home_city`); the key resolver maps it onto a key the subject
has (`city`) as it does for "my home city is ..."."""

from __future__ import annotations

import re

from agentmem.adapters.local.rules import values
from agentmem.adapters.local.rules.found import key_of
from agentmem.adapters.local.rules.lexicon import PREPOSITIONS, PRONOUNS, words

MAX_WORDS = 6
LABEL = re.compile(r"^[A-Za-z][A-Za-z-]*(?:\s+[A-Za-z][A-Za-z-]*){0,2}$")
HEADINGS = words(
    "summary source sources note notes update updates question questions answer reply response date "
    "time re subject title topic topics agenda step steps next tip tips todo to-do action actions "
    "result results reason context warning error example hint fyi ps correction status call meeting "
    "follow-up followup priority owner assignee link url ref reference attachment cc bcc from to sent "
    "session recap outcome decision decisions task tasks issue issues risk risks caveat caveats "
    "remember reminder important disclaimer draft version tags tag category type "
    "price cost total subtotal tax fee duration distance score rating weather forecast temperature eta"
)
VERBS = words("is are was were has have had do does did be been found said says")
PERSONAL = words("i i'd i'm i've i'll me my mine we we're we've our ours us you your you're")


def key(label: str) -> str | None:
    """The key an undeclared label names, or None when the label is no attribute: a heading
    ("Summary"), or words that make it a clause or a phrase ("Sunday is busy", "Free slots on
    Sunday")."""
    label = label.strip()
    found = label.casefold().split()
    if not LABEL.match(label) or any(w in HEADINGS | VERBS | PREPOSITIONS | PRONOUNS for w in found):
        return None
    return key_of(label)


def fits(value: str) -> bool:
    """Whether a label line's value is a short value of the event's own."""
    whole = value.strip().rstrip(".!")
    value = values.trim(values.clause(whole))
    if values.clause(whole).strip() != whole:
        return False  # "Household: a cat, Tofu (a tabby)": more than one value on the line
    tokens = value.split()
    if not tokens or len(tokens) > MAX_WORDS or value.endswith("?") or not values.is_value(value):
        return False
    if any(t.casefold().strip(".,;:!") in PERSONAL for t in tokens):
        return False
    return len(tokens) <= 3 or value[0].isupper() or value[0].isdigit() or value[0] in "$€£"


def is_personal(value: str) -> bool:
    """A value in the first or second person is chat, not a value ("I'd rather not say")."""
    return any(t.casefold().strip(".,;:!") in PERSONAL for t in value.split())
