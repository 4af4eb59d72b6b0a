"""Import and export of Agent Skills folders: `SKILL.md` (YAML front matter with `name` and
`description`, then markdown) with scripts beside it.

- Reading (`read_skill_folder`, `read_skill_zip`) only parses: it writes nothing, and a zip is read
  member by member in memory, never extracted. Entries that escape the folder (absolute paths,
  `..`, symlinks), oversized archives and oversized scripts are refused before anything is stored.
- `import_bundle` turns a bundle into draft functions (one per script) and one draft guidance that
  links them, through the library's ordinary calls. Ids and ordering are deterministic.
- `export_folder` / `export_zip` write a guidance back as such a folder, with each linked function
  and its dependency closure under `scripts/`. Beside `SKILL.md` they write `agentmem.json`, which
  records what the Agent Skills format has no place for (ids, dependencies, language), so that
  export then import gives the same library; other tools ignore it, and a folder without it
  imports with ids derived from the skill name and script stems.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import stat
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml  # type: ignore[import-untyped]
from pydantic import ValidationError

from agentmem.errors import InvalidInputError, NotFoundError
from agentmem.procedural.graph import find_cycle
from agentmem.procedural.model import (
    MAX_IMPLEMENTATION_BYTES,
    Function,
    FunctionSpec,
    Guidance,
    GuidanceSpec,
    SkillStatus,
)
from agentmem.procedural.ports import SkillLibrary

SKILL_FILE = "SKILL.md"
MANIFEST_FILE = "agentmem.json"
MAX_ZIP_BYTES = 5 * 1024 * 1024
"""Total uncompressed size a skill zip may declare (zip-bomb guard)."""
MAX_ZIP_ENTRIES = 10_000
MAX_SKILL_MD_BYTES = 1024 * 1024

LANGUAGE_BY_EXTENSION: dict[str, str] = {
    "py": "python",
    "sh": "bash",
    "bash": "bash",
    "js": "javascript",
    "mjs": "javascript",
    "ts": "typescript",
    "rb": "ruby",
    "pl": "perl",
    "ps1": "powershell",
}
EXTENSION_BY_LANGUAGE: dict[str, str] = {
    "python": "py",
    "bash": "sh",
    "sh": "sh",
    "shell": "sh",
    "javascript": "js",
    "typescript": "ts",
    "ruby": "rb",
    "perl": "pl",
    "powershell": "ps1",
}

_ID_UNSAFE = re.compile(r"[^A-Za-z0-9._:-]+")
_FILE_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_ID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)^(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL | re.MULTILINE)
_DEF_LINE = re.compile(r"^\s*((?:async\s+)?def\s+[A-Za-z_]\w*\s*\(.*?)\s*:?\s*$", re.MULTILINE)
_SKIP_DIRS = {"__pycache__", ".git", "node_modules"}


@dataclass(frozen=True)
class SkillScript:
    """One script of a skill folder: its path relative to the folder (POSIX) and its text."""

    path: str
    text: str

    @property
    def stem(self) -> str:
        return PurePosixPath(self.path).stem

    @property
    def extension(self) -> str:
        return PurePosixPath(self.path).suffix.lstrip(".").lower()


@dataclass(frozen=True)
class SkillBundle:
    """A parsed Agent Skills folder. `scripts` is sorted by path; `manifest` is `agentmem.json`."""

    name: str
    description: str
    body: str
    scripts: tuple[SkillScript, ...] = ()
    manifest: Mapping[str, Any] = field(default_factory=dict)

    @property
    def content(self) -> str:
        """The guidance content: the description, then the body."""
        return f"{self.description}\n\n{self.body}" if self.body else self.description


# -- ids and names ---------------------------------------------------------------------------


def sanitize_identifier(text: str, *, fallback: str = "skill") -> str:
    """`text` made to fit the Identifier pattern: unsafe runs become `-`, at most 128 characters."""
    cleaned = _ID_UNSAFE.sub("-", text.strip()).strip("-")[:128].strip("-")
    return cleaned or fallback


def _file_stem(text: str) -> str:
    cleaned = _FILE_UNSAFE.sub("_", text.strip()).strip("._")[:100]
    return cleaned or "function"


def _is_script(path: str, manifest_paths: Iterable[str]) -> bool:
    return PurePosixPath(path).suffix.lstrip(".").lower() in LANGUAGE_BY_EXTENSION or path in manifest_paths


# -- parsing ---------------------------------------------------------------------------------


def parse_skill_md(text: str) -> tuple[str, str, str]:
    """(name, description, body) of a SKILL.md. InvalidInputError(field="front_matter") when the
    front matter is missing, is not a YAML mapping, or lacks a non-empty name or description."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    match = _FRONT_MATTER.match(text)
    if match is None:
        raise InvalidInputError(
            "SKILL.md has no YAML front matter (it must start with a `---` line and close with another)",
            field="front_matter",
        )
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        raise InvalidInputError(
            f"SKILL.md front matter is not valid YAML: {exc}", field="front_matter"
        ) from exc
    if not isinstance(data, dict):
        raise InvalidInputError("SKILL.md front matter must be a mapping", field="front_matter")
    values: dict[str, str] = {}
    for key in ("name", "description"):
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise InvalidInputError(
                f"SKILL.md front matter needs a non-empty string `{key}`", field="front_matter"
            )
        values[key] = value.strip()
    if len(values["name"]) > 500:
        raise InvalidInputError("SKILL.md name is longer than 500 characters", field="front_matter")
    body = text[match.end() :].lstrip("\n").rstrip()
    return values["name"], values["description"], body


