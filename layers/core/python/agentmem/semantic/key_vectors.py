"""The key resolver's embeddings: each text embedded once, and a batch's texts in one call.

One MiniLM call per proposal made the prose projection four times slower than explicit facts
(2,000 statements: 192 s against 52 s), the call's fixed cost dwarfing its one short text. The
resolver now asks for every text a batch may compare before it resolves the first fact
(`KeyResolver.prepare`); a text it did not foresee is still embedded when asked, so the cache
changes speed, never a decision: a text's vector is the same whatever it is embedded with
(MiniLM's batching is bit-identical, tests/contract/test_minilm_batching.py).

Behind this per-batch cache sits the persistent one (`index_embeddings`): a new resolver (each
worker round, a replay) finds there the readings an earlier one embedded, so each text names
whose words it is."""

from __future__ import annotations

import math
import operator
from collections import OrderedDict
from collections.abc import Sequence

from agentmem.semantic.index_embeddings import IndexEmbeddings, Said

Vector = Sequence[float]

# Vectors kept between batches: about 100 MB at 384 dimensions, as tuples of floats, which a
# dot product reads a third faster than an array of doubles (a subject's every key is scored).
CAPACITY = 8_192


class KeyVectors:
    """Unit vectors by text, least recently used dropped between batches (never during one, so
    what `embed` prepared for a batch is still there when the batch asks for it)."""

    def __init__(self, embeddings: IndexEmbeddings, capacity: int = CAPACITY) -> None:
        self._embeddings = embeddings
        self._capacity = capacity
        self._vectors: OrderedDict[str, tuple[float, ...]] = OrderedDict()

    def embed(self, said: Sequence[Said]) -> None:
        """Embed the texts not held yet, in one call: (whose words, text) pairs."""
        missing = list({text: owner for owner, text in said if text not in self._vectors}.items())
        if missing:
            vectors = self._embeddings.embed([(owner, text) for text, owner in missing])
            for (text, _), vector in zip(missing, vectors, strict=True):
                self._vectors[text] = _unit(vector)

    def of(self, texts: Sequence[str], owner: str | None = None) -> list[Vector]:
        """The texts' vectors, embedding in one call those not held, as `owner`'s words."""
        self.embed([(owner, text) for text in texts])
        found: list[Vector] = []
        for text in texts:
            self._vectors.move_to_end(text)
            found.append(self._vectors[text])
        return found

    def trim(self) -> None:
        """Drop the least recently used vectors past the capacity: between batches."""
        while len(self._vectors) > self._capacity:
            self._vectors.popitem(last=False)


def _unit(vector: Sequence[float]) -> tuple[float, ...]:
    """The vector scaled to length 1 once, when cached: a cosine is then one dot product (a
    subject with a thousand keys compares each new proposal with all of them)."""
    norm = math.sqrt(sum(map(operator.mul, vector, vector)))
    return tuple(x / norm for x in vector) if norm else tuple(0.0 for _ in vector)


def cosine(a: Vector, b: Vector) -> float:
    return float(sum(map(operator.mul, a, b)))
