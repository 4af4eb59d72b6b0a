"""What projection embeds with: the embedder behind the vector cache, each text read by the model once.

Projection embeds three kinds of text: the key resolver's readings of keys and proposals, new
belief sentences, and history passages (in the vector lane). A replay or a shadow build projects
the whole log again into a new generation, and each worker round builds a new key resolver that
embedded every key its subjects held, so the same texts went through the model again and again.
Here each request names whose words it embeds, the cache is asked first by content hash, and
only the distinct texts it does not hold go to the model, in one call.

The cache changes speed, never a vector: a hit is exactly the floats the model gave (the cache
port's contract), so every decision and every read is the same with or without it. A cache that
fails (the database busy) is a miss, never a failed projection."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Collection, Mapping, Sequence

from agentmem.errors import AgentMemError
from agentmem.ports.embedding import Embedder
from agentmem.ports.vectors import VectorCache, VectorKey

logger = logging.getLogger(__name__)

Said = tuple[str | None, str]
"""(the subject whose words the text is, or TENANT, or None for a text to embed and not keep;
the text)."""

TENANT = ""
"""The owner of text that is the tenant's configuration, not anybody's words (declared fact types)."""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class IndexEmbeddings:
    """`embed` takes (subject, text) pairs and answers one vector per pair, in order."""

    def __init__(self, embedder: Embedder, cache: VectorCache | None = None) -> None:
        self.embedder = embedder
        self._cache = cache

    def embed(self, said: Sequence[Said]) -> list[list[float]]:
        """One call to the model at most, on the distinct texts not cached; what it computed is
        cached as the words of each subject that asked (an unowned text is not kept)."""
        if not said:
            return []
        cached = self._cache is not None
        # A size is part of a model: vectors of two sizes from one model are not interchangeable.
        model = f"{self.embedder.model_id}@{self.embedder.dimensions}" if cached else ""
        digests = [digest(text) for _, text in said] if cached else []
        held = self._held(model, digests)
        # By text, not by digest: without a cache there are no digests, and a text is its digest.
        vectors = {text: held[d] for (_, text), d in zip(said, digests, strict=False) if d in held}
        missing = list(dict.fromkeys(text for _, text in said if text not in vectors))
        if missing:
            vectors |= dict(zip(missing, self.embedder.embed(missing), strict=True))
            fresh = set(missing)
            self._keep(
                model,
                {
                    (owner, d): vectors[text]
                    for (owner, text), d in zip(said, digests, strict=False)
                    if owner is not None and text in fresh
                },
            )
        logger.debug("index embeddings", extra={"asked": len(said), "embedded": len(missing)})
        return [vectors[text] for _, text in said]

    def _held(self, model: str, digests: Sequence[str]) -> dict[str, list[float]]:
        if self._cache is None or not digests:
            return {}
        try:
            return self._cache.get(model, digests)
        except AgentMemError as exc:
            logger.warning("vector cache not read: embedding all", extra={"error": exc.message})
            return {}

    def _keep(self, model: str, fresh: dict[VectorKey, list[float]]) -> None:
        if self._cache is None or not fresh:
            return
        try:
            self._cache.put(model, fresh)
        except AgentMemError as exc:
            logger.warning("vector cache not written", extra={"error": exc.message})


class ErasureGuardedCache:
    """A vector cache whose writes honour erasure: after each put, the owners erased meanwhile are
    forgotten again. An erasure writes its tombstone before it purges, so a put either lands
    before its purge (and is purged) or after the tombstone (and is forgotten here): the vector
    lane and the key resolver write after the model ran, which may be long after they read."""

    def __init__(self, cache: VectorCache, erased: Callable[[Collection[str]], set[str]]) -> None:
        self._cache = cache
        self._erased = erased

    def get(self, model: str, digests: Sequence[str]) -> dict[str, list[float]]:
        return self._cache.get(model, digests)

    def put(self, model: str, vectors: Mapping[VectorKey, Sequence[float]]) -> int:
        written = self._cache.put(model, vectors)
        owners = {owner for owner, _ in vectors} - {TENANT}
        for subject_id in sorted(self._erased(owners)) if owners else ():
            self._cache.forget_subject(subject_id)
            logger.info("erased while embedding: cached vectors forgotten again")
        return written

    def forget_subject(self, subject_id: str) -> int:
        return self._cache.forget_subject(subject_id)
