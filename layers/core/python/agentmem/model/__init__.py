"""Pydantic models shared by the domain, the adapters and the API."""
