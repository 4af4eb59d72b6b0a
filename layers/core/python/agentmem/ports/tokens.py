"""Port of the tokenizer: the encodings budgets are counted in. The domain takes the count itself as
a plain `Callable[[str], int]`; the adapter is tiktoken with its files seeded offline
(agentmem.adapters.tokens)."""

from __future__ import annotations

from typing import Literal, get_args

EncodingName = Literal["o200k_base", "cl100k_base"]
ENCODING_NAMES: tuple[str, ...] = get_args(EncodingName)
DEFAULT_ENCODING: EncodingName = "o200k_base"
