"""The local LLM port: deterministic rules for extraction, verdicts and key decisions."""
