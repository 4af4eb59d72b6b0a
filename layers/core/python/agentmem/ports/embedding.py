"""Port of the embedder: sentences to vectors, for every search by meaning."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Embedder(Protocol):
    """Turns sentences into unit-length vectors; identity never depends on these."""

    @property
    def model_id(self) -> str:
        """Names the model and its version, so an index knows which vectors it holds."""
        ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in order. Deterministic for the same input.
        Every text holds a non-space character: the API refuses blank queries (422), and what
        is indexed is never blank. An adapter may refuse a blank text with InvalidInputError."""
        ...
