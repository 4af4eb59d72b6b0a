"""What a later statement says is over, read at read time from the passages a read found.

A belief's provenance names the old values extraction read ("moved from Porto", superseded.py).
Extraction misses much of what people say: "Honestly I'm over Oaxacan now; Lebanese is my
favourite" states no key the rules know, nor would a model be sure which one. Yet it says plainly
that Oaxacan is over, and a read that shows an earlier "Oaxacan is the one cuisine I'd eat
forever" beside it, unlabelled, contradicts the user. So each passage a read found is scanned for
a retirement: a phrase after a cue that ends it ("no longer", "gave up", "I'm over", "instead
of", "switched from X to", "(was X)", ", not $2,300", "X was our old cat"). An earlier passage, or
a belief last stated earlier, that says the phrase gets a label quoting the later sentence, so
the reader sees both and which came last; nothing is dropped on the strength of a regex.

The cues are English, like the rules. A phrase counts only when it is distinctive (superseded.py's
test) and not a word about the conversation itself ("no more questions"). A capitalised name or a
figure inside a longer phrase ("live in Porto") is looked for on its own too, since the earlier
passage may say it in other words ("The winters in Porto are mild")."""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from agentmem.context.retirement_cues import ABOUT_THE_TALK, FIGURES, LEADING, NAMES, NOT_A_THING, prefiltered
from agentmem.context.superseded import distinctive, whole_word
from agentmem.context.text import words
from agentmem.model.beliefs import Belief, normalise_value
from agentmem.model.events import Event
from agentmem.model.passages import Passage
from agentmem.semantic.fold import last_stated

MAX_SENTENCE_CHARS = 160
SENTENCE = re.compile(r"[^.!?]*(?:[.!?]+|$)")


@dataclass(frozen=True)
class Said:
    """A phrase one text says is over: the forms to look for, and the sentence saying it."""

    forms: tuple[str, ...]  # normalised; the whole phrase first
    patterns: tuple[re.Pattern[str], ...]
    anchors: tuple[frozenset[str], ...]  # each form's words: a cheap test before the pattern
    sentence: str


@dataclass(frozen=True)
class Retirement:
    """A phrase a passage says is over, who said it and when."""

    said: Said
    event_id: str
    session_id: str
    stated_at: str

    @property
    def phrase(self) -> str:
        return self.said.forms[0]

    @property
    def sentence(self) -> str:
        return self.said.sentence

    def says(self, text: str, text_words: frozenset[str]) -> bool:
        """Whether a normalised text (and its words) says the retired phrase or a name in it."""
        return any(
            anchor <= text_words and pattern.search(text)
            for anchor, pattern in zip(self.said.anchors, self.said.patterns, strict=True)
        )

    @property
    def label(self) -> str:
        # The caller ends a label with its own full stop.
        return f"later in {self.session_id}: “{self.sentence.rstrip('.!? ')}”"


def _word_set(text: str) -> frozenset[str]:
    return frozenset(words(text))


def _looked_for(raw: str) -> list[str]:
    """The normalised forms an earlier passage may say the retired phrase by."""
    phrase = LEADING.sub("", raw.strip(" ,.'")).strip()
    if not phrase or phrase.split()[0].casefold() in NOT_A_THING:
        return []
    forms = [phrase, *NAMES.findall(phrase), *FIGURES.findall(phrase)]
    out: list[str] = []
    for form in forms:
        norm = normalise_value(form)
        if norm and norm not in out and norm not in ABOUT_THE_TALK and distinctive(norm):
            out.append(norm)
    return out


def _sentence(text: str, at: int) -> str:
    """The sentence of `text` around character `at`, no longer than MAX_SENTENCE_CHARS."""
    for m in SENTENCE.finditer(text):
        if m.start() <= at < max(m.end(), m.start() + 1):
            found = m.group().strip()
            break
    else:
        found = text.strip()
    if len(found) <= MAX_SENTENCE_CHARS:
        return found
    return found[: MAX_SENTENCE_CHARS - 1].rsplit(" ", 1)[0] + "…"


