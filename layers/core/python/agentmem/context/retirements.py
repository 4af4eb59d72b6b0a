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

from agentmem.context.superseded import distinctive
from agentmem.model.beliefs import Belief, normalise_value
from agentmem.model.events import Event
from agentmem.model.passages import Passage

WORD_OR_FIGURE = r"(?:[$€£]?\d[\d,.]*\d|[$€£]?\d|[\w'&-]+)"
PHRASE = rf"(?P<old>{WORD_OR_FIGURE}(?:\s+{WORD_OR_FIGURE}){{0,7}}?)"
# Where a retired phrase ends: a clause mark, or a word that starts what comes after it.
STOPS = (
    r"to|and|but|so|now|any\s*more|anymore|since|after|because|these\s+days|for\s+good|"
    r"in\s+favou?r\s+of|over|any|every|either|altogether|entirely|completely|though|too|at\s+all|"
    # when it ended is no part of what ended: "gave up fly fishing last spring"
    r"last|this\s+(?:year|month|week|spring|summer|autumn|fall|winter)|yesterday|recently|lately|"
    r"ago|when|while|as|until|ever\s+since|years?|months?|weeks?"
)
END = rf"(?=\s*(?:$|[.;:!?()\u2014\u2013,]|\s(?:{STOPS})\b))"
# The verb a retired thing may follow: "no longer live in Porto" retires Porto, not "live".
VERB = (
    r"(?:(?:be|being|am|does|did|live|living|work|working|eat|eating|like|liking|love|loving|do|doing|play|"
    r"playing|have|having|own|owning|go|going|use|using|drive|driving|follow|following|interested)"
    r"(?:\s+(?:in|at|for|with|to|on))?\s+)?"
)
ENDED_BY = (
    r"no\s+longer|no\s+more(?!\s+than)|gave\s+up(?:\s+on)?|giving\s+up(?:\s+on)?|given\s+up(?:\s+on)?|"
    r"quit|stopped|done\s+with|(?:i'm|i\s+am|we're|we\s+are)\s+over|dropped|cancell?ed|"
    r"moved\s+away\s+from|moved\s+out\s+of|never\s+(?:lived|worked|been)\s+(?:in|at|for|to)|"
    r"instead\s+of|rather\s+than|used\s+to|handed\s+in\s+(?:my|our|his|her|their)\s+notice\s+at|"
    r"resigned\s+from|(?:was|were|got)\s+(?:laid\s+off|let\s+go)\s+(?:from|by)"
)
CHANGED_FROM = (
    r"(?:moved|switched|changed|went|upgraded|downgraded|relocated|transferred|converted|shifted|"
    r"raised|lowered|cut|increased|reduced|bumped|dropped|down|up)\s+from"
)
AFTER_CUE = re.compile(rf"\b(?:{ENDED_BY})\s+{VERB}{PHRASE}{END}", re.I)
FROM_TO = re.compile(rf"\b{CHANGED_FROM}\s+{PHRASE}\s+to\b", re.I)
BRACKETED = re.compile(rf"\((?:was|previously|formerly|not)\s+{PHRASE}\)", re.I)
NOT_ANY_MORE = re.compile(rf"(?:\bnot|n't)\s+{VERB}{PHRASE}\s+any\s*more\b", re.I)
# ", not $2,300" and "not Lisbon, Porto": only a figure or a name, where "not" is a correction.
NAME_OR_FIGURE = r"(?P<old>[$€£]?\d[\d,.]*|[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*){0,3})"
NOT_THAT = re.compile(rf"(?:,|\u2014|\u2013|^|\bit's|\bit\s+is)\s*[Nn]ot\s+{NAME_OR_FIGURE}{END}")
OLD_ONE = re.compile(
    rf"\b{NAME_OR_FIGURE}\s+(?:was|were)\s+(?:my|our|his|her|their|the)\s+(?:old|previous|former|last)\b"
)
OVER = re.compile(
    rf"\b(?:take|prefer|choose|pick|taking|preferring|choosing|picking)\s+[^.;!?]{{1,40}}?\s+over\s+{PHRASE}{END}",
    re.I,
)
# "No, it's not bonsai — that's my sister": a correction may deny a lowercase thing, before a break.
NOT_THIS = re.compile(rf"\bit(?:'s|\s+is|\s+was|\s+isn't)\s+not\s+{PHRASE}(?=\s*[\u2014\u2013;,])", re.I)
# "Glasswing Software is my partner's company": a mix-up, the name is someone else's.
KIN = (
    r"partner|wife|husband|sister|brother|friend|colleague|mother|father|mum|mom|dad|son|daughter|"
    r"cousin|neighbou?r|boss|flatmate|roommate"
)
SOMEONE_ELSES = re.compile(rf"\b{NAME_OR_FIGURE}\s+(?:is|was)\s+(?:my|our)\s+(?:{KIN})'s\b")
PATTERNS = (AFTER_CUE, FROM_TO, BRACKETED, NOT_ANY_MORE, NOT_THAT, NOT_THIS, OLD_ONE, OVER, SOMEONE_ELSES)

