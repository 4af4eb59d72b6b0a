"""Reading Agent Skills folders and zips into a SkillBundle: pure parsing, in memory, with the
zip-slip, symlink, size and front-matter checks. Nothing is written anywhere."""

from __future__ import annotations

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

from agentmem.errors import InvalidInputError
from agentmem.procedural.model import (
    MAX_IMPLEMENTATION_BYTES,
)

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
ID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)^(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL | re.MULTILINE)
DEF_LINE = re.compile(r"^\s*((?:async\s+)?def\s+[A-Za-z_]\w*\s*\(.*?)\s*:?\s*$", re.MULTILINE)
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


def file_stem(text: str) -> str:
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


def check_script_size(path: str, size: int) -> None:
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
            check_script_size(rel, info.st_size)
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
            check_script_size(rel, info.file_size)
            raw = read(info, MAX_IMPLEMENTATION_BYTES)
            check_script_size(rel, len(raw))
            scripts.append(SkillScript(rel, _decode(raw, rel)))
    return _bundle(skill_md, manifest_raw, scripts)


# -- import ----------------------------------------------------------------------------------
