"""Import and export of Agent Skills folders: `SKILL.md` (YAML front matter with `name` and
`description`, then markdown) with scripts beside it.

- Reading (`read_skill_folder`, `read_skill_zip`) only parses: it writes nothing, and a zip is read
  member by member in memory, never extracted. Entries that escape the folder (absolute paths,
  `..`, symlinks), oversized archives and oversized scripts are refused before anything is stored.
- `import_bundle` turns a bundle into draft functions (one per script) and one draft guidance that
  links them, through the library's ordinary calls. Ids and ordering are deterministic.
- `export_folder` / `export_zip` write a guidance back as such a folder, with each linked function
  and its dependency closure under `scripts/`. Beside `SKILL.md` they write `agentmem.json`, which
  records what the Agent Skills format has no place for (ids, dependencies, language, the beliefs
  the guidance cites), so that export then import gives the same library; other tools ignore it,
  and a folder without it imports with ids derived from the skill name and script stems.
"""

from __future__ import annotations

import ast
import io
import json
import re
import stat
import zipfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import yaml  # type: ignore[import-untyped]
from pydantic import ValidationError

from agentmem.errors import InvalidInputError, NotFoundError
from agentmem.ports.procedural import SkillLibrary
from agentmem.procedural.agent_skills_read import (
    DEF_LINE,
    EXTENSION_BY_LANGUAGE,
    ID_RE,
    LANGUAGE_BY_EXTENSION,
    MANIFEST_FILE,
    SKILL_FILE,
    SkillBundle,
    SkillScript,
    check_script_size,
    file_stem,
    sanitize_identifier,
)
from agentmem.procedural.graph import find_cycle
from agentmem.procedural.model import (
    Function,
    FunctionSpec,
    Guidance,
    GuidanceSpec,
    SkillStatus,
)