LEADING = re.compile(r"^(?:(?:a|an|the|my|our|his|her|their|some|any|at|in|for|on)\s+)+", re.I)
NAMES = re.compile(r"(?<![\w'])(?:[A-Z][\w'&-]+(?:\s+(?:of\s+|de\s+|la\s+)?[A-Z][\w'&-]+)*)")
FIGURES = re.compile(r"[$€£]?\d[\d,.]*\d|[$€£]?\d")
# Words about the conversation rather than a fact: "no more questions", "no longer needed".
ABOUT_THE_TALK = frozenset({
    "question", "questions", "problem", "problems", "issue", "issues", "worry", "worries", "need",
    "needed", "necessary", "required", "time", "thanks", "help", "call", "calls", "meeting",
    "meetings", "email", "emails", "message", "messages", "change", "changes", "update", "updates",
    "excuses", "delays", "sense", "idea", "talk", "chat", "reminders", "notifications", "available",
    "possible", "relevant", "valid", "option", "case", "true", "works", "working", "sure", "than",
    "that", "this", "these", "those", "there", "here", "it", "them", "him", "her", "you", "me",
    # what follows "it's not" without naming a thing: "it's not great, but"
    "great", "good", "bad", "fine", "easy", "cheap", "ideal", "perfect", "important", "urgent",
    "clear", "ready", "done", "over", "worth", "much", "enough", "really", "quite", "exactly",
    "right", "wrong", "correct", "always", "just", "only", "yet",
})  # fmt: skip
MAX_SENTENCE_CHARS = 160
WORDS = re.compile(r"[a-z0-9]+")
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


def _whole(value: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9]){re.escape(value)}(?![a-z0-9])")


def normalised_words(text: str) -> frozenset[str]:
    return frozenset(WORDS.findall(text))


# A phrase opening with these says how or why, not what: "it's not about the money".
NOT_A_THING = frozenset(
    {"about", "what", "how", "why", "that", "because", "like", "as", "so", "too", "very", "even"}
)


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


# Each pattern runs only on a text holding one of its literals: most passages end nothing, and
# the lazy phrase of a pattern is costly to try at every position of every passage of a read.
PREFILTERED = (
    (AFTER_CUE, ("no longer", "no more", "gave up", "giving up", "given up", "quit", "stopped", "done with",
                 "over", "dropped", "cancel", "moved", "never", "instead of", "rather than", "used to",
                 "notice", "resigned", "laid off", "let go")),
    (FROM_TO, (" from ",)),
    (BRACKETED, ("(",)),
    (NOT_ANY_MORE, ("any",)),
    (NOT_THAT, ("not",)),
    (NOT_THIS, ("not",)),
    (OLD_ONE, (" was ", " were ")),
    (OVER, (" over ",)),
    (SOMEONE_ELSES, ("'s",)),
)  # fmt: skip


@lru_cache(maxsize=20_000)
def said_over(text: str) -> tuple[Said, ...]:
    """What one text says is over, each phrase once; cached, as a read scans the same passages
    again and again and texts never change."""
    low = text.casefold()
    out: list[Said] = []
    for pattern, literals in PREFILTERED:
        if not any(literal in low for literal in literals):
            continue
        for m in pattern.finditer(text):
            forms = _looked_for(m.group("old"))
            if forms and all(forms[0] != said.forms[0] for said in out):
                out.append(
                    Said(
                        forms=tuple(forms),
                        patterns=tuple(_whole(f) for f in forms),
                        anchors=tuple(normalised_words(f) for f in forms),
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
            stated_at=b.source_order.split("|", 1)[0],
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
        words = normalised_words(norm)
        tried = sorted({n for word in words for n in self._by_word.get(word, ())})
        seen: set[str] = set()
        out: list[Retirement] = []
        for r in (self.found[n] for n in tried):
            if r.event_id in seen or r.stated_at <= after or r.event_id in excluded:
                continue
            if r.says(norm, words):
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
    last_stated = belief.source_order.split("|", 1)[0]
    return retired.said_in(belief.value, after=last_stated, excluded={p.event_id for p in belief.provenance})
