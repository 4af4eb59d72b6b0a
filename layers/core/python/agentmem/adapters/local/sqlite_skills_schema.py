"""Tables of the SQLite skill library. Links and dependencies are rows with real foreign keys:
links cascade from both sides; a dependency cascades from the function that declares it and
restricts deleting the function it names."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS skill_functions (
    tenant_id TEXT NOT NULL, function_id TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, function_id)
);
CREATE TABLE IF NOT EXISTS skill_guidance (
    tenant_id TEXT NOT NULL, guidance_id TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, guidance_id)
);
CREATE TABLE IF NOT EXISTS skill_links (
    tenant_id TEXT NOT NULL, guidance_id TEXT NOT NULL, function_id TEXT NOT NULL,
    position INTEGER NOT NULL, needs_review INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, guidance_id, function_id),
    FOREIGN KEY (tenant_id, guidance_id) REFERENCES skill_guidance (tenant_id, guidance_id)
        ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, function_id) REFERENCES skill_functions (tenant_id, function_id)
        ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS skill_links_by_function ON skill_links (tenant_id, function_id, guidance_id);
CREATE TABLE IF NOT EXISTS skill_function_deps (
    tenant_id TEXT NOT NULL, function_id TEXT NOT NULL, depends_on TEXT NOT NULL, position INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, function_id, depends_on),
    FOREIGN KEY (tenant_id, function_id) REFERENCES skill_functions (tenant_id, function_id)
        ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, depends_on) REFERENCES skill_functions (tenant_id, function_id)
        ON DELETE RESTRICT
);
CREATE INDEX IF NOT EXISTS skill_function_deps_by_dependency ON skill_function_deps (tenant_id, depends_on);
-- Moved by every write to either library (by triggers, so no write path can forget): a reader
-- that cached the stamps re-reads them only when this moved.
CREATE TABLE IF NOT EXISTS skill_library_revisions (
    tenant_id TEXT NOT NULL PRIMARY KEY, revision INTEGER NOT NULL
);
"""

# Every insert, update and delete of a function or guidance bumps the tenant's revision.
_BUMP = """
CREATE TRIGGER IF NOT EXISTS {table}_{event}_bumps AFTER {event} ON {table} BEGIN
    INSERT INTO skill_library_revisions VALUES ({row}.tenant_id, 1)
        ON CONFLICT (tenant_id) DO UPDATE SET revision = revision + 1;
END;"""
SCHEMA += "".join(
    _BUMP.format(table=table, event=event, row="OLD" if event == "DELETE" else "NEW")
    for table in ("skill_functions", "skill_guidance")
    for event in ("INSERT", "UPDATE", "DELETE")
)