@lru_cache(maxsize=20_000)
def said_over(text: str) -> tuple[Said, ...]:
    """What one text says is over, each phrase once; cached, as a read scans the same passages
    again and again and texts never change."""
    low = text.casefold()
    out: list[Said] = []
    for pattern, literals in prefiltered():
        if not any(literal in low for literal in literals):
            continue
        for m in pattern.finditer(text):
            forms = _looked_for(m.group("old"))
            if forms and all(forms[0] != said.forms[0] for said in out):
                out.append(
                    Said(
                        forms=tuple(forms),
                        patterns=tuple(whole_word(f) for f in forms),
                        anchors=tuple(_word_set(f) for f in forms),
                        sentence=_sentence(text, m.start("old")),
                    )
                )
    return tuple(out)


def retirements(passages: Iterable[Passage]) -> list[Retirement]:
    """Every phrase the passages say is over, in passage order, each once per event."""
    out: list[Retirement] = []
    seen: set[tuple[str, str]] = set()
    for passage in passages:
        for said in said_over(passage.text):
            if (passage.event_id, said.forms[0]) not in seen:
                seen.add((passage.event_id, said.forms[0]))
                out.append(Retirement(said, passage.event_id, passage.session_id, passage.stated_at))
    return out


def event_passage(event: Event, text: str) -> Passage:
    """A whole event of the reader's session as one passage, for `retirements`."""
    return Passage(
        subject_id=event.subject_id,
        session_id=event.session_id,
        seq=event.seq,
        span=(0, len(text)),
        event_id=event.event_id,
        agent=event.agent,
        kind=event.kind,
        stated_at=event.created_at,
        stored=event.stored,
        text=text,
    )


def in_beliefs(beliefs: Iterable[Belief]) -> list[Passage]:
    """The current beliefs' sentences as passages of their last statement, for `retirements`: a
    change read by extraction keeps its own sentence as its text ("I gave up pottery; these days
    it's bonsai"), and its passage is then often left out of history as standing for the belief.
    Put them after the read's passages, so the event's own words are the ones quoted."""
    return [
        Passage(
            subject_id=b.subject_id,
            session_id=b.provenance[-1].session_id,
            seq=b.provenance[-1].seq,
            span=(0, len(b.text)),
            event_id=b.provenance[-1].event_id,
            agent="",
            kind="belief",
            stated_at=last_stated(b),
            text=b.text,
        )
        for b in beliefs
        if b.current and b.provenance
    ]


class Retired:
    """The retirements of one read, indexed by a word each form needs, so a passage is checked
    only against those it could say; in order, the first of each event kept."""

    def __init__(self, found: Iterable[Retirement] = ()) -> None:
        self.found = list(found)
        self._latest = max((r.stated_at for r in self.found), default="")
        self._by_word: dict[str, list[int]] = {}
        for n, r in enumerate(self.found):
            for word in {min(anchor) for anchor in r.said.anchors if anchor}:
                self._by_word.setdefault(word, []).append(n)

    def __bool__(self) -> bool:
        return bool(self.found)

    def said_in(self, text: str, *, after: str, excluded: AbstractSet[str]) -> list[Retirement]:
        """The retirements said after `after`, by no event in `excluded`, of a phrase `text` says."""
        if after >= self._latest:
            return []
        norm = normalise_value(text)
        text_words = _word_set(norm)
        tried = sorted({n for word in text_words for n in self._by_word.get(word, ())})
        seen: set[str] = set()
        out: list[Retirement] = []
        for r in (self.found[n] for n in tried):
            if r.event_id in seen or r.stated_at <= after or r.event_id in excluded:
                continue
            if r.says(norm, text_words):
                seen.add(r.event_id)
                out.append(r)
        return out


def later_for_passage(passage: Passage, retired: Retired) -> list[Retirement]:
    """The retirements said after the passage, by another event, of a phrase the passage says."""
    return retired.said_in(passage.text, after=passage.stated_at, excluded={passage.event_id})


def later_for_belief(belief: Belief, retired: Retired) -> list[Retirement]:
    """The retirements of the belief's value said after the belief was last stated, by an event
    that is not one of its statements."""
    if not belief.current:
        return []
    return retired.said_in(
        belief.value, after=last_stated(belief), excluded={p.event_id for p in belief.provenance}
    )
