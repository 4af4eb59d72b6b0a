"""FTS5 query building for the local keyword search: safe quoting, stop words, subject scope."""

from __future__ import annotations

import hashlib
import re

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "her",
        "his",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)


def scope_token(tenant_id: str, subject_id: str) -> str:
    """One opaque FTS token per (tenant, subject): MATCH can then narrow to the subject through
    the index, instead of ranking every subject's rows and filtering afterwards."""
    return "s" + hashlib.sha1(f"{tenant_id}|{subject_id}".encode(), usedforsecurity=False).hexdigest()[:20]


def content_words(text: str) -> list[str]:
    """The query's words, in order and once each; stop words left out unless nothing else is left."""
    words = [w for w in dict.fromkeys(re.findall(r"[\w']+", text.lower())) if len(w) > 1]
    return [w for w in words if w not in STOP_WORDS] or words


def match_expression(words: list[str], scope: str) -> str:
    """`{scope} AND text: (w1 OR w2 ...)` with every word quoted, so user text can never be FTS
    syntax; "" for no words."""
    if not words:
        return ""
    return f'scope : "{scope}" AND text : (' + " OR ".join(f'"{w}"' for w in words) + ")"


def fts_query(text: str, scope: str) -> str:
    """Free text as a scoped MATCH expression (see `content_words` and `match_expression`)."""
    return match_expression(content_words(text), scope)
