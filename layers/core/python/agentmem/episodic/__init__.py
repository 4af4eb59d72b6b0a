"""Episodic tier: the append-only log that is the source of truth."""
