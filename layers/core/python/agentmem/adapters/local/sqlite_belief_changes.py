"""What moved in the local belief index after a log position: the queries behind reads since a
watermark (`BeliefIndex.frontier`, `BeliefIndex.changed_since`).

Both read the current rows of one subject by `source_order`, which lives in the row's JSON body.
An index on that expression (SQLite indexes deterministic expressions, and json_extract is one)
makes the frontier one index probe and the changes a range scan, so a read pays for what changed,
never for how many beliefs the subject holds. The expression in the queries must stay the one
indexed, character for character, or SQLite falls back to scanning the subject's rows."""

from __future__ import annotations

from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.model.beliefs import Belief

ORDER = "json_extract(body, '$.source_order')"
CHANGES_SCHEMA = (
    "CREATE INDEX IF NOT EXISTS beliefs_g{g}_order ON beliefs_g{g}"
    f" (tenant_id, subject_id, current, {ORDER})"
)
CURRENT = " WHERE tenant_id=? AND subject_id=? AND current=1"


def frontier(db: SqliteDatabase, generation: int, tenant_id: str, subject_id: str) -> str:
    (found,) = (
        db.connection()
        .execute(f"SELECT MAX({ORDER}) FROM beliefs_g{generation}" + CURRENT, (tenant_id, subject_id))
        .fetchone()
    )
    return str(found) if found is not None else ""


def changed_since(
    db: SqliteDatabase, generation: int, tenant_id: str, subject_id: str, position: str, limit: int
) -> list[Belief]:
    rows = db.connection().execute(
        f"SELECT body FROM beliefs_g{generation}" + CURRENT + f" AND {ORDER} > ?"
        f" ORDER BY {ORDER}, doc_id LIMIT ?",
        (tenant_id, subject_id, position, max(0, limit)),
    )
    return [Belief.model_validate_json(body) for (body,) in rows]
