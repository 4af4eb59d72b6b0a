"""The LLM port without a model: deterministic rules that extract only what an event states.

Extraction (facts come out in order of appearance; an exact repeat of key and value is kept once):

- JSON object content: each top-level key that names a declared fact key, compared loosely
  (case-insensitive; spaces or hyphens for underscores; a plural `s`/`es` on the last word), with
  a string or number value gives one fact. A list value gives one fact per string or number item
  when the key is set-valued, and nothing when it is single-valued (which item is current is not
  stated). Nested objects are not searched: a `{"facts": {...}}` wrapper is not special, because
  explicit facts travel in `Event.facts` and the projector applies them before calling this.
- Text content:
  - `key: value` and `key = value` lines, optionally bulleted, for a loosely matched declared key.
    The value runs to the end of the line, or to sentence punctuation followed by a space.
  - Sentences "<key words> is|are|=|: <value>", where the key words are the key with underscores
    as spaces ("Her risk tolerance is aggressive." gives risk_tolerance = aggressive). The value
    also ends at a comma followed by a space, so that one clause is one fact: "Austin, Texas"
    gives "Austin", and "risk tolerance is high, and her city is Austin" gives two facts.
  - A statement that ends in "?", or that follows "if", "whether" or "unless" in its sentence,
    states nothing and is skipped.
  - Values are trimmed, kept verbatim (the writer's casing and figures), and capped at 200 chars.
- Each fact's text is a self-contained sentence: "Priya's risk tolerance is aggressive." for a
  single key and "Priya's goals include a house." for a set key; `member` is left to the projector.

Verdicts, for two values whose normalised forms differ (the projector answers SAME for equal ones
without asking; this answers SAME too, defensively). NEW is never returned:

- one side negated ("not", "no", "never", "non", "none", "without") and the other not: CONFLICT;
- the same wording around different figures ("$120,000" and "$135k", "2 kids" and "3 kids";
  figures may carry $, commas, %, k/m/bn): UPDATE, because figures drift;
- one value contains the other word for word ("house" and "house in Austin"): UPDATE, a refinement;
- word-level Jaccard similarity of at least 0.5: UPDATE;
- anything else is a categorical flip ("cautious" to "aggressive"): CONFLICT.

What these rules cannot do: understand paraphrase ("she'd rather play it safe" states nothing);
handle negation beyond the rules above (the value keeps "not", verbatim); resolve coreference
("it is 5%" after naming a key states nothing); read anything but English; split a list written
in prose into set members; or read blob content (an offloaded event yields no facts; send
explicit facts with it instead). Declared keys are the only keys ever produced.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from agentmem.model.beliefs import Belief, Cardinality, FactInput, FactType, Observation, Verdict
from agentmem.model.beliefs import normalise_value as normalise
from agentmem.model.events import Event

MAX_VALUE_CHARS = 200
JACCARD_UPDATE = 0.5
NEGATIONS = frozenset({"not", "no", "never", "non", "none", "without"})
HYPOTHETICALS = re.compile(r"\b(?:if|whether|unless)\b", re.IGNORECASE)
SEPARATORS = re.compile(r"[\s_-]+")
# A figure: optional currency, digits with thousands commas and decimals, an optional k/m/bn
# multiplier and an optional %. The lookbehind keeps "v2" and "1.5" from matching mid-token.
FIGURE = re.compile(r"(?<![\w.])[$€£]?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|mm|bn)\b)?(?:\s?%)?", re.IGNORECASE)
# Sentence punctuation ends a value only when a space or the end follows, so "$1.5m" stays whole.
LINE_END = r"(?=[.!?;](?:\s|\Z)|\n|\Z)"
CLAUSE_END = r"(?=[.!?;,](?:\s|\Z)|\n|\Z)"


@dataclass(frozen=True)
class _Match:
    start: int
    end: int
    rank: int  # lines beat sentences that start at the same place: their values run further
    fact_type: FactType
    value: str


class RulesLLM:
    """Deterministic extraction and verdicts; the local default, and the fallback with no model."""

    def extract_facts(self, event: Event, fact_types: Sequence[FactType]) -> list[FactInput]:
        by_key = {t.key: t for t in fact_types}
        if isinstance(event.content, dict):
            pairs = list(self._from_object(event.content, by_key))
        elif isinstance(event.content, str):
            pairs = list(self._from_text(event.content, fact_types))
        else:
            return []  # a JSON array, or content offloaded to a blob: no rule reads it
        facts: list[FactInput] = []
        seen: set[tuple[str, str]] = set()
        for fact_type, raw in pairs:
            value = _clean(raw)
            identity = (fact_type.key, normalise(value))
            if not value or not identity[1] or identity in seen:
                continue
            seen.add(identity)
            facts.append(
                FactInput(key=fact_type.key, text=_sentence(event.subject_id, fact_type, value), value=value)
            )
        return facts

    def decide(self, current: Belief, candidate: Observation, fact_type: FactType) -> Verdict:
        old, new = normalise(current.value), normalise(candidate.value)
        if old == new:
            return Verdict.SAME
        old_words, new_words = set(old.split()), set(new.split())
        if bool(old_words & NEGATIONS) != bool(new_words & NEGATIONS):
            return Verdict.CONFLICT
        if _same_wording_other_figures(current.value, candidate.value):
            return Verdict.UPDATE
        if old and new and (f" {old} " in f" {new} " or f" {new} " in f" {old} "):
            return Verdict.UPDATE
        union = old_words | new_words
        if union and len(old_words & new_words) / len(union) >= JACCARD_UPDATE:
            return Verdict.UPDATE
        return Verdict.CONFLICT

    def _from_object(
        self, content: dict[str, Any], by_key: dict[str, FactType]
    ) -> Iterator[tuple[FactType, str]]:
        for name, value in content.items():
            fact_type = _resolve(name, by_key)
            if fact_type is None:
                continue
            if _is_scalar(value):
                yield fact_type, _scalar_text(value)
            elif isinstance(value, list) and fact_type.cardinality is Cardinality.SET:
                yield from ((fact_type, _scalar_text(item)) for item in value if _is_scalar(item))

    def _from_text(self, text: str, fact_types: Sequence[FactType]) -> Iterator[tuple[FactType, str]]:
        matches: list[_Match] = []
        for fact_type in fact_types:
            for rank, pattern in enumerate(_patterns(fact_type.key)):
                for m in pattern.finditer(text):
                    end = m.end("value")
                    if text[end : end + 1] == "?" or _hypothetical(text, m.start()):
                        continue
                    matches.append(_Match(m.start("key"), end, rank, fact_type, m.group("value")))
        taken_until = -1
        for match in sorted(matches, key=lambda m: (m.start, m.rank, m.fact_type.key)):
            if match.start < taken_until:
                continue  # inside a statement already read, e.g. "income" within "annual income is"
            taken_until = match.end
            yield match.fact_type, match.value


def _resolve(name: str, by_key: dict[str, FactType]) -> FactType | None:
    """The declared type `name` loosely spells: any case, spaces or hyphens, a plural last word."""
    loose = SEPARATORS.sub("_", name.strip().casefold())
    for candidate in (
        loose,
        loose[:-1] if loose.endswith("s") else "",
        loose[:-2] if loose.endswith("es") else "",
    ):
        if candidate in by_key:
            return by_key[candidate]
    return None


_PATTERN_CACHE: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {}


def _patterns(key: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(the `key: value` line pattern, the "key words is value" sentence pattern) for one key."""
    cached = _PATTERN_CACHE.get(key)
    if cached is None:
        words = r"[\s_-]+".join(re.escape(word) for word in key.split("_"))
        key_words = rf"(?P<key>(?<![\w-]){words}(?:e?s)?)"
        line = re.compile(
            rf"^[ \t]*(?:[-*•][ \t]+)?{key_words}[ \t]*[:=][ \t]*(?P<value>[^\n]+?){LINE_END}",
            re.IGNORECASE | re.MULTILINE,
        )
        sentence = re.compile(
            rf"{key_words}(?:[ \t]+(?:is|are)[ \t]+|[ \t]*[:=][ \t]*)(?P<value>[^\n]+?){CLAUSE_END}",
            re.IGNORECASE,
        )
        cached = _PATTERN_CACHE[key] = (line, sentence)
    return cached


