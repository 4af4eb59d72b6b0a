"""Embedded backends: SQLite and the local filesystem."""
