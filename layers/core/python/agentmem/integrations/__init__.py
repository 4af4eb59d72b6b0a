"""Adapters that let agent frameworks use agentmem as their memory (docs/langgraph.md)."""
