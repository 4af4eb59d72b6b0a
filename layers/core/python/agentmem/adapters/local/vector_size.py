"""Vector sizes checked where vectors meet a local index.

An index holds vectors of the size of the embedder that built it. Switching embedders
(AGENTMEM_EMBEDDER, or AGENTMEM_EMBEDDER_DIMENSIONS with `openai`) over an existing data folder
would otherwise fail deep inside numpy ("could not broadcast ...") on the first read or write
that mixes the two. This says what happened and what to do instead."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agentmem.errors import AgentMemError


class VectorSizeError(AgentMemError):
    """A vector of another size than the index holds: a deployment fault, not bad input."""

    code = "embedder_misconfigured"


def sized(vector: Sequence[float] | Any, dimensions: int, index: str) -> Any:
    """`vector` as float32, or a VectorSizeError when it is not `dimensions` long."""
    array = np.asarray(vector, dtype=np.float32)
    if array.shape != (dimensions,):
        raise VectorSizeError(
            f"the {index} holds {dimensions}-dimension vectors and the embedder gives {array.size}: "
            "it was built with another embedder (AGENTMEM_EMBEDDER, AGENTMEM_EMBEDDER_DIMENSIONS). "
            "Set the embedder it was built with, or rebuild it with `agentmem replay`."
        )
    return array