def _def_header(text: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The `def` line(s) of `node` as written, comments dropped and whitespace collapsed."""
    lines = text.splitlines()[node.lineno - 1 : node.body[0].lineno]
    if lines:
        lines[-1] = lines[-1][: node.body[0].col_offset] if len(lines) > 1 else lines[-1]
        lines[0] = lines[0][node.col_offset :]
    if len(lines) == 1 and node.body[0].lineno == node.lineno:
        lines[0] = lines[0][: node.body[0].col_offset - node.col_offset]
    header = " ".join(re.sub(r"#.*$", "", line).strip() for line in lines).strip()
    header = re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", re.sub(r"\s+", " ", header)))
    return header.rstrip().removesuffix(":").rstrip()


def _python_parts(text: str, fallback: str) -> tuple[str, str]:
    """(signature, docstring) of Python source: the first `def` and the module docstring."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        match = DEF_LINE.search(text)
        return (match.group(1) if match else fallback), ""
    signature = fallback
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            signature = _def_header(text, node)
            break
    return signature, ast.get_docstring(module) or ""


def _manifest_id(value: object, what: str) -> str:
    if not isinstance(value, str) or not ID_RE.match(value):
        raise InvalidInputError(f"{MANIFEST_FILE}: {what} {value!r} is not a valid id", field=MANIFEST_FILE)
    return value


def _spec(build: type[FunctionSpec] | type[GuidanceSpec], values: dict[str, Any], where: str) -> Any:
    try:
        return build(**values)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = ".".join(str(part) for part in error["loc"]) or "body"
        raise InvalidInputError(f"{where}: {loc}: {error['msg']}", field=loc) from exc


def bundle_specs(bundle: SkillBundle, author: str = "") -> tuple[GuidanceSpec, list[FunctionSpec]]:
    """The draft specs a bundle imports as, functions sorted by id. Pure: touches no library."""
    skill_id = sanitize_identifier(bundle.name)
    entries: Mapping[str, Any] = bundle.manifest.get("functions", {})
    derived: dict[str, list[SkillScript]] = {}
    for script in bundle.scripts:
        derived.setdefault(sanitize_identifier(f"{skill_id}.{script.stem}"), []).append(script)
    ids: dict[str, str] = {}
    for base, scripts in derived.items():
        for script in scripts:
            ids[script.path] = (
                base if len(scripts) == 1 else sanitize_identifier(f"{base}.{script.extension}")
            )
    specs: dict[str, FunctionSpec] = {}
    for script in bundle.scripts:
        entry = entries.get(script.path, {})
        if not isinstance(entry, dict):
            raise InvalidInputError(
                f"{MANIFEST_FILE}: entry for {script.path} is not an object", field=MANIFEST_FILE
            )
        function_id = (
            _manifest_id(entry["function_id"], "function_id") if "function_id" in entry else ids[script.path]
        )
        if function_id in specs:
            raise InvalidInputError(
                f"{script.path}: two scripts import as function {function_id!r}", field="path"
            )
        check_script_size(script.path, len(script.text.encode("utf-8")))
        language = entry.get("language") or LANGUAGE_BY_EXTENSION.get(
            script.extension, script.extension or "text"
        )
        signature, docstring = PurePosixPath(script.path).name, ""
        if language == "python":
            signature, docstring = _python_parts(script.text, signature)
        depends_on = entry.get("depends_on", [])
        if not isinstance(depends_on, list):
            raise InvalidInputError(
                f"{MANIFEST_FILE}: depends_on of {script.path} is not a list", field=MANIFEST_FILE
            )
        values: dict[str, Any] = {
            "function_id": function_id,
            "name": entry.get("name") or script.stem or function_id,
            "signature": entry.get("signature", signature[:2000]),
            "docstring": entry.get("docstring", docstring[:20_000]),
            "implementation": script.text,
            "language": language,
            "depends_on": [_manifest_id(dep, "depends_on id") for dep in depends_on],
            "tags": entry.get("tags", []),
            "status": SkillStatus.DRAFT,
            "author": author,
        }
        specs[function_id] = _spec(FunctionSpec, values, script.path)
    guidance_id = bundle.manifest.get("guidance_id")
    linked = bundle.manifest.get("function_ids")
    if linked is None:
        linked = list(specs)
    elif not isinstance(linked, list):
        raise InvalidInputError(f"{MANIFEST_FILE}: function_ids is not a list", field=MANIFEST_FILE)
    guidance_values: dict[str, Any] = {
        "guidance_id": _manifest_id(guidance_id, "guidance_id") if guidance_id is not None else skill_id,
        "title": bundle.name,
        "content": bundle.content,
        "function_ids": sorted(_manifest_id(fid, "function_ids id") for fid in linked),
        "tags": bundle.manifest.get("tags", []),
        "status": SkillStatus.DRAFT,
        "author": author,
        # Beliefs it is built on (docs/stale-dependents.md); the importer records them.
        "cites": bundle.manifest.get("cites", []),
    }
    if not isinstance(guidance_values["cites"], list):
        raise InvalidInputError(f"{MANIFEST_FILE}: cites is not a list", field=MANIFEST_FILE)
    guidance = _spec(GuidanceSpec, guidance_values, SKILL_FILE)
    return guidance, [specs[fid] for fid in sorted(specs)]


def _write_order(specs: list[FunctionSpec]) -> list[FunctionSpec]:
    """Specs ordered so each comes after the bundle functions it depends on (ties by id)."""
    by_id = {spec.function_id: spec for spec in specs}
    graph = {fid: [dep for dep in spec.depends_on if dep in by_id] for fid, spec in by_id.items()}
    for fid in sorted(graph):
        cycle = find_cycle(graph, fid)
        if cycle:
            raise InvalidInputError(f"dependency cycle: {' -> '.join(cycle)}", field="depends_on")
    order: list[FunctionSpec] = []
    placed: set[str] = set()

    def place(fid: str) -> None:
        if fid in placed:
            return
        placed.add(fid)
        for dep in graph[fid]:
            place(dep)
        order.append(by_id[fid])

    for fid in sorted(by_id):
        place(fid)
    return order


def import_bundle(
    bundle: SkillBundle, library: SkillLibrary, author: str = ""
) -> tuple[Guidance, list[Function]]:
    """Store the bundle as draft functions and a draft guidance linking them, through the
    library's ordinary calls. Everything is checked before the first write; importing the same
    bundle again is a no-op. Returns the guidance and the functions sorted by id."""
    guidance_spec, specs = bundle_specs(bundle, author)
    ordered = _write_order(specs)
    local = {spec.function_id for spec in specs}
    for spec in ordered:
        for dep in spec.depends_on:
            if dep in local:
                continue
            try:
                library.get_function(dep)
            except NotFoundError as exc:
                raise InvalidInputError(
                    f"function {spec.function_id} depends on unknown function {dep!r}", field="depends_on"
                ) from exc
    stored = {spec.function_id: library.put_function(spec) for spec in ordered}
    guidance = library.put_guidance(guidance_spec)
    functions = [library.get_function(fid) for fid in sorted(stored)]
    return guidance, functions


# -- export ----------------------------------------------------------------------------------


def _split_content(guidance: Guidance) -> tuple[str, str]:
    """(description, body): the first paragraph of the content, then the rest."""
    description, _, body = guidance.content.strip().partition("\n\n")
    description = description.strip() or guidance.title
    return description, body.lstrip("\n").rstrip()


def skill_files(library: SkillLibrary, guidance_id: str) -> dict[str, bytes]:
    """The files of the guidance's skill folder by relative path: SKILL.md, agentmem.json and
    `scripts/<name>.<ext>` for each linked function and its dependency closure."""
    guidance = library.get_guidance(guidance_id)
    functions: dict[str, Function] = {}
    for fid in guidance.function_ids:
        for function in library.closure(fid):
            functions.setdefault(function.function_id, function)
    files: dict[str, bytes] = {}
    manifest_functions: dict[str, dict[str, Any]] = {}
    taken = {SKILL_FILE.lower(), MANIFEST_FILE.lower()}
    for fid in sorted(functions):
        function = functions[fid]
        ext = EXTENSION_BY_LANGUAGE.get(function.language.lower(), file_stem(function.language).lower())
        candidates = [file_stem(function.name), file_stem(fid)]
        candidates += [f"{file_stem(fid)}-{n}" for n in range(2, len(functions) + 3)]
        path = next(p for c in candidates if (p := f"scripts/{c}.{ext}").lower() not in taken)
        taken.add(path.lower())
        files[path] = function.implementation.encode("utf-8")
        manifest_functions[path] = {
            "function_id": fid,
            "name": function.name,
            "language": function.language,
            "signature": function.signature,
            "docstring": function.docstring,
            "depends_on": list(function.depends_on),
            "tags": list(function.tags),
        }
    description, body = _split_content(guidance)
    front = yaml.safe_dump(
        {"name": guidance.title, "description": description},
        sort_keys=False,
        allow_unicode=True,
        width=1_000_000,
    )
    files[SKILL_FILE] = (f"---\n{front}---\n\n{body}\n" if body else f"---\n{front}---\n").encode("utf-8")
    manifest = {
        "guidance_id": guidance.guidance_id,
        "function_ids": list(guidance.function_ids),
        "tags": list(guidance.tags),
        "functions": manifest_functions,
        # Only when it cites any: an export of guidance citing nothing stays as it was.
        **({"cites": [ref.model_dump() for ref in guidance.cites]} if guidance.cites else {}),
    }
    files[MANIFEST_FILE] = (json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode(
        "utf-8"
    )
    return dict(sorted(files.items()))


def export_folder(library: SkillLibrary, guidance_id: str, target_dir: Path | str) -> Path:
    """Write the guidance's skill folder into `target_dir` (created if needed); returns it."""
    target = Path(target_dir)
    for rel, data in skill_files(library, guidance_id).items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return target


def export_zip(library: SkillLibrary, guidance_id: str) -> bytes:
    """The guidance's skill folder as a zip, under one top-level folder named after the skill.
    Byte-for-byte deterministic: sorted entries with fixed timestamps and modes."""
    files = skill_files(library, guidance_id)
    folder = file_stem(library.get_guidance(guidance_id).title)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for rel, data in files.items():
            info = zipfile.ZipInfo(f"{folder}/{rel}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            archive.writestr(info, data)
    return buffer.getvalue()
