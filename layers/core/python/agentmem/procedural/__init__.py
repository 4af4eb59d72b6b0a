"""Procedural tier: authored skills, as a function library and a guidance library linked both ways."""
