"""Agent Skills folders: parsing, import into the skill library, export, round trip, bad input."""

from __future__ import annotations

import io
import stat
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from agentmem.adapters.local.sqlite_db import open_database
from agentmem.adapters.local.sqlite_skills import SqliteSkillLibrary
from agentmem.errors import InvalidInputError, NotFoundError
from agentmem.procedural.agent_skills import export_folder, export_zip, import_bundle
from agentmem.procedural.agent_skills_read import (
    MAX_ZIP_BYTES,
    read_skill_folder,
    read_skill_zip,
    sanitize_identifier,
)
from agentmem.procedural.model import MAX_IMPLEMENTATION_BYTES, FunctionSpec, GuidanceSpec, SkillStatus

SKILL_MD = """---
name: pdf-tools
description: Work with PDF files.
---

# PDF tools

Use `extract` to get the text out.
"""

EXTRACT_PY = '''"""Extract the text of a PDF."""


def extract(path: str, *, pages: int = 0) -> str:
    return path
'''

ROTATE_SH = '#!/bin/sh\nqpdf --rotate=90 "$1"\n'

LibraryFactory = Callable[[str], SqliteSkillLibrary]


@pytest.fixture
def make_library(tmp_path: Path) -> LibraryFactory:
    return lambda name: SqliteSkillLibrary(open_database(tmp_path / f"{name}.db"), "acme")


