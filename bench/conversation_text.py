"""The words of the conversation bench: vocabulary and templates (data files beside the code),
the facts a subject can have, and how a value is said and recognised."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).parent / "data"


def read_sections(path: Path) -> dict[str, tuple[str, ...]]:
    """`[name]` headers, one entry a line; `#` lines and blank lines are comments."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
        elif current is None:
            raise ValueError(f"{path.name}: entry before any [section]: {line!r}")
        else:
            current.append(line)
    return {name: tuple(entries) for name, entries in sections.items()}


VOCABULARY = read_sections(DATA / "conversation_vocabulary.txt")
TEMPLATES = read_sections(DATA / "conversation_templates.txt")


@dataclass(frozen=True)
class Value:
    """A value as said in a turn, and the forms that count as saying it (matched whole-word)."""

    text: str
    forms: tuple[str, ...]

    @property
    def key(self) -> str:
        return self.forms[0].casefold()


@dataclass(frozen=True)
class Slot:
    """One kind of fact a subject has. `pool` names a vocabulary section, or `money`/`age`."""

    name: str
    pool: str
    changeable: bool  # can the world change it ("we moved"), as opposed to only a correction


SLOTS = (
    Slot("city", "cities", True),
    Slot("employer", "employers", True),
    Slot("pet", "pet_names", False),
    Slot("diet", "diets", True),
    Slot("hobby", "hobbies", True),
    Slot("cuisine", "cuisines", True),
    Slot("budget", "money", True),
    Slot("age", "age", True),
    Slot("kids", "count_words", True),
    Slot("plan", "plans", True),
    Slot("partner", "partner_names", False),
)
SLOT_BY_NAME = {s.name: s for s in SLOTS}

# Agents in their own voice. The note-taker closes every session with a third-person summary.
USER, ASSISTANT, NOTE_TAKER = "user", "assistant", "note-taker"
TOOLS = ("weather-tool", "calendar-tool", "search-tool")
SPECIALISTS = ("travel-planner", "nutrition-coach", "budget-analyst", "schedule-keeper")
SPECIALIST_FOR = {
    "city": "travel-planner",
    "budget": "budget-analyst",
    "plan": "travel-planner",
    "diet": "nutrition-coach",
    "cuisine": "nutrition-coach",
}
KIND_OF_AGENT = {USER: "message", ASSISTANT: "message", NOTE_TAKER: "summary"} | {
    t: "tool_result" for t in TOOLS
}


def entry(line: str) -> Value:
    text, _, match = line.partition("|")
    return Value(text, (match or text,))


def money(amount: int) -> Value:
    return Value(f"${amount:,}", (f"${amount:,}", f"{amount:,}", str(amount)))


class ValueDrawer:
    """Draws values for one subject without repeats: a value the subject holds, had, or is
    distracted by never equals another, so finding a value in a text is unambiguous."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.reserved: set[str] = set()

    def draw(self, slot: Slot, *, reserve: bool = True, near: Value | None = None) -> Value:
        for _ in range(1000):
            value = self._candidate(slot, near)
            if not any(f.casefold() in self.reserved for f in value.forms):
                if reserve:
                    self.reserved.update(f.casefold() for f in value.forms)
                return value
        raise ValueError(f"vocabulary of {slot.name} ran out")

    def number(self, low: int, high: int) -> int:
        """A filler figure that cannot be mistaken for any value of the subject."""
        while True:
            n = self.rng.randint(low, high)
            if str(n) not in self.reserved:
                return n

    def _candidate(self, slot: Slot, near: Value | None) -> Value:
        if slot.pool == "money":
            return money(self.rng.randrange(1200, 9800, 50))
        if slot.pool == "age":
            if near is not None:  # a birthday: one year on
                return Value(str(int(near.text) + 1), (str(int(near.text) + 1),))
            age = self.rng.randint(23, 70)
            return Value(str(age), (str(age),))
        if slot.pool == "count_words" and near is not None:  # a baby: one more child
            words = [entry(e).text for e in VOCABULARY["count_words"]]
            return Value(words[words.index(near.text) + 1], (words[words.index(near.text) + 1],))
        pool = VOCABULARY[slot.pool]
        if slot.pool == "count_words":
            pool = pool[:-1]  # leave room for one more
        return entry(self.rng.choice(pool))


def fill(template: str, **values: str) -> str:
    try:
        return template.format_map(values)
    except KeyError as exc:
        raise ValueError(f"template needs {exc}: {template!r}") from exc


def template(rng: random.Random, section: str) -> str:
    choices = TEMPLATES.get(section)
    if not choices:
        raise ValueError(f"no templates under [{section}]")
    return rng.choice(choices)


def _pattern(form: str) -> re.Pattern[str]:
    # Figures must not be part of a bigger figure ("$12,400", "09:30", "4.5"), words not of a word.
    if form[:1].isdigit() or form[:1] in "$€£":
        return re.compile(rf"(?<![\w.,:$£€-]){re.escape(form)}(?!\w|[.,:]\d|%)", re.IGNORECASE)
    return re.compile(rf"(?<!\w){re.escape(form)}(?!\w)", re.IGNORECASE)


_PATTERNS: dict[str, re.Pattern[str]] = {}


def find(forms: tuple[str, ...], text: str) -> int:
    """The first position in `text` where any of `forms` is said, or -1."""
    best = -1
    for form in forms:
        pattern = _PATTERNS.get(form) or _PATTERNS.setdefault(form, _pattern(form))
        match = pattern.search(text)
        if match and (best < 0 or match.start() < best):
            best = match.start()
    return best


def says(forms: tuple[str, ...], text: str) -> bool:
    return find(forms, text) >= 0


def slug(text: str) -> str:
    import unicodedata

    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return "-".join(re.findall(r"[a-z0-9]+", ascii_text.lower()))
