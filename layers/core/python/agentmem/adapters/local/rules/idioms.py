"""The chat idioms about the subject that no plain verb shape reads: "nothing beats Basque food",
"we're planning a ski season in Hokkaido", "on weekends I do salsa dancing", "I'm on the data
team at Acme", "I set aside $3,950 for travel", "Priya, aged 49, ...", "Figaro, my budgie". Each
concept has its module; docs/extraction-rules.md lists every idiom and what it refuses.

A module's `find(ctx, sentence, states, before)` yields facts; `before` is the sentence just
before when it stated nothing ("New job!", "Correction: Pepper was our old cat."), which some
idioms read for their context or the old value."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from agentmem.adapters.local.rules import hobbies, household, money, plans, tastes, work
from agentmem.adapters.local.rules.found import Context, Found

States = Callable[[str, int], bool]
MODULES = (tastes, plans, hobbies, work, money, household)


def find(ctx: Context, sentence: str, states: States, before: str) -> Iterator[Found]:
    for module in MODULES:
        yield from module.find(ctx, sentence, states, before)


def supersede(found: list[Found]) -> list[Found]:
    """A hobby change ("I gave up tennis; these days it's padel") tells what was given up as the
    old value of the hobby, so the same words are no activity of their own ("gave up tennis")."""
    told = {_words(w) for f in found if f.key == "hobby" for w in (f.value, f.replaces or "")}
    return [f for f in found if not (f.key == "activity" and _words(_object(f.value)) in told)]


def _object(activity: str) -> str:
    """ "tennis" of "gave up tennis", "padel" of "started padel"."""
    return re.sub(r"^(?:gave\s+up|took\s+up|started|stopped|quit)\s+", "", activity.casefold())


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))