def write_skill(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def make_zip(entries: list[tuple[str | zipfile.ZipInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


# -- import ----------------------------------------------------------------------------------


def test_folder_imports_as_guidance_with_linked_draft_functions(
    tmp_path: Path, make_library: LibraryFactory
) -> None:
    root = write_skill(
        tmp_path / "pdf",
        {"SKILL.md": SKILL_MD, "scripts/extract.py": EXTRACT_PY, "rotate.sh": ROTATE_SH, "notes.txt": "x"},
    )
    bundle = read_skill_folder(root)
    assert [s.path for s in bundle.scripts] == ["rotate.sh", "scripts/extract.py"]
    library = make_library("lib")
    guidance, functions = import_bundle(bundle, library, author="ana")

    assert [f.function_id for f in functions] == ["pdf-tools.extract", "pdf-tools.rotate"]
    extract, rotate = functions
    assert extract.name == "extract"
    assert extract.language == "python"
    assert extract.signature == "def extract(path: str, *, pages: int = 0) -> str"
    assert extract.docstring == "Extract the text of a PDF."
    assert extract.implementation == EXTRACT_PY
    assert extract.status is SkillStatus.DRAFT
    assert extract.author == "ana"
    assert extract.guidance_ids == ["pdf-tools"]
    assert rotate.language == "bash"
    assert rotate.signature == "rotate.sh"
    assert rotate.docstring == ""

    assert guidance.guidance_id == "pdf-tools"
    assert guidance.title == "pdf-tools"
    assert guidance.content == "Work with PDF files.\n\n# PDF tools\n\nUse `extract` to get the text out."
    assert guidance.function_ids == ["pdf-tools.extract", "pdf-tools.rotate"]
    assert guidance.status is SkillStatus.DRAFT

    again, _ = import_bundle(read_skill_folder(root), library, author="ana")
    assert again.version == 1  # importing the same folder again is a no-op


def test_ids_are_sanitised_and_colliding_stems_disambiguated(
    tmp_path: Path, make_library: LibraryFactory
) -> None:
    skill = "---\nname: My Skill / v2\ndescription: d\n---\n"
    root = write_skill(tmp_path / "s", {"SKILL.md": skill, "run.py": "x = 1\n", "run.sh": "echo\n"})
    guidance, functions = import_bundle(read_skill_folder(root), make_library("lib"))
    assert guidance.guidance_id == "My-Skill-v2"
    assert guidance.content == "d"
    assert [f.function_id for f in functions] == ["My-Skill-v2.run.py", "My-Skill-v2.run.sh"]
    assert sanitize_identifier("x" * 300) == "x" * 128
    assert sanitize_identifier("///") == "skill"


def test_zip_with_top_level_folder_reads_in_memory(make_library: LibraryFactory) -> None:
    data = make_zip([("pdf/SKILL.md", SKILL_MD.encode()), ("pdf/scripts/extract.py", EXTRACT_PY.encode())])
    bundle = read_skill_zip(data)
    assert bundle.name == "pdf-tools"
    assert [s.path for s in bundle.scripts] == ["scripts/extract.py"]
    _, functions = import_bundle(bundle, make_library("lib"))
    assert [f.function_id for f in functions] == ["pdf-tools.extract"]


# -- round trip ------------------------------------------------------------------------------


def seed(library: SqliteSkillLibrary) -> None:
    library.put_function(
        FunctionSpec(
            function_id="math.base", name="base", implementation="def base() -> int:\n    return 1\n"
        )
    )
    library.put_function(
        FunctionSpec(
            function_id="math.add",
            name="add",
            signature="def add(a: int) -> int",
            implementation="from base import base\n\ndef add(a: int) -> int:\n    return a + base()\n",
            depends_on=["math.base"],
        )
    )
    library.put_function(
        FunctionSpec(function_id="ops.clean", name="clean", implementation="rm -rf build\n", language="bash")
    )
    library.put_function(  # same name as math.add: exported under another file name
        FunctionSpec(function_id="other.add", name="add", implementation="add = 2\n")
    )
    library.put_guidance(
        GuidanceSpec(
            guidance_id="math-guide",
            title="Math guide",
            content="Adding numbers.\n\n## Steps\n\nCall `math.add`.",
            function_ids=["math.add", "ops.clean", "other.add"],
        )
    )


def assert_same(source: SqliteSkillLibrary, target: SqliteSkillLibrary) -> None:
    fields = ("implementation", "name", "language", "depends_on", "signature", "guidance_ids")
    for fid in ("math.base", "math.add", "ops.clean", "other.add"):
        a, b = source.get_function(fid), target.get_function(fid)
        assert {k: getattr(a, k) for k in fields} == {k: getattr(b, k) for k in fields}
    a_g, b_g = source.get_guidance("math-guide"), target.get_guidance("math-guide")
    assert (a_g.title, a_g.content, a_g.function_ids) == (b_g.title, b_g.content, b_g.function_ids)
    assert source.links() == target.links()


def test_folder_round_trip(tmp_path: Path, make_library: LibraryFactory) -> None:
    source = make_library("source")
    seed(source)
    out = export_folder(source, "math-guide", tmp_path / "out")
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "SKILL.md",
        "agentmem.json",
        "scripts/add.py",
        "scripts/base.py",
        "scripts/clean.sh",
        "scripts/other.add.py",
    ]
    skill_md = (out / "SKILL.md").read_text()
    assert skill_md.startswith("---\nname: Math guide\ndescription: Adding numbers.\n---\n\n## Steps")
    target = make_library("target")
    import_bundle(read_skill_folder(out), target)
    assert_same(source, target)


def test_zip_round_trip_is_deterministic(make_library: LibraryFactory) -> None:
    source = make_library("source")
    seed(source)
    data = export_zip(source, "math-guide")
    assert data == export_zip(source, "math-guide")
    target = make_library("target")
    import_bundle(read_skill_zip(data), target)
    assert_same(source, target)
    assert export_zip(target, "math-guide") == data


def test_export_without_manifest_still_imports(tmp_path: Path, make_library: LibraryFactory) -> None:
    source = make_library("source")
    seed(source)
    out = export_folder(source, "math-guide", tmp_path / "out")
    (out / "agentmem.json").unlink()
    (out / "scripts" / "add.py").unlink()  # it depends on base; without the manifest no deps are known
    guidance, functions = import_bundle(read_skill_folder(out), make_library("target"))
    assert guidance.guidance_id == "Math-guide"
    assert [f.function_id for f in functions] == [
        "Math-guide.base",
        "Math-guide.clean",
        "Math-guide.other.add",
    ]


# -- bad input -------------------------------------------------------------------------------


def expect_invalid(field: str, call: Callable[[], object], match: str | None = None) -> InvalidInputError:
    with pytest.raises(InvalidInputError, match=match) as info:
        call()
    assert info.value.field == field
    return info.value


def test_missing_skill_md(tmp_path: Path) -> None:
    root = write_skill(tmp_path / "s", {"run.py": "x = 1\n"})
    expect_invalid("SKILL.md", lambda: read_skill_folder(root))
    expect_invalid("SKILL.md", lambda: read_skill_zip(make_zip([("run.py", b"x = 1\n")])))


@pytest.mark.parametrize(
    "text",
    [
        "# Just markdown\n",
        "---\nname: x\ndescription: y\n",  # never closed
        "---\ndescription: no name\n---\nbody\n",
        "---\nname: no description\n---\n",
        "---\nname: x\ndescription: ''\n---\n",
        "---\n- a list\n---\n",
        "---\nname: [unclosed\n---\n",
    ],
)
def test_skill_md_without_valid_front_matter(tmp_path: Path, text: str) -> None:
    root = write_skill(tmp_path / "s", {"SKILL.md": text})
    expect_invalid("front_matter", lambda: read_skill_folder(root))


@pytest.mark.parametrize(
    "name", ["/etc/passwd", "../evil.py", "skill/../../evil.py", "C:/evil.py", "a\\..\\evil.py"]
)
def test_zip_slip_entries_are_refused(name: str) -> None:
    data = make_zip([("SKILL.md", SKILL_MD.encode()), (name, b"x = 1\n")])
    error = expect_invalid("path", lambda: read_skill_zip(data))
    assert repr(name) in error.message


def test_zip_symlink_entry_is_refused() -> None:
    link = zipfile.ZipInfo("scripts/link.py")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    data = make_zip([("SKILL.md", SKILL_MD.encode()), (link, b"/etc/passwd")])
    expect_invalid("path", lambda: read_skill_zip(data), match="symlink")


def test_folder_symlink_escaping_is_refused(tmp_path: Path) -> None:
    outside = write_skill(tmp_path / "outside", {"secret.py": "KEY = 1\n"})
    root = write_skill(tmp_path / "s", {"SKILL.md": SKILL_MD})
    (root / "leak.py").symlink_to(outside / "secret.py")
    expect_invalid("path", lambda: read_skill_folder(root), match="leak.py")


def test_zip_bomb_is_refused() -> None:
    data = make_zip([("SKILL.md", SKILL_MD.encode()), ("big.txt", b"\0" * (MAX_ZIP_BYTES + 1))])
    assert len(data) < 100_000
    expect_invalid("zip", lambda: read_skill_zip(data))


def test_not_a_zip() -> None:
    expect_invalid("zip", lambda: read_skill_zip(b"not a zip"))


def test_oversized_script_is_refused(tmp_path: Path, make_library: LibraryFactory) -> None:
    big = "#" * (MAX_IMPLEMENTATION_BYTES + 1)
    root = write_skill(tmp_path / "s", {"SKILL.md": SKILL_MD, "big.py": big})
    expect_invalid("implementation", lambda: read_skill_folder(root), match="big.py")
    data = make_zip([("SKILL.md", SKILL_MD.encode()), ("big.py", big.encode())])
    expect_invalid("implementation", lambda: read_skill_zip(data), match="big.py")


def test_dependency_cycle_in_manifest_writes_nothing(tmp_path: Path, make_library: LibraryFactory) -> None:
    manifest = (
        '{"functions": {"a.py": {"function_id": "a", "depends_on": ["b"]},'
        ' "b.py": {"function_id": "b", "depends_on": ["a"]}}}'
    )
    root = write_skill(
        tmp_path / "s", {"SKILL.md": SKILL_MD, "a.py": "", "b.py": "", "agentmem.json": manifest}
    )
    library = make_library("lib")
    expect_invalid("depends_on", lambda: import_bundle(read_skill_folder(root), library), match="a -> b -> a")
    assert library.links() == []


def test_unknown_dependency_writes_nothing(tmp_path: Path, make_library: LibraryFactory) -> None:
    manifest = '{"functions": {"a.py": {"function_id": "a", "depends_on": ["ghost"]}}, "guidance_id": "g"}'
    root = write_skill(tmp_path / "s", {"SKILL.md": SKILL_MD, "a.py": "", "agentmem.json": manifest})
    library = make_library("lib")
    expect_invalid("depends_on", lambda: import_bundle(read_skill_folder(root), library), match="ghost")
    with pytest.raises(NotFoundError):
        library.get_function("a")
    expect_invalid("agentmem.json", lambda: read_skill_folder(write_skill(root, {"agentmem.json": "[1"})))
