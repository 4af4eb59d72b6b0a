"""Pieces the chat idioms share: who the subject is in a pattern, the time phrases that may open a
clause before it, and the check for a statement that need not open its clause (an apposition)."""

from __future__ import annotations

import re
from collections.abc import Callable

from agentmem.adapters.local.rules.lexicon import HYPOTHETICAL, NEGATORS

States = Callable[[str, int], bool]

# A time phrase before the subject ("On Sundays I do yoga", "Lately I've been getting into ...").
OPENER = (
    r"(?:(?:on|at)\s+(?:the\s+)?(?:weekends?|sundays|saturdays|evenings|weeknights)|"
    r"in\s+my\s+(?:spare|free)\s+time|most\s+(?:evenings|weekends|days)|lately|these\s+days|nowadays)"
    r"\s*,?\s+"
)
WORD = re.compile(r"[A-Za-z][A-Za-z']*")


def who(third: str, first_person: bool, *, we: bool = False) -> str:
    """The subject: "I" (and "we" for a household's fact) in the subject's voice, else the name
    (`third`, as `Context.third` spells it)."""
    first = [r"\b[Ii]\b", *([r"\b[Ww]e\b"] if we else [])] if first_person else []
    return "(?:" + "|".join([*first, third]) + ")"


def free(sentence: str, start: int) -> bool:
    """No hypothetical, subordinate or negating word before `start` in its sentence: for an
    apposition ("I'll ask Teodor, my partner"), which never opens its clause."""
    return not any(w.casefold() in HYPOTHETICAL | NEGATORS for w in WORD.findall(sentence[:start]))
