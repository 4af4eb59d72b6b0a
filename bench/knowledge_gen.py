"""A seeded knowledge base in prose for bench/knowledge_updates.py: invented entities (companies,
countries, cities, teams, books, films, bands, schools, museums, newspapers, people), 36 relation
phrasings, and N statements in several shapes, where a share of the (entity, relation) pairs is
updated 1 to 3 times later, often in another shape than the first statement ("The CEO of Velmora
is Dana Orrin." ... "Velmora's new CEO is Raj Tamsin."). Every value is unique in the dataset, so
a value on a line of a reader's document names one pair."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from agentmem.adapters.local.rules.lexicon import words

# (relation as written, entity kind, value kind, question word)
RELATIONS = (
    ("CEO", "company", "person", "Who"), ("CFO", "company", "person", "Who"),
    ("founder", "company", "person", "Who"), ("chairman", "company", "person", "Who"),
    ("CTO", "company", "person", "Who"), ("general counsel", "company", "person", "Who"),
    ("headquarters", "company", "place", "Where"), ("parent company", "company", "org", "What"),
    ("capital", "country", "place", "What"), ("currency", "country", "thing", "What"),
    ("official language", "country", "language", "What"), ("president", "country", "person", "Who"),
    ("prime minister", "country", "person", "Who"), ("population", "country", "number", "What"),
    ("largest city", "country", "place", "What"), ("head of state", "country", "person", "Who"),
    ("mayor", "city", "person", "Who"), ("main airport", "city", "org", "What"),
    ("police chief", "city", "person", "Who"), ("coach", "team", "person", "Who"),
    ("owner", "team", "person", "Who"), ("captain", "team", "person", "Who"),
    ("stadium", "team", "org", "What"), ("general manager", "team", "person", "Who"),
    ("author", "book", "person", "Who"), ("publisher", "book", "org", "Who"),
    ("director", "film", "person", "Who"), ("producer", "film", "person", "Who"),
    ("composer", "film", "person", "Who"), ("lead singer", "band", "person", "Who"),
    ("drummer", "band", "person", "Who"), ("principal", "school", "person", "Who"),
    ("curator", "museum", "person", "Who"), ("editor", "newspaper", "person", "Who"),
    ("spouse", "person", "person", "Who"), ("agent", "person", "person", "Who"),
)  # fmt: skip
FIRST = (
    "the {r} of {e} is {v}.",
    "{e}'s {r} is {v}.",
    "{v} is the {r} of {e}.",
)  # the last only for a capitalised value
UPDATES = (
    "the {r} of {e} is now {v}.", "{e}'s new {r} is {v}.", "the {r} of {e} has changed to {v}.",
    "{v} became the {r} of {e}.", "the {r} of {e} is no longer {old}; it is {v}.",
    "the {r} of {e} has been {v} since {year}.", "{v} is now the {r} of {e}.", "{e}'s {r} is now {v}.",
    "the {r} of {e} is {v}.", "{e}'s {r} is {v}.",  # restated as if nothing had changed
)  # fmt: skip
NAMED_ONLY = ("{v} is the", "{v} became", "{v} is now")  # shapes whose value opens the sentence
LEAD_INS = ("Briefing note: ", "From the weekly digest: ", "Update: ", "For the record, ", "")
CODAS = (" More details to follow.", " Source: the quarterly report.", " Filed by research.", "")
SYLLABLES = tuple(
    sorted(
        words("vel mor quin trax ost ra zan dor kel bri tas lum far sil ven thal cor bel nak rio pell dra")
    )
)
FIRST_NAMES = tuple(
    sorted(
        words(
            "Dana Raj Mira Tomas Ines Kofi Lena Arjun Sofia Emeka Hana Pavel Noor Luca Yara Ivo Ada Omar "
            "Kai Selma Bruno Asha Felix Greta Hugo Imani Jonas Keiko Leon Maya Nico Olga Pia Quinn Rosa"
        )
    )
)
KINDS = {
    "company": ("", " Labs", " Systems", " Group"), "country": ("ia", "land", "stan", "ova"),
    "city": ("", " Bay", " Falls", "ton"), "team": ("the {} Foxes", "the {} Rovers", "{} United"),
    "book": ("The {} Ledger", "The {} Orchard", "Letters from {}"), "film": ("{} Nights", "The {} Affair"),
    "band": ("The {} Kites", "{} Collective"), "school": ("{} Academy", "{} High"),
    "museum": ("the {} Museum",), "newspaper": ("the {} Herald", "the {} Courier"), "person": ("",),
}  # fmt: skip


@dataclass(frozen=True)
class Statement:
    pair: int  # index into Dataset.pairs
    text: str
    value: str
    changed: bool  # an update (the value replaces an earlier one of the pair)


@dataclass
class Pair:
    relation: str
    entity: str
    question: str
    key: str  # the reference key for explicit facts
    values: list[str] = field(default_factory=list)  # oldest first; the last is current


@dataclass
class Dataset:
    pairs: list[Pair]
    statements: list[Statement]  # in log order


class Names:
    """Unique invented names: each one handed out once."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._used: set[str] = set()

    def word(self) -> str:
        """A fresh word of 2 or 3 syllables: never the same word twice in one dataset."""
        while True:
            name = "".join(self._rng.choice(SYLLABLES) for _ in range(self._rng.choice((2, 2, 3))))
            if name.capitalize() not in self._used:
                self._used.add(name.capitalize())
                return name.capitalize()

    def unique(self, make: str) -> str:
        return make.format(self.word()) if "{}" in make else self.word() + make

    def person(self) -> str:
        return f"{self._rng.choice(FIRST_NAMES)} {self.word()}"


