"""Declarative shapes with a verb: "I live in Z", "I work at Z", "I'm 34", "I like Z", "I have 2
Z", "I started Z" and the rest docs/extraction-rules.md lists, each in the first person (the
subject's own voice) and the third ("Priya lives in Z"). A shape fires only when its subject opens
its clause and the sentence states it (see `sentences.states`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from agentmem.adapters.local.rules import changes, named, readers
from agentmem.adapters.local.rules.found import ADV, Context, Found
from agentmem.adapters.local.rules.lexicon import DIETS, NUMBER_WORDS
from agentmem.adapters.local.rules.readers import Groups

BE1, BE3, BE_WE = r"(?:'m|\s+am)", r"\s+is", r"(?:'re|\s+are)"
PERFECT1, PERFECT3 = r"(?:'ve|\s+have)?", r"(?:\s+has)?"
NUMBER = r"\d[\d,]*|" + "|".join(NUMBER_WORDS) + "|no"
COUNT_TAIL = re.compile(
    r"\s*(?:$|[.!?;,(]|\s(?:and|but|or|now|anymore|too|already|still|today|at|in|who|which|that|with|from)\b)",
    re.I,
)
Reader = Callable[[Context, Groups, str, int], Iterator[Found]]


@dataclass(frozen=True)
class Shape:
    first: tuple[str, ...]  # the verb as it follows "I", one pattern per form
    third: tuple[str, ...]  # the verb as it follows "Priya"
    read: Reader  # (context, the match's groups, the sentence after the match, subject start) -> facts
    we: tuple[str, ...] = ()  # the verb as it follows "we", for a fact of the user's household


LIKE = r"(?P<verb>like|love|enjoy|prefer|adore|hate|dislike|detest|loathe|can't stand|cannot stand)"
LIKES = (
    r"(?P<verb>likes?|loves?|enjoys?|prefers?|adores?|hates?|dislikes?|detests?|loathes?|"
    r"can't stand|cannot stand)"
)
COUNTED = rf"(?P<n>{NUMBER})\s+(?P<noun>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){{0,2}}?)(?={COUNT_TAIL.pattern})"
STATUS = r"(?P<status>married|single|divorced|engaged|widowed|separated)\b"
JOB = r"\s+(?:started|got|began|landed)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role)\s+(?P<at>at|with)\s+"
STARTED = r"(?:started|began)\s+working"
CHANGE = r"(?P<verb>started|stopped|quit|gave up|took up)\s+"
# A capitalised name that a change leaves behind: "from Porto to", "left Acme and".
OLD = r"(?-i:(?:the\s+)?[A-Z][\w&.'-]*(?:\s+(?:[A-Z][\w&.'-]*|of|de|&))*)(?:,\s+(?-i:[A-Z][\w.'-]*))?"
FROM_TO = rf"\s+(?:back\s+)?from\s+{OLD}\s+to\s+"
MOVED = r"(?:moved|relocated)"
JOINED = r"(?:joined|join|started\s+at|start\s+at|went\s+to)"
LEFT_FOR = rf"\s+(?:left|quit)\s+{OLD}\s*,?\s+(?:and|to)\s+(?:then\s+)?{JOINED}\s+"
JOBS_FROM_TO = rf"\s+(?:changed|switched)\s+(?:jobs|employers|companies)\s*,?\s+from\s+{OLD}\s+to\s+"
DIET = rf"(?P<diet>{'|'.join(sorted(DIETS, key=len, reverse=True))})(?![\w-])"
ANY_DIET = DIET.replace("?P<diet>", "")
BEING = r"(?:being\s+)?(?:an?\s+)?"
DIET_FROM = rf"\s+(?:switched|changed|moved|went|gone)\s+(?:over\s+)?from\s+{BEING}{ANY_DIET}\s+to\s+{BEING}"
TRYING = r"(?:trying|going|doing)\s+(?:out\s+)?"  # "I'm trying keto for good", "going vegan"
DIET_OF = r"\s+an?\s+{DIET}\s+diet\b".replace("{DIET}", DIET)
# Each shape: its verb forms after "I", its verb forms after "Priya", and its reader. A form is
# one pattern (group names may repeat across forms, not within one).
SHAPES = (
    Shape(
        (rf"{PERFECT1}{ADV}\s+(?:live|reside|{MOVED})\s+(?:in|to)\s+",
         rf"{BE1}{ADV}\s+(?:living|based|staying)\s+in\s+",
         rf"(?:'ve|\s+have){ADV}\s+(?:been\s+living|lived)\s+in\s+",
         rf"{PERFECT1}{ADV}\s+{MOVED}{FROM_TO}"),
        (rf"{PERFECT3}{ADV}\s+(?:lives|resides|{MOVED})\s+(?:in|to)\s+",
         rf"{BE3}{ADV}\s+(?:living|based|staying)\s+in\s+",
         rf"\s+has{ADV}\s+(?:been\s+living|lived)\s+in\s+",
         rf"{PERFECT3}{ADV}\s+{MOVED}{FROM_TO}"),
        readers.residence,
        (rf"{PERFECT1}{ADV}\s+(?:live|reside|{MOVED})\s+(?:in|to)\s+",
         rf"{BE_WE}{ADV}\s+(?:living|based|staying)\s+in\s+",
         rf"(?:'ve|\s+have){ADV}\s+(?:been\s+living|lived)\s+in\s+",
         rf"{PERFECT1}{ADV}\s+{MOVED}{FROM_TO}"),
    ),
    Shape(
        (rf"{ADV}\s+(?:work|{STARTED}|(?:'m|\s+am)\s+working)\s+(?P<prep>at|for)\s+", ADV + JOB,
         rf"{PERFECT1}{ADV}\s+(?:joined|started\s+at)\s+", rf"{BE1}{ADV}\s+employed\s+(?P<prep>at|by)\s+",
         PERFECT1 + ADV + LEFT_FOR, PERFECT1 + ADV + JOBS_FROM_TO),
        (rf"{ADV}\s+(?:works|{STARTED}|is\s+working)\s+(?P<prep>at|for)\s+", ADV + JOB,
         rf"{PERFECT3}{ADV}\s+(?:joined|started\s+at)\s+", rf"{BE3}{ADV}\s+employed\s+(?P<prep>at|by)\s+",
         PERFECT3 + ADV + LEFT_FOR, PERFECT3 + ADV + JOBS_FROM_TO),
        readers.employer,
    ),
    Shape(
        (rf"{ADV}\s+(?:work|(?:'m|\s+am)\s+working)\s+as\s+", rf"{BE1}{ADV}\s+employed\s+as\s+"),
        (rf"{ADV}\s+(?:works|is\s+working)\s+as\s+", rf"{BE3}{ADV}\s+employed\s+as\s+"),
        readers.occupation,
    ),
    Shape(
        (rf"{BE1}(?P<neg>\s+no\s+longer)?{ADV}\s+an?\s+",),
        (rf"{BE3}(?P<neg>\s+no\s+longer)?{ADV}\s+an?\s+",),
        readers.identity,
    ),
    Shape(
        (rf"{BE1}{ADV}\s+(?P<n>\d{{1,3}})\b", rf"{PERFECT1}{ADV}\s+turned\s+(?P<n>\d{{1,3}})\b"),
        (rf"{BE3}{ADV}\s+(?P<n>\d{{1,3}})\b", rf"{PERFECT3}{ADV}\s+turned\s+(?P<n>\d{{1,3}})\b"),
        readers.age,
    ),
    Shape(
        (rf"{BE1}{ADV}\s+{DIET}", rf"{ADV}\s+eat\s+{DIET}", rf"{ADV}\s+(?:follow|keep|eat){DIET_OF}",
         rf"{BE1}{ADV}\s+on{DIET_OF}", PERFECT1 + ADV + DIET_FROM + DIET, rf"{BE1}{ADV}\s+{TRYING}{DIET}"),
        (rf"{BE3}{ADV}\s+{DIET}", rf"{ADV}\s+eats\s+{DIET}", rf"{ADV}\s+(?:follows|keeps|eats){DIET_OF}",
         rf"{BE3}{ADV}\s+on{DIET_OF}", PERFECT3 + ADV + DIET_FROM + DIET, rf"{BE3}{ADV}\s+{TRYING}{DIET}"),
        readers.diet,
    ),
    Shape(
        (rf"{BE1}{ADV}\s+{STATUS}", rf"{ADV}\s+got\s+{STATUS}"),
        (rf"{BE3}{ADV}\s+{STATUS}", rf"{ADV}\s+got\s+{STATUS}"),
        readers.marital,
    ),
    Shape((r"(?:'m|\s+am)\s+called\s+", r"\s+go\s+by\s+"), (r"\s+is\s+called\s+", r"\s+goes\s+by\s+"),
          readers.given_name),
    Shape(
        (rf"{ADV}(?:\s+(?P<neg>don't|do not|no longer|never))?{ADV}\s+{LIKE}\b\s+",),
        (rf"{ADV}(?:\s+(?P<neg>doesn't|does not|no longer|never))?{ADV}\s+{LIKES}\b\s+",),
        readers.preference,
    ),
    Shape(
        (rf"{ADV}(?:'ve\s+got|'ve|\s+have\s+got|\s+have|\s+own){ADV}\s+{COUNTED}",),
        (rf"{ADV}(?:\s+has\s+got|\s+has|\s+owns){ADV}\s+{COUNTED}",),
        readers.counted,
        (rf"(?:'ve\s+got|'ve|\s+have\s+got|\s+have|\s+own){ADV}\s+{COUNTED}",),
    ),
    Shape((rf"{PERFECT1}{ADV}\s+{CHANGE}",), (rf"{PERFECT3}{ADV}\s+{CHANGE}",), readers.activity),
    Shape(
        (rf"{ADV}\s+(?:make|earn|take home|bring in)\s+", rf"{BE1}\s+(?:making|earning)\s+"),
        (rf"{ADV}\s+(?:makes|earns|takes home|brings in)\s+", rf"{BE3}\s+(?:making|earning)\s+"),
        readers.income,
    ),
    Shape((rf"{BE1}\s+(?:originally\s+)?from\s+",), (rf"{BE3}\s+(?:originally\s+)?from\s+",),
          readers.hometown),
    Shape((r"\s+was\s+born\s+in\s+",), (r"\s+was\s+born\s+in\s+",), readers.birth),
    Shape((rf"{BE1}\s+allergic\s+to\s+",), (rf"{BE3}\s+allergic\s+to\s+",), readers.allergy),
)  # fmt: skip
WE = r"\b[Ww]e\b"
CALL_ME = re.compile(r"(?:^|(?<=[,;:]\s))(?P<subj>call\s+me)\s+", re.I)


@lru_cache(maxsize=256)
def _compiled(subject: str, first_person: bool) -> tuple[tuple[Shape, re.Pattern[str]], ...]:
    forms = [
        (shape, subject, form) for shape in SHAPES for form in (shape.first if first_person else shape.third)
    ]
    if first_person:  # "we" in the user's own words: the user's household
        forms += [(shape, WE, form) for shape in SHAPES for form in shape.we]
    return tuple((shape, re.compile(rf"(?P<subj>{subj})(?:{form})", re.I)) for shape, subj, form in forms)


def find(ctx: Context, sentence: str, states: Callable[[str, int], bool]) -> Iterator[Found]:
    """Every shape's statements in `sentence` that `states` accepts, in no particular order."""
    for subject, first_person in ctx.subjects():
        for shape, pattern in _compiled(subject, first_person):
            for m in pattern.finditer(sentence):
                if states(sentence, m.start("subj")):
                    yield from shape.read(ctx, m.groupdict(), sentence[m.end() :], m.start("subj"))
    yield from named.find(ctx, sentence, states)
    yield from changes.find(ctx, sentence, states)
    if ctx.first_person:
        for m in CALL_ME.finditer(sentence):
            if states(sentence, m.start("subj")):
                yield from readers.given_name(ctx, m.groupdict(), sentence[m.end() :], m.start("subj"))
