"""The local LLM port's rules; they live in `agentmem.adapters.local.rules`, by concept."""

from __future__ import annotations

from agentmem.adapters.local.rules.llm import RulesLLM

__all__ = ["RulesLLM"]
