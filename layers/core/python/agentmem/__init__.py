"""agentmem: shared, token-budgeted memory for teams of LLM agents.

`agentmem.Memory(path)` is the embedded default as a library (docs/library.md). It is imported on
first use, so `import agentmem.<anything>` (every Lambda handler does) loads nothing more."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentmem.memory import Memory

__version__ = "0.1.0"
__all__ = ["Memory", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "Memory":
        from agentmem.memory import Memory

        return Memory
    raise AttributeError(f"module 'agentmem' has no attribute {name!r}")