def _hypothetical(text: str, start: int) -> bool:
    sentence_start = max(text.rfind(mark, 0, start) for mark in (".", "!", "?", ";", "\n"))
    return HYPOTHETICALS.search(text, sentence_start + 1, start) is not None


def _is_scalar(value: Any) -> bool:
    # bool is excluded: "dependents": true names no value a sentence could state.
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _scalar_text(value: str | float) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _clean(value: str) -> str:
    value = " ".join(value.split()).strip(" ,")
    return value[:MAX_VALUE_CHARS].rstrip()


def _sentence(subject_id: str, fact_type: FactType, value: str) -> str:
    subject = subject_id[:1].upper() + subject_id[1:]
    noun = fact_type.key.replace("_", " ")
    stop = "" if value[-1] in ".!?" else "."
    if fact_type.cardinality is Cardinality.SET:
        # A set key names one member of many: "Priya's goals include a house."
        return f"{subject}'s {noun if noun.endswith('s') else noun + 's'} include {value}{stop}"
    return f"{subject}'s {noun} is {value}{stop}"


def _same_wording_other_figures(old: str, new: str) -> bool:
    """True when both values hold figures and read the same once each figure is masked."""
    if not (FIGURE.search(old) and FIGURE.search(new)):
        return False
    return normalise(FIGURE.sub(" num ", old)) == normalise(FIGURE.sub(" num ", new))
