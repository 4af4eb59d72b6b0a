"""Reading the SQLite skill library's rows back as models: one function or guidance with its links,
the dependency graph, unknown ids, and the cheap stamps a search index compares with."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from agentmem.procedural.model import Function, Guidance, SkillKind


def placeholders(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))


def function(conn: sqlite3.Connection, tenant: str, function_id: str) -> Function | None:
    row = conn.execute(
        "SELECT body FROM skill_functions WHERE tenant_id=? AND function_id=?",
        (tenant, function_id),
    ).fetchone()
    if row is None:
        return None
    guidance_ids = [
        gid
        for (gid,) in conn.execute(
            "SELECT guidance_id FROM skill_links WHERE tenant_id=? AND function_id=? ORDER BY guidance_id",
            (tenant, function_id),
        )
    ]
    return Function.model_validate_json(row[0]).model_copy(update={"guidance_ids": guidance_ids})


def guidance(conn: sqlite3.Connection, tenant: str, guidance_id: str) -> Guidance | None:
    row = conn.execute(
        "SELECT body FROM skill_guidance WHERE tenant_id=? AND guidance_id=?",
        (tenant, guidance_id),
    ).fetchone()
    if row is None:
        return None
    function_ids = [
        fid
        for (fid,) in conn.execute(
            "SELECT function_id FROM skill_links WHERE tenant_id=? AND guidance_id=? ORDER BY position",
            (tenant, guidance_id),
        )
    ]
    return Guidance.model_validate_json(row[0]).model_copy(update={"function_ids": function_ids})


def dependency_graph(conn: sqlite3.Connection, tenant: str) -> dict[str, list[str]]:
    graph: dict[str, list[str]] = {}
    for function_id, dep in conn.execute(
        "SELECT function_id, depends_on FROM skill_function_deps WHERE tenant_id=?"
        " ORDER BY function_id, position",
        (tenant,),
    ):
        graph.setdefault(function_id, []).append(dep)
    return graph


def unknown_functions(conn: sqlite3.Connection, tenant: str, ids: Sequence[str]) -> list[str]:
    if not ids:
        return []
    known = {
        fid
        for (fid,) in conn.execute(
            "SELECT function_id FROM skill_functions WHERE tenant_id=? AND function_id IN "
            f"({placeholders(ids)})",
            (tenant, *ids),
        )
    }
    return [fid for fid in ids if fid not in known]


def read_stamps(conn: sqlite3.Connection, tenant: str) -> list[tuple[SkillKind, str, str, str]]:
    rows = conn.execute(
        "SELECT 'function', function_id, json_extract(body, '$.status'),"
        " version || '|' || json_extract(body, '$.updated_at') FROM skill_functions WHERE tenant_id=?1"
        " UNION ALL SELECT 'guidance', guidance_id, json_extract(body, '$.status'),"
        " version || '|' || json_extract(body, '$.updated_at') FROM skill_guidance WHERE tenant_id=?1",
        (tenant,),
    )
    return [(kind, skill_id, status, stamp) for kind, skill_id, status, stamp in rows]
