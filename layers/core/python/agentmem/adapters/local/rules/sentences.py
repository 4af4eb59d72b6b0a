"""Sentences, and whether a statement inside one states a current fact.

A statement counts only when its sentence is no question, nothing before it in the sentence makes
it hypothetical or reported, no negation in its own clause precedes it, and its subject opens its
clause (after the sentence start, a comma, a colon, a semicolon or a dash, and at most a few
discourse words such as "so", "btw"). A negated clause before it is a correction's first half
("I'm not 33, I'm 34"), not a negation of it."""

from __future__ import annotations

import re

from agentmem.adapters.local.rules.lexicon import DISCOURSE, HYPOTHETICAL, QUESTION_OPENERS

QUOTED = re.compile(r"\"[^\"\n]*\"|\u201c[^\u201d\n]*\u201d")
ABBREVIATIONS = (
    "mr",
    "mrs",
    "ms",
    "dr",
    "st",
    "jr",
    "sr",
    "prof",
    "e.g",
    "i.e",
    "etc",
    "vs",
    "inc",
    "corp",
    "ltd",
    "co",
)
INITIAL = re.compile(r"(?:^|\b[A-Z][\w'.-]*\s+)[A-Z]\.$")  # after a name or another initial
SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")
WORD = re.compile(r"[A-Za-z][A-Za-z']*")
CLAUSE_BOUNDARY = re.compile(r"[,;:(]|\s[-\u2013\u2014]\s|\s(?:and|but|so|or)\s", re.I)
PHRASES = re.compile(
    r"\b(?:by the way|just so you know|heads up|for the record|as of now|you know|before i forget|"
    r"these days|nowadays|lately)\b",
    re.I,
)


def mask_quotes(text: str) -> str:
    """Quoted speech is someone's words, not a statement by the speaker: blank it out."""
    return QUOTED.sub(lambda m: " " * len(m.group(0)), text)


def split(text: str) -> list[str]:
    """Sentences, each with its closing punctuation; a line break always ends one."""
    out: list[str] = []
    start = 0
    for m in SENTENCE_END.finditer(text):
        candidate = text[start : m.start()].rstrip()
        last = candidate.rsplit(None, 1)[-1].rstrip(".").casefold() if candidate else ""
        if "\n" not in m.group(0) and candidate.endswith(".") and last in ABBREVIATIONS:
            continue  # "Dr. Lee", "Acme Inc. is": not a sentence end
        if "\n" not in m.group(0) and INITIAL.search(candidate) and text[m.end() : m.end() + 1].isupper():
            continue  # "Michael J. Fox", "J. R. R. Tolkien": an initial, not a sentence end
        if candidate.strip():
            out.append(candidate.strip())
        start = m.end()
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def is_question(sentence: str) -> bool:
    if sentence.rstrip("\"') ").endswith("?"):
        return True
    first = WORD.search(sentence)
    return first is not None and first.group(0).casefold() in QUESTION_OPENERS


def states(sentence: str, start: int) -> bool:
    """Whether the statement whose subject begins at `start` states a fact as current."""
    before = PHRASES.sub(" ", sentence[:start])
    if any(w.casefold() in HYPOTHETICAL for w in WORD.findall(before)):
        return False
    # A negation reaches to the end of its own clause only: "I don't work for Acme, I work for
    # Globex" and "No, I live in Krakow" state the second clause; "I never said I live in" nothing.
    clause = CLAUSE_BOUNDARY.split(before)[-1]
    return all(w.casefold() in DISCOURSE for w in WORD.findall(clause))
