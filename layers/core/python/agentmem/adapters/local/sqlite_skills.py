"""SkillLibrary on SQLite. Links and dependencies are rows with real foreign keys
(`PRAGMA foreign_keys=ON` is set on every connection by SqliteDatabase):

- `skill_links` references both a guidance and a function `ON DELETE CASCADE`, so deleting
  either side removes the link from the other side in the same statement.
- `skill_function_deps` cascades from the depending function, but references the dependency
  `ON DELETE RESTRICT`: a function others depend on cannot be deleted (delete_function checks
  first and raises ConflictError naming the dependents; the constraint is the backstop).

Bodies are stored as JSON without their link lists; `guidance_ids` and `function_ids` are read
from `skill_links`, so both sides always agree. The tenant is part of every key."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from agentmem.adapters.local import sqlite_skills_rows as rows
from agentmem.adapters.local.sqlite_db import SqliteDatabase
from agentmem.adapters.local.sqlite_skills_schema import SCHEMA
from agentmem.errors import ConflictError, InvalidInputError, NotFoundError
from agentmem.procedural.graph import dependency_order, find_cycle
from agentmem.procedural.model import (
    Function,
    FunctionSpec,
    Guidance,
    GuidanceSpec,
    Link,
    SkillKind,
    SkillStatus,
    implementation_hash,
)

LINK = " WHERE tenant_id=? AND guidance_id=? AND function_id=?"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class SqliteSkillLibrary:
    def __init__(self, db: SqliteDatabase, tenant_id: str) -> None:
        self._db = db
        self._tenant = tenant_id
        # (library revision, stamps at it): a search's catch-up check then costs one row read.
        self._stamps: tuple[int, list[tuple[SkillKind, str, str, str]]] | None = None
        db.apply_schema(SCHEMA)

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One snapshot for a read that spans several statements."""
        conn = self._db.connection()
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("COMMIT")

    # -- functions ---------------------------------------------------------------------------

    def put_function(self, spec: FunctionSpec) -> Function:
        spec.check_size()
        fid = spec.function_id
        with self._db.write() as conn:
            stored = rows.function(conn, self._tenant, fid)
            if stored is not None and _spec_of(stored) == spec:
                return stored
            unknown = rows.unknown_functions(conn, self._tenant, [d for d in spec.depends_on if d != fid])
            if unknown:
                raise InvalidInputError(f"depends_on names unknown functions: {unknown}", field="depends_on")
            graph = rows.dependency_graph(conn, self._tenant)
            graph[fid] = list(spec.depends_on)
            cycle = find_cycle(graph, fid)
            if cycle is not None:
                raise InvalidInputError(f"dependency cycle: {' -> '.join(cycle)}", field="depends_on")
            now = _now()
            new_hash = implementation_hash(spec.implementation)
            function = Function(
                **spec.model_dump(),
                version=stored.version + 1 if stored else 1,
                impl_hash=new_hash,
                created_at=stored.created_at if stored else now,
                updated_at=now,
            )
            body = function.model_dump_json(exclude={"guidance_ids"})
            # An upsert, never REPLACE: REPLACE deletes the row first, which would cascade its links.
            conn.execute(
                "INSERT INTO skill_functions VALUES (?,?,?,?) ON CONFLICT (tenant_id, function_id)"
                " DO UPDATE SET version=excluded.version, body=excluded.body",
                (self._tenant, fid, function.version, body),
            )
            conn.execute(
                "DELETE FROM skill_function_deps WHERE tenant_id=? AND function_id=?", (self._tenant, fid)
            )
            conn.executemany(
                "INSERT INTO skill_function_deps VALUES (?,?,?,?)",
                [(self._tenant, fid, dep, i) for i, dep in enumerate(spec.depends_on)],
            )
            if stored is not None and stored.impl_hash != new_hash:
                conn.execute(
                    "UPDATE skill_links SET needs_review=1 WHERE tenant_id=? AND function_id=?",
                    (self._tenant, fid),
                )
            result = rows.function(conn, self._tenant, fid)
        assert result is not None
        return result

    def get_function(self, function_id: str) -> Function:
        with self._read() as conn:
            function = rows.function(conn, self._tenant, function_id)
        if function is None:
            raise NotFoundError(f"no function {function_id!r}", field="function_id")
        return function

    def delete_function(self, function_id: str) -> None:
        with self._db.write() as conn:
            if rows.function(conn, self._tenant, function_id) is None:
                raise NotFoundError(f"no function {function_id!r}", field="function_id")
            dependents = [
                fid
                for (fid,) in conn.execute(
                    "SELECT function_id FROM skill_function_deps WHERE tenant_id=? AND depends_on=?"
                    " ORDER BY function_id",
                    (self._tenant, function_id),
                )
            ]
            if dependents:
                raise ConflictError(
                    f"function {function_id!r} is a dependency of {dependents}; change or delete those first",
                    field="function_id",
                )
            conn.execute(
                "DELETE FROM skill_functions WHERE tenant_id=? AND function_id=?", (self._tenant, function_id)
            )

    def closure(self, function_id: str) -> list[Function]:
        with self._read() as conn:
            if rows.function(conn, self._tenant, function_id) is None:
                raise NotFoundError(f"no function {function_id!r}", field="function_id")
            order = dependency_order(rows.dependency_graph(conn, self._tenant), function_id)
            functions = [rows.function(conn, self._tenant, fid) for fid in order]
        return [f for f in functions if f is not None]

    # -- guidance ----------------------------------------------------------------------------

    def put_guidance(self, spec: GuidanceSpec) -> Guidance:
        gid = spec.guidance_id
        with self._db.write() as conn:
            unknown = rows.unknown_functions(conn, self._tenant, spec.function_ids)
            if unknown:
                raise InvalidInputError(
                    f"function_ids names unknown functions: {unknown}", field="function_ids"
                )
            stored = rows.guidance(conn, self._tenant, gid)
            if stored is not None and _spec_of(stored) == spec:
                return stored
            now = _now()
            guidance = Guidance(
                **spec.model_dump(),
                version=stored.version + 1 if stored else 1,
                created_at=stored.created_at if stored else now,
                updated_at=now,
            )
            conn.execute(
                "INSERT INTO skill_guidance VALUES (?,?,?,?) ON CONFLICT (tenant_id, guidance_id)"
                " DO UPDATE SET version=excluded.version, body=excluded.body",
                (self._tenant, gid, guidance.version, guidance.model_dump_json(exclude={"function_ids"})),
            )
            kept = spec.function_ids
            conn.execute(
                "DELETE FROM skill_links WHERE tenant_id=? AND guidance_id=?"
                f" AND function_id NOT IN ({rows.placeholders(kept)})",
                (self._tenant, gid, *kept),
            )
            # Links the new version keeps keep their needs_review flag; only the position moves.
            conn.executemany(
                "INSERT INTO skill_links VALUES (?,?,?,?,0) ON CONFLICT (tenant_id, guidance_id, function_id)"
                " DO UPDATE SET position=excluded.position",
                [(self._tenant, gid, fid, i) for i, fid in enumerate(kept)],
            )
            result = rows.guidance(conn, self._tenant, gid)
        assert result is not None
        return result

    def get_guidance(self, guidance_id: str) -> Guidance:
        with self._read() as conn:
            guidance = rows.guidance(conn, self._tenant, guidance_id)
        if guidance is None:
            raise NotFoundError(f"no guidance {guidance_id!r}", field="guidance_id")
        return guidance

    def delete_guidance(self, guidance_id: str) -> None:
        with self._db.write() as conn:
            deleted = conn.execute(
                "DELETE FROM skill_guidance WHERE tenant_id=? AND guidance_id=?", (self._tenant, guidance_id)
            ).rowcount
        if not deleted:
            raise NotFoundError(f"no guidance {guidance_id!r}", field="guidance_id")

    def stamps(self) -> list[tuple[SkillKind, str, str, str]]:
        """(kind, id, status, stamp) of every item, cheaply: what a search index compares with what
        it indexed. The stamp (version and updated_at) changes on every write and on approval."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT revision FROM skill_library_revisions WHERE tenant_id=?", (self._tenant,)
            ).fetchone()
            revision = row[0] if row else 0
            if self._stamps is not None and self._stamps[0] == revision:
                return list(self._stamps[1])
            stamps = rows.read_stamps(conn, self._tenant)
        self._stamps = (revision, stamps)
        return list(stamps)

    # -- links and review --------------------------------------------------------------------

    def links(self, *, needs_review: bool | None = None) -> list[Link]:
        sql = "SELECT guidance_id, function_id, needs_review FROM skill_links WHERE tenant_id=?"
        params: tuple[object, ...] = (self._tenant,)
        if needs_review is not None:
            sql += " AND needs_review=?"
            params += (int(needs_review),)
        rows = self._db.connection().execute(sql + " ORDER BY guidance_id, function_id", params)
        return [Link(guidance_id=g, function_id=f, needs_review=bool(n)) for g, f, n in rows]

    def confirm_link(self, guidance_id: str, function_id: str) -> Link:
        with self._db.write() as conn:
            updated = conn.execute(
                "UPDATE skill_links SET needs_review=0" + LINK, (self._tenant, guidance_id, function_id)
            ).rowcount
        if not updated:
            raise NotFoundError(f"no link from {guidance_id!r} to {function_id!r}", field="function_id")
        return Link(guidance_id=guidance_id, function_id=function_id, needs_review=False)

    def drop_link(self, guidance_id: str, function_id: str) -> None:
        with self._db.write() as conn:
            deleted = conn.execute(
                "DELETE FROM skill_links" + LINK, (self._tenant, guidance_id, function_id)
            ).rowcount
        if not deleted:
            raise NotFoundError(f"no link from {guidance_id!r} to {function_id!r}", field="function_id")

    def approve(self, kind: SkillKind, skill_id: str) -> Function | Guidance:
        table, key = (
            ("skill_functions", "function_id") if kind == "function" else ("skill_guidance", "guidance_id")
        )
        with self._db.write() as conn:
            skill: Function | Guidance | None = (
                rows.function(conn, self._tenant, skill_id)
                if kind == "function"
                else rows.guidance(conn, self._tenant, skill_id)
            )
            if skill is None:
                raise NotFoundError(f"no {kind} {skill_id!r}", field=key)
            if skill.status is SkillStatus.APPROVED:
                return skill
            approved = skill.model_copy(update={"status": SkillStatus.APPROVED, "updated_at": _now()})
            body = approved.model_dump_json(exclude={"guidance_ids", "function_ids"})
            conn.execute(
                f"UPDATE {table} SET body=? WHERE tenant_id=? AND {key}=?", (body, self._tenant, skill_id)
            )
        return approved


def _spec_of(stored: Function | Guidance) -> FunctionSpec | GuidanceSpec:
    """The spec a stored skill was written from, to tell a restatement from a new version."""
    spec_type = FunctionSpec if isinstance(stored, Function) else GuidanceSpec
    return spec_type.model_validate(stored.model_dump(include=set(spec_type.model_fields)))