def _value(kind: str, names: Names, rng: random.Random) -> str:
    if kind == "person":
        return names.person()
    if kind == "place":
        return names.unique(rng.choice(("", " Bay", " Falls", "ton", " Harbour")))
    if kind == "org":
        return names.unique(rng.choice((" Arena", " Field", " Holdings", " Press", " International")))
    if kind == "language":
        return names.word() + "ese"
    if kind == "thing":
        return f"the {names.word().casefold()}"
    return f"{rng.randint(120, 9800) * 1000 + rng.randint(1, 999):,}"  # a population, all but unique


def _slug(text: str) -> str:
    return "_".join("".join(c for c in w if c.isalnum()) for w in text.casefold().split() if w != "the")


def _say(template: str, pair: Pair, value: str, old: str, rng: random.Random) -> str:
    core = template.format(r=pair.relation, e=pair.entity, v=value, old=old, year=rng.randint(2015, 2025))
    lead = rng.choice(LEAD_INS)
    body = core if lead == "For the record, " else core[0].upper() + core[1:]
    return f"{lead}{body}{rng.choice(CODAS)}"


def generate(seed: int, statements: int, updated_share: float = 0.4) -> Dataset:
    """About `statements` statements; `updated_share` of the pairs are updated 1-3 times."""
    rng = random.Random(seed)
    names = Names(rng)
    by_kind = {kind: [r for r in RELATIONS if r[1] == kind] for kind in KINDS}
    pairs: list[Pair] = []
    timeline: list[tuple[float, int, int]] = []  # (time, pair, version)
    while len(timeline) < statements:
        kind = rng.choice(sorted(KINDS))
        entity = names.person() if kind == "person" else names.unique(rng.choice(KINDS[kind]))
        for relation, _, value_kind, wh in rng.sample(by_kind[kind], k=min(len(by_kind[kind]), 4)):
            updates = rng.randint(1, 3) if rng.random() < updated_share else 0
            question = f"{wh} is the {relation} of {entity}?"
            pair = Pair(relation, entity, question, f"{_slug(relation)}_of_{_slug(entity)}")
            pair.values = [_value(value_kind, names, rng) for _ in range(1 + updates)]
            index = len(pairs)
            pairs.append(pair)
            at = rng.uniform(0.0, 0.6)
            for version in range(1 + updates):
                timeline.append((at, index, version))
                at = min(1.0, at + rng.uniform(0.05, 0.4))
    timeline.sort()
    out = []
    for _, index, version in timeline[:statements]:
        pair = pairs[index]
        value = pair.values[version]
        named = value[:1].isupper()
        shapes = FIRST if version == 0 else UPDATES
        usable = [s for s in shapes if named or not s.startswith(NAMED_ONLY)]
        text = _say(rng.choice(usable), pair, value, pair.values[version - 1] if version else "", rng)
        out.append(Statement(index, text, value, version > 0))
    said: dict[int, list[str]] = {}
    for statement in out:  # a pair cut off by the size keeps what was said of it
        said.setdefault(statement.pair, []).append(statement.value)
    for index, pair in enumerate(pairs):
        pair.values = said.get(index, [])
    return Dataset(pairs, out)
