"""A cached vector as bytes, shared by every vector cache adapter: float32 when that keeps every
float exactly (MiniLM's and Bedrock's are float32 already: half the bytes), else float64, so what
a cache hands back is always exactly the floats it was given."""

from __future__ import annotations

from array import array
from collections.abc import Sequence

_SINGLE, _DOUBLE = b"f", b"d"  # the first byte: how the floats after it are stored


def encode(vector: Sequence[float]) -> bytes:
    single = array("f", vector)
    if single.tolist() == list(vector):
        return _SINGLE + single.tobytes()
    return _DOUBLE + array("d", vector).tobytes()


def decode(blob: bytes) -> list[float]:
    floats = array("f" if blob[:1] == _SINGLE else "d")
    floats.frombytes(blob[1:])
    return floats.tolist()
