"""Who is speaking, and how the text names the subject.

"I" and "my" are the subject only in the subject's own words: an event whose agent is the subject
or a user role (`user`, `client`, ...), whose kind is a user message (`user_message`, ...), a
transcript line labelled `User:` (or the subject's name), or a chat message with a user role.
Anywhere else "I" is the agent writing, and only the subject's name ("Priya", "Priya's") or
"the client", "the user", "the customer" name the subject."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agentmem.adapters.local.rules.lexicon import OTHER_ROLES, SUBJECT_NOUNS, USER_KIND_TAILS, USER_ROLES
from agentmem.model.events import Event

LABEL = re.compile(
    r"^[ \t]*(?:[-*>][ \t]+)?(?:\*\*|__)?\[?(?P<label>[A-Za-z][A-Za-z .'-]{0,30}?)\]?(?:\*\*|__)?[ \t]*:"
    r"(?:\*\*|__)?[ \t]*"
)
TOKEN = re.compile(r"[-_.:\s]+")
BARE_IM = re.compile(r"\b([Ii])m\b")  # "Im based in Berlin": chat without the apostrophe
MESSAGE_TEXT_FIELDS = ("content", "text", "message")
MESSAGE_ROLE_FIELDS = ("role", "speaker", "author", "from")


@dataclass(frozen=True)
class Passage:
    """A stretch of text in one voice: `first_person` says whether "I" is the subject."""

    text: str
    first_person: bool


def names(subject_id: str) -> tuple[str, ...]:
    """How a text may name the subject: the id, and for a name-like id its words ("priya-sharma"
    gives "priya-sharma", "priya sharma" and "priya"), casefolded."""
    found = [subject_id.casefold()]
    parts = [p for p in TOKEN.split(subject_id.casefold()) if p]
    if parts and all(p.isalpha() for p in parts):
        found.append(" ".join(parts))
        if len(parts[0]) >= 2:
            found.append(parts[0])
    return tuple(dict.fromkeys(found))


def display_name(subject_id: str) -> str:
    """The subject as fact sentences name it: "Priya" for `priya`."""
    return subject_id[:1].upper() + subject_id[1:]


def subject_words(subject_id: str) -> tuple[str, ...]:
    """Every third-person name of the subject, longest first (for a regex alternation)."""
    return tuple(sorted({*names(subject_id), *SUBJECT_NOUNS}, key=lambda n: (-len(n), n)))


def author_is_subject(event: Event) -> bool:
    agent, kind = event.agent.casefold(), event.kind.casefold()
    if agent in USER_ROLES or agent == event.subject_id.casefold():
        return True
    tokens = [t for t in TOKEN.split(kind) if t]
    return bool(tokens) and tokens[0] in USER_ROLES and (len(tokens) == 1 or tokens[1] in USER_KIND_TAILS)


def passages(event: Event) -> list[Passage]:
    """The event's text, split where the speaker changes. JSON objects other than one chat
    message are not prose: they are read for declared keys only (see `declared.py`)."""
    own = author_is_subject(event)
    content = event.content
    if isinstance(content, str):
        return _transcript(content, own, event.subject_id)
    messages = content if isinstance(content, list) else [content] if _message(content) else []
    out = []
    for message in messages:
        found = _message(message)
        if found is not None:
            role, text = found
            out += _transcript(text, _role_voice(role, event.subject_id, own), event.subject_id)
    return out


def _message(item: Any) -> tuple[str, str] | None:
    if not isinstance(item, dict):
        return None
    role = next((item[f] for f in MESSAGE_ROLE_FIELDS if isinstance(item.get(f), str)), None)
    text = next((item[f] for f in MESSAGE_TEXT_FIELDS if isinstance(item.get(f), str)), None)
    return (role, text) if role is not None and text is not None else None


def _role_voice(role: str, subject_id: str, default: bool) -> bool:
    label = role.strip().casefold()
    if label in USER_ROLES or label in names(subject_id):
        return True
    return False if label in OTHER_ROLES else default


def _transcript(text: str, voice: bool, subject_id: str) -> list[Passage]:
    """Lines labelled `User:` or `Assistant:` switch the voice until the next label."""
    out: list[Passage] = []
    lines: list[str] = []
    for line in text.replace("\u2019", "'").split("\n"):
        m = LABEL.match(line)
        label = m.group("label").strip().casefold() if m else ""
        if m and (label in USER_ROLES or label in OTHER_ROLES or label in names(subject_id)):
            if lines:
                out.append(Passage("\n".join(lines), voice))
            voice, lines = _role_voice(label, subject_id, voice), [line[m.end() :]]
        else:
            lines.append(line)
    if lines:
        out.append(Passage("\n".join(lines), voice))
    return [Passage(BARE_IM.sub(r"\1'm", p.text), True) if p.first_person else p for p in out]
