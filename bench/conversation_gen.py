"""A seeded set of multi-agent conversations about people, with questions labelled by the turns
that answer them.

Each subject is a person talking, over N sessions, to an assistant that calls tools and specialist
agents; a note-taker closes each session with a third-person summary. Eight facts per subject are
drawn from eleven slots (city, employer, pet, diet, hobby, favourite cuisine, travel budget, age,
children, plans, partner) and each gets a story:

- stable: said once (sometimes echoed in that session's summary);
- restated: said again in later sessions, in other words, by the user or an agent;
- changed: the world changed it ("we moved from Porto to Lisbon"), perhaps restated after;
- corrected: an earlier statement was wrong and is contradicted ("I never lived in Porto");
- summary_only: only ever said by an agent, in the third person.

Around the facts: filler turns (tool output, small talk), near-miss distractors (the same kind of
word about someone else: "my sister just moved to Ghent", "the city is gorgeous in May").

One question per fact, asked after the last session: its labels are the turns that state the
current value (`evidence`), the current value, and for changed and corrected facts the value it
superseded and the turns that stated that. Turn ids are stable (`<subject>/s03/t07`); the harness
maps them to (session, seq) when it appends. Subject i's conversations depend only on the seed, i
and the number of sessions, so a smaller run is a prefix of a bigger one."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from conversation_text import (
    ASSISTANT,
    KIND_OF_AGENT,
    NOTE_TAKER,
    SLOT_BY_NAME,
    SLOTS,
    SPECIALIST_FOR,
    SPECIALISTS,
    TEMPLATES,
    TOOLS,
    USER,
    VOCABULARY,
    Slot,
    Value,
    ValueDrawer,
    entry,
    fill,
    slug,
    template,
)

FACTS_PER_SUBJECT = 8
CATEGORIES = ("changed", "changed", "corrected", "restated", "restated", "summary_only", "stable", "stable")
USER_USES = frozenset({"state", "restate", "change", "correct"})


@dataclass(frozen=True)
class Mention:
    """One statement of a fact inside a turn: `clause` is the exact sentence, `value` what it says
    is true now, and `old` what it says is no longer true (changes and corrections)."""

    slot: str
    use: str
    value: Value
    clause: str
    old: Value | None = None


@dataclass(frozen=True)
class Turn:
    turn_id: str
    session: int
    agent: str
    kind: str
    content: str
    mentions: tuple[Mention, ...] = ()


@dataclass(frozen=True)
class Question:
    question_id: str
    subject_id: str
    slot: str
    category: str
    text: str
    current: Value
    superseded: Value | None
    evidence: tuple[str, ...]  # turn ids that state the current value
    superseded_evidence: tuple[str, ...]
    first_session: int


@dataclass(frozen=True)
class Subject:
    subject_id: str
    name: str
    sessions: tuple[tuple[Turn, ...], ...]
    questions: tuple[Question, ...]

    def session_id(self, number: int) -> str:
        return f"{self.subject_id}-s{number:02d}"

    def turns(self) -> Iterator[Turn]:
        for session in self.sessions:
            yield from session


@dataclass
class _Plan:
    """The facts of one subject, scheduled: session -> [(slot, use, value, old)]."""

    slots: dict[str, str] = field(default_factory=dict)  # slot -> category
    first: dict[str, int] = field(default_factory=dict)
    schedule: dict[int, list[tuple[str, str, Value, Value | None]]] = field(default_factory=dict)

    def add(self, session: int, slot: str, use: str, value: Value, old: Value | None = None) -> None:
        self.schedule.setdefault(session, []).append((slot, use, value, old))


def _later(rng: random.Random, after: int, sessions: int) -> int:
    """A session after `after` when there is one (the same one otherwise)."""
    return rng.randint(min(after + 1, sessions), sessions)


def _assign(rng: random.Random) -> dict[str, str]:
    """Slot -> category; a changed fact goes to a slot the world can change."""
    slots = list(SLOTS)
    rng.shuffle(slots)
    chosen: dict[str, str] = {}
    for category in CATEGORIES:
        pick = next(s for s in slots if s.changeable or category != "changed")
        slots.remove(pick)
        chosen[pick.name] = category
    return chosen


def _plan(rng: random.Random, drawer: ValueDrawer, sessions: int) -> _Plan:
    plan = _Plan(slots=_assign(rng))
    for name, category in plan.slots.items():
        slot = SLOT_BY_NAME[name]
        first = 1 if rng.random() < 0.5 else rng.randint(1, max(1, (sessions + 1) // 2))
        plan.first[name] = first
        value = drawer.draw(slot)
        opening = "summary" if category == "summary_only" or rng.random() < 0.15 else "state"
        plan.add(first, name, opening, value)
        if category in ("changed", "corrected"):
            when = _later(rng, first, sessions)
            new = drawer.draw(slot, near=value if category == "changed" else None)
            plan.add(when, name, "change" if category == "changed" else "correct", new, value)
            if category == "changed" and rng.random() < 0.4:
                plan.add(when, name, "changed", new, value)  # the note-taker records it too
            if rng.random() < 0.3:
                plan.add(_later(rng, when, sessions), name, rng.choice(("restate", "summary")), new)
        elif category == "restated":
            for _ in range(rng.randint(1, 2)):
                plan.add(
                    _later(rng, first, sessions), name, rng.choice(("restate", "restate", "summary")), value
                )
        elif category == "summary_only" and rng.random() < 0.5:
            plan.add(_later(rng, first, sessions), name, "summary", value)
        elif category == "stable" and opening == "state" and rng.random() < 0.3:
            plan.add(first, name, "summary", value)  # echoed in that session's notes
    return plan


class _SessionWriter:
    """Writes the turns of one session of one subject."""

    def __init__(self, rng: random.Random, drawer: ValueDrawer, subject: Subject, first_name: str) -> None:
        self.rng = rng
        self.drawer = drawer
        self.subject_id = subject.subject_id
        self.name = first_name
        pet = entry(rng.choice(VOCABULARY["pet_kinds"]))
        self.species, self.kind = pet.text, pet.forms[0]
        self.topic = ""

    def words(self, **extra: str) -> dict[str, str]:
        rng, drawer = self.rng, self.drawer
        place = drawer.draw(SLOT_BY_NAME["city"], reserve=False).text
        return {
            "name": self.name,
            "species": self.species,
            "kind": self.kind,
            "topic": self.topic,
            "specialist": rng.choice(SPECIALISTS),
            "day": rng.choice(VOCABULARY["days"]),
            "time": f"{rng.randint(8, 18):02d}:{rng.choice(('00', '15', '30', '45'))}",
            "n": str(drawer.number(12, 95)),
            "temp": str(drawer.number(11, 29)),
            "digit": str(rng.randint(1, 9)),
            "place": place,
            "weather": rng.choice(VOCABULARY["weather"]),
            "title": rng.choice(VOCABULARY["titles"]),
            **extra,
        }

    def mention(self, slot: str, use: str, value: Value, old: Value | None) -> Mention:
        words = {"v": value.text, "new": value.text, "old": old.text if old else ""}
        clause = fill(template(self.rng, f"{slot}.{use}"), **self.words(**words))
        return Mention(slot, use, value, clause, old)

    def distractor(self, slot: Slot) -> str:
        d = self.drawer.draw(slot, reserve=False)
        d_species = entry(self.rng.choice(VOCABULARY["pet_kinds"])).text
        return fill(template(self.rng, f"{slot.name}.distract"), **self.words(d=d.text, d_species=d_species))

    def write(self, number: int, facts: list[tuple[str, str, Value, Value | None]]) -> tuple[Turn, ...]:
        rng = self.rng
        self.topic = rng.choice(VOCABULARY["topics"])
        body: list[tuple[str, str, tuple[Mention, ...]]] = []  # (agent, content, mentions)
        fact_turns: list[tuple[str, str, tuple[Mention, ...]]] = []
        notes: list[Mention] = []
        for i, (slot, use, value, old) in enumerate(facts):
            m = self.mention(slot, use, value, old)
            said_again = any(later[0] == slot for later in facts[i + 1 :])
            labelled = any(mark in m.clause[:25] for mark in (":", "—"))  # "Correction: ..." needs no lead
            if use in USER_USES:
                lead = "" if labelled else rng.choice(("", *[t + " " for t in TEMPLATES["lead"]]))
                tail = rng.choice(("", *[" " + t for t in TEMPLATES["tail"]]))
                fact_turns.append((USER, f"{lead}{m.clause}{tail}", (m,)))
            elif said_again or rng.random() < 0.5:
                # An agent's note goes mid-session when the fact comes up again later in it, so
                # the closing summary never repeats a value after the user changed it.
                agent = SPECIALIST_FOR.get(slot, "schedule-keeper")
                fact_turns.append((agent, m.clause if labelled else f"Noted for the file: {m.clause}", (m,)))
            else:
                notes.append(m)
        for _ in range(rng.randint(8, 12)):
            agent = rng.choice((USER, USER, ASSISTANT, ASSISTANT, *TOOLS, *SPECIALISTS))
            # Agents and tools say more than the user does: a few sentences of their own, no repeats.
            choices = TEMPLATES[f"filler.{agent}"]
            sentences = {USER: 1, ASSISTANT: rng.randint(3, 6)}.get(agent, rng.randint(2, 4))
            words = self.words()
            picks = rng.sample(choices, min(sentences, len(choices)))
            body.append((agent, " ".join(fill(t, **words) for t in picks), ()))
        for near_miss in rng.sample(SLOTS, rng.randint(1, 2)):
            body.append((USER, self.distractor(near_miss), ()))
        if rng.random() < 0.5:
            body.append((USER, fill(template(rng, "distract.any"), **self.words()), ()))
        rng.shuffle(body)
        # Facts keep their order (a correction after what it corrects); the rest goes around them.
        spots = sorted(rng.randint(0, len(body)) for _ in fact_turns)
        for offset, (spot, turn) in enumerate(zip(spots, fact_turns, strict=True)):
            body.insert(spot + offset, turn)
        summary = fill(template(rng, "summary.open"), **self.words())
        closing = " ".join(m.clause for m in notes) or fill(template(rng, "summary.nothing"), **self.words())
        turns = [
            (USER, fill(template(rng, "open.user"), **self.words()), ()),
            (ASSISTANT, fill(template(rng, "open.assistant"), **self.words()), ()),
            *body,
            (NOTE_TAKER, f"{summary} {closing}", tuple(notes)),
        ]
        return tuple(
            Turn(
                turn_id=f"{self.subject_id}/s{number:02d}/t{i:02d}",
                session=number,
                agent=agent,
                kind=KIND_OF_AGENT.get(agent, "note"),
                content=content,
                mentions=mentions,
            )
            for i, (agent, content, mentions) in enumerate(turns, start=1)
        )


def _questions(
    rng: random.Random, subject: Subject, plan: _Plan, first_name: str, kind: str
) -> list[Question]:
    questions: list[Question] = []
    for slot, category in plan.slots.items():
        said = [(t, m) for t in subject.turns() for m in t.mentions if m.slot == slot]
        current = said[-1][1].value
        superseded = next((m.old for _, m in reversed(said) if m.old is not None), None)
        text = fill(template(rng, f"{slot}.question"), name=first_name, kind=kind)
        questions.append(
            Question(
                question_id=f"{subject.subject_id}/{slot}",
                subject_id=subject.subject_id,
                slot=slot,
                category=category,
                text=text,
                current=current,
                superseded=superseded,
                evidence=_stating(said, current),
                superseded_evidence=_stating(said, superseded) if superseded else (),
                first_session=plan.first[slot],
            )
        )
    return questions


def _stating(said: list[tuple[Turn, Mention]], value: Value) -> tuple[str, ...]:
    """The turns, in order, with a mention that says `value` is true."""
    return tuple(dict.fromkeys(t.turn_id for t, m in said if m.value.key == value.key))


def generate_subject(seed: int, index: int, sessions: int) -> Subject:
    rng = random.Random(f"{seed}:{index}")
    order = random.Random(seed)
    first_names = list(VOCABULARY["first_names"])
    order.shuffle(first_names)
    first = first_names[index % len(first_names)]
    surname = rng.choice(VOCABULARY["surnames"])
    subject_id = f"{slug(first)}-{slug(surname)}" + (f"-{index}" if index >= len(first_names) else "")
    drawer = ValueDrawer(rng)
    plan = _plan(rng, drawer, sessions)
    shell = Subject(subject_id, f"{first} {surname}", (), ())
    writer = _SessionWriter(rng, drawer, shell, first)
    written = tuple(writer.write(n, plan.schedule.get(n, [])) for n in range(1, sessions + 1))
    subject = Subject(subject_id, shell.name, written, ())
    questions = _questions(rng, subject, plan, first, writer.kind)
    return Subject(subject_id, shell.name, written, tuple(questions))


def generate(seed: int, subjects: int, sessions: int) -> list[Subject]:
    if subjects < 1 or sessions < 1:
        raise ValueError("at least one subject and one session")
    return [generate_subject(seed, i, sessions) for i in range(subjects)]