def _parse_manifest(raw: bytes | None) -> dict[str, Any]:
    if raw is None:
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidInputError(f"{MANIFEST_FILE} is not valid JSON: {exc}", field=MANIFEST_FILE) from exc
    if not isinstance(data, dict) or not isinstance(data.get("functions", {}), dict):
        raise InvalidInputError(
            f"{MANIFEST_FILE} must be an object with a `functions` object", field=MANIFEST_FILE
        )
    return data


def _decode(raw: bytes, path: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path} is not UTF-8 text", field="path") from exc


def _check_script_size(path: str, size: int) -> None:
    if size > MAX_IMPLEMENTATION_BYTES:
        raise InvalidInputError(
            f"{path}: implementation is {size} bytes, over the limit of {MAX_IMPLEMENTATION_BYTES}; "
            "store larger bodies in the blob store",
            field="implementation",
        )


def _bundle(skill_md: bytes, manifest_raw: bytes | None, scripts: list[SkillScript]) -> SkillBundle:
    name, description, body = parse_skill_md(_decode(skill_md, SKILL_FILE))
    return SkillBundle(
        name=name,
        description=description,
        body=body,
        scripts=tuple(sorted(scripts, key=lambda s: s.path)),
        manifest=_parse_manifest(manifest_raw),
    )


def _manifest_paths(raw: bytes | None) -> set[str]:
    try:
        return set(_parse_manifest(raw).get("functions", {}))
    except InvalidInputError:
        return set()  # reported properly when the bundle is built


def read_skill_folder(path: Path | str) -> SkillBundle:
    """Parse the Agent Skills folder at `path`. Symlinks are not followed out of the folder."""
    root = Path(path)
    if not root.is_dir():
        raise InvalidInputError(f"{root} is not a folder", field="path")
    root = root.resolve()
    skill_path = root / SKILL_FILE
    if not skill_path.is_file():
        raise InvalidInputError(f"no {SKILL_FILE} in {root.name}", field=SKILL_FILE)
    if skill_path.stat().st_size > MAX_SKILL_MD_BYTES:
        raise InvalidInputError(f"{SKILL_FILE} is over {MAX_SKILL_MD_BYTES} bytes", field=SKILL_FILE)
    manifest_path = root / MANIFEST_FILE
    manifest_raw = manifest_path.read_bytes() if manifest_path.is_file() else None
    listed = _manifest_paths(manifest_raw)
    scripts: list[SkillScript] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for filename in sorted(filenames):
            file = Path(dirpath) / filename
            rel = file.relative_to(root).as_posix()
            if rel in (SKILL_FILE, MANIFEST_FILE) or not _is_script(rel, listed):
                continue
            if file.is_symlink() and not file.resolve().is_relative_to(root):
                raise InvalidInputError(f"{rel} is a symlink that escapes the skill folder", field="path")
            info = file.stat()
            if not stat.S_ISREG(info.st_mode):
                continue
            _check_script_size(rel, info.st_size)
            scripts.append(SkillScript(rel, _decode(file.read_bytes(), rel)))
    return _bundle(skill_path.read_bytes(), manifest_raw, scripts)


def _safe_entry_name(info: zipfile.ZipInfo) -> str:
    """The entry's path, normalised to POSIX, or InvalidInputError(field="path") when it escapes."""
    name = info.filename
    posix = name.replace("\\", "/")
    if "\x00" in name or posix.startswith("/") or re.match(r"^[A-Za-z]:", posix):
        raise InvalidInputError(f"zip entry {name!r} has an absolute path", field="path")
    if any(part == ".." for part in posix.split("/")):
        raise InvalidInputError(f"zip entry {name!r} escapes the skill folder with `..`", field="path")
    if stat.S_ISLNK(info.external_attr >> 16):
        raise InvalidInputError(f"zip entry {name!r} is a symlink", field="path")
    return "/".join(part for part in posix.split("/") if part not in ("", "."))


