"""Later passages about what the best history hits name.

An update rarely repeats the question's words. "Which cuisine does Ingrid like best?" finds "If I
could eat one cuisine forever it would be Sri Lankan" (it says "cuisine"), but not the later
"These days I'd take Keralan over Sri Lankan any night", which shares no word with the question
and little meaning. It does share the name. So the names the best keyword hits say (capitalised
words and phrases that do not open a sentence, besides the subject's and the question's own)
are searched once more by keyword, while the query is embedded, and a passage found that way
which was said after a best hit naming the same thing ranks just below that hit: the reader sees
the old statement and what came after it side by side, and a retirement in the later one labels
the earlier (retirements.py). The keyword hits only: the vector hits come after the embedding,
and waiting for them put the second search on every read's critical path.

The best beliefs' values are followed the same way (`follow_beliefs`): a statement that ended a
belief's value ("No, it's not bonsai — that's my sister") rarely shares the question's words."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agentmem.context.superseded import distinctive, whole_word
from agentmem.model.beliefs import Belief, normalise_value
from agentmem.model.passages import Passage, PassageHit
from agentmem.semantic.fold import last_stated

FOLLOW_FROM = 10  # best keyword hits whose names are followed
MAX_NAMES = 4  # each word is one more FTS count query
FOLLOW_K = 12
# A long value (a sentence kept as a value) is no search term of its own.
MAX_VALUE_WORDS = 4
# Just below the hit it follows: above whatever ranked below that hit.
BELOW = 0.999
NAME = re.compile(r"(?<![\w'])[A-Z][\w'&-]*(?:\s+(?:of\s+|de\s+|la\s+)?[A-Z][\w'&-]*)*")
# A capital after a sentence's end opens it; after a colon or a dash it may well be a name.
OPENERS = frozenset('.!?"“(')
POSSESSIVE = re.compile(r"['\u2019]s$")
CONNECTORS = re.compile(r"^(?:(?:of|de|la)\s+)+")
# Capitalised for the calendar's sake, not because they name the fact.
CALENDAR = frozenset({
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
    "february", "march", "april", "june", "july", "august", "september", "october", "november",
    "december", "today", "tomorrow", "yesterday",
})  # fmt: skip


def names_in(text: str) -> list[str]:
    """The normalised names a text says, not counting a capital that only opens a sentence."""
    out: list[str] = []
    for m in NAME.finditer(text):
        phrase = POSSESSIVE.sub("", m.group())  # "Elif's" names Elif
        before = text[max(0, m.start() - 8) : m.start()].rstrip()
        if m.start() == 0 or not before or before[-1] in OPENERS:
            phrase = CONNECTORS.sub("", phrase.split(maxsplit=1)[1]) if " " in phrase else ""
        norm = normalise_value(phrase)
        if norm and distinctive(norm) and norm not in CALENDAR and norm not in out:
            out.append(norm)
    return out


@dataclass(frozen=True)
class FollowUp:
    """The names to search again, and the best hits that said each."""

    names: tuple[str, ...]
    said_by: dict[str, tuple[Passage, ...]]

    @property
    def query(self) -> str:
        return " ".join(self.names)


def follow_up(best: Iterable[Passage], query: str, subject_id: str) -> FollowUp | None:
    """What the best passages name beyond the question's words and the subject's name, or None."""
    known = set(normalise_value(query).split()) | set(normalise_value(subject_id.replace("-", " ")).split())
    said_by: dict[str, list[Passage]] = {}
    for passage in best:
        for name in names_in(passage.text):
            if not set(name.split()) <= known:
                said_by.setdefault(name, []).append(passage)
    if not said_by:
        return None
    names = tuple(list(said_by)[:MAX_NAMES])
    return FollowUp(names, {n: tuple(said_by[n]) for n in names})


def ranked_after(
    fused: Sequence[tuple[float, Passage]], later: Sequence[PassageHit], chased: FollowUp | None
) -> list[tuple[float, Passage]]:
    """`fused` with each later passage the follow-up found, not already in it, just below the
    best-ranked passage said before it that names the same thing."""
    if chased is None or not later:
        return list(fused)
    rank = {p.passage_id: (score, p) for score, p in fused}
    out = list(fused)
    for hit in later:
        passage = hit.passage
        if passage.passage_id in rank:
            continue
        text = normalise_value(passage.text)
        earlier = [
            rank[p.passage_id]
            for name in chased.names
            if whole_word(name).search(text)
            for p in chased.said_by[name]
            if p.passage_id in rank and p.stated_at < passage.stated_at and p.event_id != passage.event_id
        ]
        if earlier:
            best = max(score for score, _ in earlier)
            out.append((best * BELOW, passage))
            rank[passage.passage_id] = (best * BELOW, passage)
    return sorted(out, key=lambda item: -item[0])


FOLLOW_BELIEFS = 8  # best-ranked beliefs whose values are followed


@dataclass(frozen=True)
class BeliefFollowUp:
    """The values of the best beliefs, to search for what was said of them later."""

    values: dict[str, tuple[str, ...]]  # normalised value -> when each belief saying it was last stated

    @property
    def query(self) -> str:
        return " ".join(self.values)

    def said_later(self, hits: Iterable[PassageHit]) -> list[Passage]:
        """The passages that say a value after the belief holding it was last stated."""
        out: list[Passage] = []
        for hit in hits:
            text = normalise_value(hit.passage.text)
            if any(
                whole_word(value).search(text) and any(hit.passage.stated_at > at for at in stated)
                for value, stated in self.values.items()
            ):
                out.append(hit.passage)
        return out


def follow_beliefs(beliefs: Sequence[Belief]) -> BeliefFollowUp | None:
    """What to search for after the best current beliefs: the extractor may have missed the
    statement that ended one ("No, it's not bonsai — that's my sister"), which then says the
    belief's value without the query's words."""
    values: dict[str, list[str]] = {}
    for belief in [b for b in beliefs if b.current][:FOLLOW_BELIEFS]:
        value = normalise_value(belief.value)
        if value and distinctive(value) and len(value.split()) <= MAX_VALUE_WORDS:
            values.setdefault(value, []).append(last_stated(belief))
    return BeliefFollowUp({v: tuple(at) for v, at in values.items()}) if values else None
