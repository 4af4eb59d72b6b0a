"""The render contract: a template per (kind, schema hash); a changed schema misses and falls back
to the generic rendering of every field (never half filled), with an event; shadow versions render
beside the active one and only log a mismatch."""

from __future__ import annotations

from typing import Any

from agentmem.compose.templates import (
    BUILT_IN,
    RenderEvents,
    Template,
    TemplateRegistry,
    generic,
    schema_hash,
)

COLUMN = {"type": "varchar", "nullable": False, "description": "Surrogate key.", "example": "kc_1"}


def test_a_known_schema_renders_with_its_template() -> None:
    events = RenderEvents()
    (full, short, facts), name = TemplateRegistry().render("c1", "column", COLUMN, events)
    assert name == "column@v1"
    assert full == "varchar, not null: Surrogate key. (e.g. `kc_1`)"
    assert (short, facts) == ("varchar, not null: Surrogate key.", "varchar, not null")
    assert events.misses == [] and events.shadow_mismatches == []


def test_a_changed_schema_misses_and_renders_every_field_generically() -> None:
    changed = {**COLUMN, "pii": True}
    events = RenderEvents()
    levels, name = TemplateRegistry().render("c1", "column", changed, events)
    assert name == "generic"
    assert all(f"{key}:" in levels[0] for key in changed)
    assert events.misses == [{"asset_id": "c1", "kind": "column", "schema": schema_hash(changed)}]


def test_a_wrongly_shaped_value_falls_back_whole_rather_than_half_filled() -> None:
    bad: dict[str, Any] = {
        "schema": "a",
        "grain": "b",
        "owner": "c",
        "row_count": "many",
        "columns": 3,
        "refreshed": "d",
    }
    events = RenderEvents()
    levels, name = TemplateRegistry().render("t1", "table", bad, events)
    assert (levels, name) == (generic(bad), "generic")
    assert events.misses[0]["error"] in {"TypeError", "ValueError"}


def test_shadow_renders_the_new_template_serves_the_old_and_logs_the_mismatch() -> None:
    def louder(payload: Any) -> tuple[str, str, str]:
        return (str(payload["description"]).upper(), "", "")

    shadow = Template("column", frozenset(COLUMN), 2, louder, mode="shadow")
    off = Template("column", frozenset(COLUMN), 3, louder, mode="off")
    events = RenderEvents()
    levels, name = TemplateRegistry([*BUILT_IN, shadow, off]).render("c1", "column", COLUMN, events)
    assert name == "column@v1" and levels[0].startswith("varchar")
    assert events.shadow_mismatches == [{"asset_id": "c1", "kind": "column", "served": "v1", "shadow": "v2"}]


def test_activating_a_new_version_serves_it() -> None:
    newer = Template("column", frozenset(COLUMN), 2, lambda p: (f"{p['type']}!", "", ""), mode="active")
    (full, _, _), name = TemplateRegistry([*BUILT_IN, newer]).render("c1", "column", COLUMN, RenderEvents())
    assert (full, name) == ("varchar!", "column@v2")