def _zip_files(infos: list[zipfile.ZipInfo]) -> dict[str, zipfile.ZipInfo]:
    """File entries by normalised path, after the zip-slip, duplicate and zip-bomb checks."""
    files: dict[str, zipfile.ZipInfo] = {}
    total = 0
    for info in infos:
        name = _safe_entry_name(info)
        total += info.file_size
        if info.is_dir() or not name:
            continue
        if name in files:
            raise InvalidInputError(f"zip entry {info.filename!r} appears twice", field="path")
        files[name] = info
    if total > MAX_ZIP_BYTES:
        raise InvalidInputError(
            f"zip expands to {total} bytes, over the limit of {MAX_ZIP_BYTES}", field="zip"
        )
    return files


def read_skill_zip(data: bytes) -> SkillBundle:
    """Parse a zipped Agent Skills folder in memory. `SKILL.md` may be at the root of the zip or
    inside one top-level folder. Every entry is checked for zip-slip before any is read."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise InvalidInputError(f"not a readable zip: {exc}", field="zip") from exc
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ZIP_ENTRIES:
            raise InvalidInputError(f"zip has {len(infos)} entries, over {MAX_ZIP_ENTRIES}", field="zip")
        files = _zip_files(infos)
        roots = sorted(
            n[: -len(SKILL_FILE)] for n in files if n == SKILL_FILE or n.endswith("/" + SKILL_FILE)
        )
        roots = [r for r in roots if r.count("/") <= 1]
        if not roots:
            raise InvalidInputError(
                f"no {SKILL_FILE} at the root of the zip or of its folder", field=SKILL_FILE
            )
        if len(roots) > 1:
            raise InvalidInputError(f"zip holds more than one {SKILL_FILE}: {roots}", field=SKILL_FILE)
        prefix = roots[0]

        def read(info: zipfile.ZipInfo, limit: int) -> bytes:
            try:
                with archive.open(info) as member:
                    raw = member.read(limit + 1)
            except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError) as exc:
                raise InvalidInputError(
                    f"zip entry {info.filename!r} cannot be read: {exc}", field="zip"
                ) from exc
            return raw

        skill_md = read(files[prefix + SKILL_FILE], MAX_SKILL_MD_BYTES)
        if len(skill_md) > MAX_SKILL_MD_BYTES:
            raise InvalidInputError(f"{SKILL_FILE} is over {MAX_SKILL_MD_BYTES} bytes", field=SKILL_FILE)
        manifest_info = files.get(prefix + MANIFEST_FILE)
        manifest_raw = read(manifest_info, MAX_ZIP_BYTES) if manifest_info else None
        listed = _manifest_paths(manifest_raw)
        scripts: list[SkillScript] = []
        for name, info in sorted(files.items()):
            if not name.startswith(prefix):
                continue
            rel = name[len(prefix) :]
            if rel in (SKILL_FILE, MANIFEST_FILE) or not _is_script(rel, listed):
                continue
            if any(part in _SKIP_DIRS or part.startswith(".") for part in rel.split("/")[:-1]):
                continue
            _check_script_size(rel, info.file_size)
            raw = read(info, MAX_IMPLEMENTATION_BYTES)
            _check_script_size(rel, len(raw))
            scripts.append(SkillScript(rel, _decode(raw, rel)))
    return _bundle(skill_md, manifest_raw, scripts)


# -- import ----------------------------------------------------------------------------------


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
        match = _DEF_LINE.search(text)
        return (match.group(1) if match else fallback), ""
    signature = fallback
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            signature = _def_header(text, node)
            break
    return signature, ast.get_docstring(module) or ""


def _manifest_id(value: object, what: str) -> str:
    if not isinstance(value, str) or not _ID_RE.match(value):
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
        _check_script_size(script.path, len(script.text.encode("utf-8")))
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
    }
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
        ext = EXTENSION_BY_LANGUAGE.get(function.language.lower(), _file_stem(function.language).lower())
        candidates = [_file_stem(function.name), _file_stem(fid)]
        candidates += [f"{_file_stem(fid)}-{n}" for n in range(2, len(functions) + 3)]
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
    folder = _file_stem(library.get_guidance(guidance_id).title)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for rel, data in files.items():
            info = zipfile.ZipInfo(f"{folder}/{rel}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            archive.writestr(info, data)
    return buffer.getvalue()
