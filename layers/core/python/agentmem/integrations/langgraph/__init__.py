"""LangGraph's store over agentmem: `AgentMemStore` (docs/langgraph.md). Needs `langgraph`."""

from agentmem.integrations.langgraph._codec import BELIEFS_LABEL, fact_key
from agentmem.integrations.langgraph._store import AgentMemStore

__all__ = ["BELIEFS_LABEL", "AgentMemStore", "fact_key"]
