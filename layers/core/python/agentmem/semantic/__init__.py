"""Semantic tier: one current belief per fact, a version chain, projected from the log."""
