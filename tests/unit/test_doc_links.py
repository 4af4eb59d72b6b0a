"""Every relative link in README.md and docs/*.md names a file that exists, and a `#fragment` into
a markdown file names one of its headings: the README is the entry to the code and the docs, so a
moved module or a renamed heading must not leave it pointing nowhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`]*`")
# [text](target) and ![alt](target), with an optional "title"; the text may hold `code`.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto:, ...


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The lines of `path` outside fenced code blocks, numbered from 1."""
    lines: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, line))
    return lines


def links_of(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for number, line in prose_lines(path):
        definition = REFERENCE_DEFINITION.match(line)
        if definition:
            found.append((number, definition.group(1)))
            continue
        # A link's text may be code (`[`x.py`](x.py)`), but a link that starts inside code is code.
        code = [span.span() for span in INLINE_CODE.finditer(line)]
        found.extend(
            (number, link.group(1))
            for link in INLINE_LINK.finditer(line)
            if not any(start < link.start() < end for start, end in code)
        )
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lower-cased, punctuation dropped, spaces as '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors_of(path: Path) -> set[str]:
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose_lines(path):
        heading = HEADING.match(line)
        if heading is None:
            continue
        base = slug(heading.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        anchors.add(base if count == 0 else f"{base}-{count}")
    return anchors


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    broken: list[str] = []
    for number, target in links_of(path):
        if EXTERNAL.match(target):
            continue
        file_part, _, fragment = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(root)}:{number}: {target}"
        if not resolved.exists():
            broken.append(f"{where} (no such file)")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors_of(resolved):
            broken.append(f"{where} (no heading #{fragment} in {resolved.relative_to(root)})")
    return broken


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path: Path) -> None:
    assert broken_links(path) == []


def test_the_checker_sees_a_broken_link_and_a_missing_heading(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# Present heading\n\n## `code`: and more\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok too](there.md#present-heading) [code](there.md#code-and-more)\n"
        "[gone](missing.md) [no heading](there.md#absent) ![img](nope.png) [ext](https://example.com)\n"
        "```\n[in a fence](ignored.md)\n```\n"
        "`[in code](ignored-too.md)`\n"
    )
    targets = [target for _, target in links_of(page)]
    assert "ignored.md" not in targets and "ignored-too.md" not in targets
    problems = [p.split(": ", 1)[1] for p in broken_links(page, tmp_path)]
    assert problems == [
        "missing.md (no such file)",
        "there.md#absent (no heading #absent in there.md)",
        "nope.png (no such file)",
    ]
