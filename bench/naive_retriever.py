"""The naive baseline a memory layer has to beat: every raw event of a subject, ranked by BM25
and by MiniLM cosine similarity, fused with reciprocal rank fusion, pasted greedily into the
budget. No extraction, no beliefs, no labels.

BM25 is SQLite's FTS5 `bm25()` (Okapi BM25, k1 = 1.2, b = 0.75; Porter stemming), one table per
subject so term statistics are the subject's own. The vectors are the project's embedder
(`MiniLmEmbedder`, all-MiniLM-L6-v2), cosine over normalised vectors. Fusion is plain RRF with
k = 60 and equal weights, as most RAG stacks ship it. Each event is one line; the document is
counted with tiktoken (o200k_base) and never exceeds the budget."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

RRF_K = 60
HEADER = "# Earlier conversation turns (retrieved)\n\n"
_STOP_TEXT = (
    "a an and are as at be by can do does for from has have how i in into is it its of on or our s "
    "should so that the their them there these they this to was we what when where which who why will "
    "with you your"
)
STOP_WORDS = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True)
class Doc:
    event_id: str
    line: str  # how the event is pasted: "[session #seq] agent: content"


@dataclass(frozen=True)
class Packed:
    markdown: str
    event_ids: tuple[str, ...]  # in rank order
    tokens: int


def fts_query(text: str) -> str:
    """Each content word quoted, OR-ed: user text can never be FTS5 syntax."""
    words = [w for w in dict.fromkeys(re.findall(r"\w+", text.lower())) if w not in STOP_WORDS]
    return " OR ".join(f'"{w}"' for w in words)


class NaiveRetriever:
    def __init__(
        self, embed: Callable[[Sequence[str]], list[list[float]]], count: Callable[[str], int]
    ) -> None:
        self._embed = embed
        self._count = count
        self._db = sqlite3.connect(":memory:")
        self._docs: dict[str, list[Doc]] = {}
        self._vectors: dict[str, np.ndarray] = {}
        self._tables: dict[str, str] = {}

    def index(self, subject_id: str, docs: Sequence[Doc]) -> None:
        table = self._tables.setdefault(subject_id, f"events_{len(self._tables)}")
        self._db.execute(f"CREATE VIRTUAL TABLE {table} USING fts5(body, tokenize='porter unicode61')")
        self._db.executemany(
            f"INSERT INTO {table}(rowid, body) VALUES (?, ?)", [(i, d.line) for i, d in enumerate(docs)]
        )
        self._docs[subject_id] = list(docs)
        matrix = np.asarray(self._embed([d.line for d in docs]), dtype=np.float32)
        self._vectors[subject_id] = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)

    def rank(self, subject_id: str, query: str) -> list[Doc]:
        """Every event of the subject, best first (RRF of the BM25 matches and the cosine order)."""
        docs = self._docs[subject_id]
        match = fts_query(query)
        keyword: list[int] = []
        if match:
            rows = self._db.execute(
                f"SELECT rowid FROM {self._tables[subject_id]} WHERE body MATCH ? "
                f"ORDER BY bm25({self._tables[subject_id]}), rowid",
                (match,),
            )
            keyword = [int(r[0]) for r in rows]
        vector = np.asarray(self._embed([query])[0], dtype=np.float32)
        similarity = self._vectors[subject_id] @ (vector / np.linalg.norm(vector))
        semantic = sorted(range(len(docs)), key=lambda i: (-float(similarity[i]), i))
        scores: dict[int, float] = {}
        for ranking in (keyword, semantic):
            for rank, i in enumerate(ranking, start=1):
                scores[i] = scores.get(i, 0.0) + 1.0 / (RRF_K + rank)
        return [docs[i] for i in sorted(scores, key=lambda i: (-scores[i], i))]

    def pack(self, ranked: Sequence[Doc], budget: int) -> Packed:
        """Greedy: each event in rank order goes in if it still fits, else the next is tried.
        Lines end in a newline, which tiktoken never merges across, so line counts add up; the
        document is counted whole at the end all the same."""
        used = self._count(HEADER)
        chosen: list[Doc] = []
        for doc in ranked:
            cost = self._count(f"- {doc.line}\n")
            if used + cost <= budget:
                chosen.append(doc)
                used += cost
        while chosen:
            markdown = HEADER + "".join(f"- {d.line}\n" for d in chosen)
            tokens = self._count(markdown)
            if tokens <= budget:
                return Packed(markdown, tuple(d.event_id for d in chosen), tokens)
            chosen.pop()
        return Packed(HEADER, (), self._count(HEADER))
