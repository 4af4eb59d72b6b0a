"""How a LangGraph item is written into agentmem and read back out of a belief.

A namespace's first label is the subject; the item is one single-valued fact of that subject
whose key is derived from the rest of the namespace and the item's key (readable, with a hash
of the exact namespace and key so that no two items share one). The fact's sentence is the
value's canonical JSON, so it is what search embeds and what a context read shows. The fact's
value is a small envelope, `{"store", "ns", "key", "sha"}` (or `"deleted": true`): it names the
item, so a belief can be mapped back to it, and changes whenever the value does.

Beliefs that no store wrote (facts extracted from the agents' own events) read as items of the
read-only namespace `(subject, "beliefs")`, keyed by their doc id."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langgraph.store.base import InvalidNamespaceError

from agentmem.model.beliefs import Belief, FactInput, Provenance
from agentmem.model.common import ID_PATTERN

MAX_VALUE_CHARS = 2000  # a fact sentence's limit (FactInput.text)
MAX_ENVELOPE_CHARS = 500  # a fact value's limit (FactInput.value)
BELIEFS_LABEL = "beliefs"
STORE_MARK = "langgraph"
_ID = re.compile(ID_PATTERN)
_FACT_KEY_ROOM = 64 - 13  # a fact key is at most 64 characters; the hash takes "_" and 12


def canonical_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _digest(text: str, length: int) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


@dataclass(frozen=True)
class Address:
    """Where an item lives in agentmem: its subject, fact key and the kind of its events."""

    namespace: tuple[str, ...]
    key: str

    @property
    def subject(self) -> str:
        return self.namespace[0]

    @property
    def read_only(self) -> bool:
        return self.namespace[1:] == (BELIEFS_LABEL,)

    @property
    def fact_key(self) -> str:
        slug = _slug("_".join([*self.namespace[1:], self.key])) or "item"
        if not slug[0].isalpha():
            slug = f"k_{slug}"
        return (
            f"{slug[:_FACT_KEY_ROOM].rstrip('_')}_{_digest(canonical_json([*self.namespace, self.key]), 12)}"
        )

    @property
    def event_kind(self) -> str:
        kind = ":".join(self.namespace[1:]) or "memory"
        return kind if _ID.fullmatch(kind) else f"{(_slug(kind) or 'memory')[:115]}-{_digest(kind, 12)}"


def subject_of(namespace: tuple[str, ...]) -> str:
    if not namespace or not _ID.fullmatch(namespace[0]):
        raise InvalidNamespaceError(
            f"namespace {namespace!r}: its first label is the agentmem subject id, which must match "
            f"{ID_PATTERN} (beliefs are kept per subject)"
        )
    return namespace[0]


def address(namespace: tuple[str, ...], key: str) -> Address:
    subject_of(namespace)
    return Address(tuple(namespace), key)


def fact_key(namespace: tuple[str, ...], key: str) -> str:
    """The fact key an item is kept under in its subject's beliefs, e.g. to read its version
    chain with `MemoryClient.belief_history(namespace[0], fact_key(namespace, key))`."""
    return address(namespace, key).fact_key


@dataclass(frozen=True)
class Statement:
    """What a put or a delete appends: the event's content and its one explicit fact."""

    content: dict[str, Any]
    fact: FactInput


def _envelope(address: Address, **fields: Any) -> str:
    envelope = canonical_json(
        {"store": STORE_MARK, "ns": list(address.namespace), "key": address.key, **fields}
    )
    if len(envelope) > MAX_ENVELOPE_CHARS:
        raise ValueError(
            f"namespace and key of {address.key!r} take {len(envelope)} characters; agentmem names an "
            f"item in at most {MAX_ENVELOPE_CHARS} (docs/langgraph.md)"
        )
    return envelope


def statement(address: Address, value: dict[str, Any] | None) -> Statement:
    """The event a put (`value`) or a delete (None) of the item appends."""
    if address.read_only:
        raise ValueError(f"{address.namespace!r} holds the subject's own beliefs: it is read-only")
    base = {"namespace": list(address.namespace), "key": address.key}
    if value is None:
        return Statement(
            {**base, "deleted": True},
            FactInput(key=address.fact_key, text="(deleted)", value=_envelope(address, deleted=True)),
        )
    try:
        text = canonical_json(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the value of {address.key!r} is not plain JSON: {exc}") from exc
    if len(text) > MAX_VALUE_CHARS:
        raise ValueError(
            f"the value of {address.key!r} is {len(text)} characters of JSON; agentmem keeps at most "
            f"{MAX_VALUE_CHARS} per item (docs/langgraph.md)"
        )
    fact = FactInput(key=address.fact_key, text=text, value=_envelope(address, sha=_digest(text, 16)))
    return Statement({**base, "value": value}, fact)


@dataclass(frozen=True)
class Reading:
    """An item as a belief shows it. `value` None is a deleted item. `stale` is the latest
    statement when the belief's sentence is an earlier one (a verdict judged a new value the
    same as the old): its event holds the value, and `value` is the earlier one meanwhile."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any] | None
    updated_at: datetime
    event_ids: frozenset[str]
    stale: Provenance | None = None


def _parse_envelope(raw: str) -> dict[str, Any] | None:
    try:
        envelope = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(envelope, dict) or envelope.get("store") != STORE_MARK:
        return None
    return envelope


def reading_of(belief: Belief) -> Reading:
    """The item a current belief stands for: a store item, or one of the subject's beliefs."""
    event_ids = frozenset(p.event_id for p in belief.provenance)
    updated = datetime.fromisoformat(belief.valid_from)
    envelope = _parse_envelope(belief.value)
    if envelope is None:
        value = {"text": belief.text, "value": belief.value, "key": belief.key, "member": belief.member,
                 "version": belief.version, "contradicted": belief.flag}  # fmt: skip
        return Reading((belief.subject_id, BELIEFS_LABEL), belief.doc_id, value, updated, event_ids)
    namespace, key = tuple(envelope["ns"]), str(envelope["key"])
    latest = _parse_envelope(belief.provenance[-1].value) if belief.provenance else envelope
    if latest is not None and latest.get("deleted"):
        return Reading(namespace, key, None, updated, event_ids)
    if latest == envelope and envelope.get("sha") == _digest(belief.text, 16):
        return Reading(namespace, key, json.loads(belief.text), updated, event_ids)
    # The sentence is an earlier value's: the log has the latest (an older value stands in).
    return Reading(namespace, key, _json_object(belief.text), updated, event_ids, stale=belief.provenance[-1])


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def value_of_event(content: Any) -> dict[str, Any] | None:
    """The value a store event put (None for a delete)."""
    value = content.get("value") if isinstance(content, dict) and not content.get("deleted") else None
    return value if isinstance(value, dict) else None
