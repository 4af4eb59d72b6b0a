"""The render contract: the composer owns the document's structure; the body of each item is
rendered by a template keyed by its content type (the asset kind) and a hash of its payload's
schema (its sorted top-level keys).

- A payload whose schema changed misses its template and falls back to the generic rendering,
  which shows every field, and the miss is recorded as an event. A body is never half filled.
- Templates have versions and a rollout mode per version: `active` serves, `shadow` renders
  beside the active one and logs any difference without serving it, `off` is never used.
- Every rendering is deterministic: fields in a fixed order, no clock, no randomness.

A template renders the three most detailed levels of an item's payload (full, abridged, key
facts); the composer adds the lighter levels (body only, title, path, identity) itself."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

logger = logging.getLogger(__name__)

RolloutMode = Literal["off", "shadow", "active"]
PayloadLevels = tuple[str, str, str]
"""(full, abridged, key facts) renderings of a payload; each a whole statement."""
Renderer = Callable[[Mapping[str, Any]], PayloadLevels]


def schema_hash(payload: Mapping[str, Any]) -> str:
    """12 hex chars of sha256 over the sorted top-level keys: what a template was written for."""
    return hashlib.sha256("\n".join(sorted(payload)).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Template:
    kind: str
    keys: frozenset[str]
    version: int
    render: Renderer
    mode: RolloutMode = "active"

    @property
    def schema(self) -> str:
        return schema_hash(dict.fromkeys(self.keys))


@dataclass
class RenderEvents:
    """What happened while rendering one composition; goes into the report."""

    misses: list[dict[str, str]] = field(default_factory=list)
    shadow_mismatches: list[dict[str, str]] = field(default_factory=list)


def _fence(text: str, language: str = "") -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def _first_paragraph(text: str) -> str:
    return text.strip().split("\n\n", 1)[0]


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def generic(payload: Mapping[str, Any]) -> PayloadLevels:
    """Every field, in key order: the fallback that is never half filled."""
    if not payload:
        return ("", "", "")
    full = "\n".join(f"{k}: {_value(payload[k])}" for k in sorted(payload))
    short = "\n".join(f"{k}: {_value(payload[k])[:200]}" for k in sorted(payload))
    return (full, short, "fields: " + ", ".join(sorted(payload)))


def _table(p: Mapping[str, Any]) -> PayloadLevels:
    columns = [str(c) for c in p["columns"]]
    facts = f"schema {p['schema']}; grain: {p['grain']}; owner {p['owner']}; {p['row_count']:,} rows"
    return (
        f"{facts}; refreshed {p['refreshed']}\ncolumns: {', '.join(columns)}",
        f"{facts}\ncolumns: {', '.join(columns[:12])}"
        + (f" (+{len(columns) - 12} more)" if len(columns) > 12 else ""),
        facts,
    )


def _column(p: Mapping[str, Any]) -> PayloadLevels:
    null = "nullable" if p["nullable"] else "not null"
    return (
        f"{p['type']}, {null}: {p['description']} (e.g. `{p['example']}`)",
        f"{p['type']}, {null}: {p['description']}",
        f"{p['type']}, {null}",
    )


def _markdown(p: Mapping[str, Any]) -> PayloadLevels:
    text = str(p["markdown"]).strip()
    first = _first_paragraph(text)
    return (text, first, first.split(". ", 1)[0].rstrip(".") + ".")


def _saved_query(p: Mapping[str, Any]) -> PayloadLevels:
    tables = ", ".join(str(t) for t in p["tables"])
    return (
        f"{p['description']}\nreads: {tables}\n{_fence(str(p['sql']), 'sql')}",
        f"{p['description']}\nreads: {tables}",
        f"reads: {tables}",
    )


def _note(p: Mapping[str, Any]) -> PayloadLevels:
    text = str(p["text"]).strip()
    return (f"{text}\n(by {p['author']})", _first_paragraph(text), f"note by {p['author']}")


def _thread(p: Mapping[str, Any]) -> PayloadLevels:
    messages = [f"{m.get('author', '?')}: {m.get('text', '')}" for m in p["messages"] if isinstance(m, dict)]
    return ("\n".join(messages), "\n".join(messages[:2]), f"{len(messages)} messages")


def _dashboard(p: Mapping[str, Any]) -> PayloadLevels:
    tiles = ", ".join(str(t) for t in p["tiles"])
    return (f"{p['url']}\ntiles: {tiles}", f"tiles: {tiles}", str(p["url"]))


BUILT_IN: tuple[Template, ...] = (
    Template(
        "table", frozenset({"schema", "grain", "owner", "row_count", "columns", "refreshed"}), 1, _table
    ),
    Template("column", frozenset({"type", "nullable", "description", "example"}), 1, _column),
    Template("wiki_page", frozenset({"markdown"}), 1, _markdown),
    Template("wiki_section", frozenset({"markdown"}), 1, _markdown),
    Template("saved_query", frozenset({"sql", "description", "tables"}), 1, _saved_query),
    Template("note", frozenset({"text", "author"}), 1, _note),
    Template("thread", frozenset({"messages"}), 1, _thread),
    Template("dashboard", frozenset({"url", "tiles"}), 1, _dashboard),
)


class TemplateRegistry:
    """Templates by (kind, schema hash). Per key at most one `active` version serves; any
    `shadow` versions are rendered beside it and compared."""

    def __init__(self, templates: Iterable[Template] = BUILT_IN) -> None:
        self._active: dict[tuple[str, str], Template] = {}
        self._shadow: dict[tuple[str, str], list[Template]] = {}
        for template in sorted(templates, key=lambda t: (t.kind, t.version)):
            key = (template.kind, template.schema)
            if template.mode == "active":
                self._active[key] = template  # the highest active version wins
            elif template.mode == "shadow":
                self._shadow.setdefault(key, []).append(template)

    def render(
        self, asset_id: str, kind: str, payload: Mapping[str, Any], events: RenderEvents
    ) -> tuple[PayloadLevels, str]:
        """The payload's levels and the name of what rendered them (`kind@vN` or `generic`)."""
        key = (kind, schema_hash(payload))
        template = self._active.get(key)
        if template is None:
            if payload:
                events.misses.append({"asset_id": asset_id, "kind": kind, "schema": key[1]})
                logger.info("template_miss", extra={"asset_id": asset_id, "kind": kind, "schema": key[1]})
            return generic(payload), "generic"
        try:
            levels = template.render(payload)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            # Keys match but a value has the wrong shape: fall back whole rather than half fill.
            events.misses.append(
                {"asset_id": asset_id, "kind": kind, "schema": key[1], "error": type(exc).__name__}
            )
            return generic(payload), "generic"
        for shadow in self._shadow.get(key, []):
            try:
                candidate = shadow.render(payload)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                candidate = (f"<error {type(exc).__name__}>", "", "")
            if candidate != levels:
                mismatch = {
                    "asset_id": asset_id,
                    "kind": kind,
                    "served": f"v{template.version}",
                    "shadow": f"v{shadow.version}",
                }
                events.shadow_mismatches.append(mismatch)
                logger.info("template_shadow_mismatch", extra=mismatch)
        return levels, f"{kind}@v{template.version}"
