"""The cues that end something, as patterns: what retirements.py looks for in a passage.

A cue is followed (or, for "X was our old cat" and "X is my partner's company", preceded) by the
phrase it ends; the phrase ends at a clause mark or at a word that starts what follows ("now",
"these days", "last spring", "in favour of"). English only, like the rules."""

from __future__ import annotations

import re
from functools import cache

Cue = tuple[str, int]  # a pattern and its flags, compiled by `prefiltered`

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
AFTER_CUE: Cue = (rf"\b(?:{ENDED_BY})\s+{VERB}{PHRASE}{END}", re.I)
FROM_TO: Cue = (rf"\b{CHANGED_FROM}\s+{PHRASE}\s+to\b", re.I)
BRACKETED: Cue = (rf"\((?:was|previously|formerly|not)\s+{PHRASE}\)", re.I)
NOT_ANY_MORE: Cue = (rf"(?:\bnot|n't)\s+{VERB}{PHRASE}\s+any\s*more\b", re.I)
# ", not $2,300" and "not Lisbon, Porto": only a figure or a name, where "not" is a correction.
NAME_OR_FIGURE = r"(?P<old>[$€£]?\d[\d,.]*|[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*){0,3})"
NOT_THAT: Cue = (rf"(?:,|\u2014|\u2013|^|\bit's|\bit\s+is)\s*[Nn]ot\s+{NAME_OR_FIGURE}{END}", 0)
OLD_ONE: Cue = (
    rf"\b{NAME_OR_FIGURE}\s+(?:was|were)\s+(?:my|our|his|her|their|the)\s+(?:old|previous|former|last)\b",
    0,
)
OVER: Cue = (
    rf"\b(?:take|prefer|choose|pick|taking|preferring|choosing|picking)\s+[^.;!?]{{1,40}}?\s+over\s+{PHRASE}{END}",
    re.I,
)
# "No, it's not bonsai — that's my sister": a correction may deny a lowercase thing, before a break.
NOT_THIS: Cue = (rf"\bit(?:'s|\s+is|\s+was|\s+isn't)\s+not\s+{PHRASE}(?=\s*[\u2014\u2013;,])", re.I)
# "Glasswing Software is my partner's company": a mix-up, the name is someone else's.
KIN = (
    r"partner|wife|husband|sister|brother|friend|colleague|mother|father|mum|mom|dad|son|daughter|"
    r"cousin|neighbou?r|boss|flatmate|roommate"
)
SOMEONE_ELSES: Cue = (rf"\b{NAME_OR_FIGURE}\s+(?:is|was)\s+(?:my|our)\s+(?:{KIN})'s\b", 0)

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

# A phrase opening with these says how or why, not what: "it's not about the money".
NOT_A_THING = frozenset(
    {"about", "what", "how", "why", "that", "because", "like", "as", "so", "too", "very", "even"}
)

# Each pattern runs only on a text holding one of its literals: most passages end nothing, and
# the lazy phrase of a pattern is costly to try at every position of every passage of a read.
LITERALS: tuple[tuple[Cue, tuple[str, ...]], ...] = (
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


@cache
def prefiltered() -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    """Each cue compiled, with its literals. Compiled on the first read that needs them, not at
    import: the wiring imports the session window, and with it this module, in every function,
    and compiling these took about 19 ms of each Lambda's cold start."""
    return tuple((re.compile(source, flags), literals) for (source, flags), literals in LITERALS)
