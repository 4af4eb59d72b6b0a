"""Builds the corpus of the knowledge-prose bench (bench/knowledge_prose.py) outside the repository:
$AGENTMEM_EVAL_DATA/knowledge/statements.jsonl (default /work/evaldata), one {"id", "text"} a line.

    .venv/bin/python bench/knowledge_corpus.py [--repo GIT_DIR] [--out DIR]

The text is the CIA World Factbook (public domain), as the MilkMp/CIA-World-Factbooks-Archive-1990-2025
repository exports it per edition (data/fields/country_fields_<year>.sql.gz, data/countries.sql), at
the commit pinned in bench/data/knowledge_prose/labels.json. Only the labels live in the repository:
each statement there names where it comes from (edition year, FIPS country code, field, and which
part of the field) and the sha256 of its text; this script reads that place, cuts the statement out
by the rules below, checks the hash and writes the line. Nothing is paraphrased.

`--repo` is a git directory (bare or not) holding the pinned commit. Without it, the first of
$AGENTMEM_FACTBOOK_REPO, /work/.mirror/MilkMp+CIA-World-Factbooks-Archive-1990-2025/repo and
$AGENTMEM_EVAL_DATA/sources/factbook-archive.git that exists is used; when none does, the public
repository is cloned into the last one (`git clone --bare --filter=blob:none`, needs the network).

How a statement is cut from a field (the same rules made the labels):
- the field's text with the archive's " | " sub-part separators and "country comparison to the
  world: N" rankings taken out, whitespace collapsed;
- Population, Birth rate, Death rate, Population growth rate: from the start up to the first ")"
  (the "(July 2011 est.)" date), or up to a " note:" before it;
- Capital: the name, up to the next sub-label (geographic coordinates, time difference, note...)
  or ";", without the "name:" sub-label;
- chief of state, head of government (sub-parts of "Executive branch"): that sub-part, up to the
  first ";" (dropping deputies and "represented by" clauses) and to the end of its "(since ...)";
- the statement is "<country name of that edition> — <field or sub-part label>: <that text>".
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "bench" / "data" / "knowledge_prose" / "labels.json"
REPO_NAME = "MilkMp/CIA-World-Factbooks-Archive-1990-2025"
REPO_URL = f"https://github.com/{REPO_NAME}.git"
MIRROR = Path("/work/.mirror/MilkMp+CIA-World-Factbooks-Archive-1990-2025/repo")

FIELDS = {  # part -> (field name in the Factbook, label in the statement)
    "population": ("Population", "Population"),
    "birth rate": ("Birth rate", "Birth rate"),
    "death rate": ("Death rate", "Death rate"),
    "population growth rate": ("Population growth rate", "Population growth rate"),
    "capital": ("Capital", "Capital"),
    "chief of state": ("Executive branch", "chief of state"),
    "head of government": ("Executive branch", "head of government"),
}
EXECUTIVE_LABELS = (
    "chief of state:", "head of government:", "cabinet:", "elections:", "election results:",
    "elections/appointments:", "election/appointments:", "note:",
)  # fmt: skip
CAPITAL_LABELS = (
    "geographic coordinates:",
    "time difference:",
    "note:",
    "etymology:",
    "daylight saving time:",
)
COUNTRY_ROW = re.compile(
    r"\(\s*(\d+),\s*(\d+),\s*N'((?:[^']|'')*)',\s*N'((?:[^']|'')*)',\s*N'((?:[^']|'')*)',\s*(?:\d+|NULL)\s*\)"
)
FIELD_ROW = re.compile(r"\(\s*\d+,\s*\d+,\s*(\d+),\s*N'((?:[^']|'')*)',\s*N'((?:[^']|'')*)'\s*\)")
RANKING = re.compile(r"\s*country comparison to the world:\s*\d+")


def eval_root() -> Path:
    return Path(os.environ.get("AGENTMEM_EVAL_DATA", "/work/evaldata"))


def statements_path(root: Path | None = None) -> Path:
    return (root or eval_root()) / "knowledge" / "statements.jsonl"


def load_labels(path: Path = LABELS) -> dict[str, Any]:
    labels: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return labels


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Source:
    git_dir: Path
    commit: str

    def show(self, path: str) -> bytes:
        return subprocess.run(
            ["git", "--git-dir", str(self.git_dir), "show", f"{self.commit}:{path}"],
            check=True, capture_output=True,
        ).stdout  # fmt: skip


def git_dir_of(path: Path) -> Path:
    return path / ".git" if (path / ".git").is_dir() else path


def has_commit(git_dir: Path, commit: str) -> bool:
    probe = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "-e", f"{commit}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


def find_source(commit: str, repo: Path | None) -> Source:
    if repo is not None:
        candidates = [repo]
    else:
        candidates = [Path(p) for p in [os.environ.get("AGENTMEM_FACTBOOK_REPO", "")] if p]
        candidates += [MIRROR, eval_root() / "sources" / "factbook-archive.git"]
    for candidate in candidates:
        git_dir = git_dir_of(candidate)
        if git_dir.exists() and has_commit(git_dir, commit):
            return Source(git_dir, commit)
    if repo is not None:
        raise SystemExit(f"{repo} holds no commit {commit} of {REPO_NAME}")
    target = candidates[-1]
    print(f"cloning {REPO_URL} into {target} (blobs on demand) ...", flush=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        subprocess.run(["git", "clone", "--bare", "--filter=blob:none", REPO_URL, str(target)], check=True)
    if not has_commit(target, commit):
        subprocess.run(["git", "--git-dir", str(target), "fetch", "origin", commit], check=True)
    return Source(target, commit)


def unquote(text: str) -> str:
    return text.replace("''", "'")


def countries(source: Source) -> dict[int, tuple[int, str, str]]:
    """CountryID -> (edition year, FIPS code in lower case, country name as that edition has it)."""
    sql = source.show("data/countries.sql").decode("utf-8")
    return {int(m[1]): (int(m[2]), unquote(m[3]).lower(), unquote(m[4])) for m in COUNTRY_ROW.finditer(sql)}


def edition(
    source: Source, year: int, ids: dict[int, tuple[int, str, str]]
) -> dict[str, tuple[str, dict[str, str]]]:
    """FIPS code -> (name, {field name: content}) for one edition; the first of a repeated field."""
    sql = gzip.decompress(source.show(f"data/fields/country_fields_{year}.sql.gz")).decode("utf-8")
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for m in FIELD_ROW.finditer(sql):
        y, code, name = ids[int(m[1])]
        if y != year:
            continue
        fields = out.setdefault(code, (name, {}))[1]
        fields.setdefault(unquote(m[2]), unquote(m[3]))
    return out


def clean(content: str) -> str:
    return " ".join(RANKING.sub("", content.replace("|", " ")).split())


def _until(text: str, labels: tuple[str, ...], start: int = 0) -> str:
    ends = [i for i in (text.find(label, start) for label in labels) if i >= 0]
    return text[: min(ends)] if ends else text


def excerpt(content: str, part: str) -> str | None:
    """The statement's text after its label, cut from one field's content (module docstring)."""
    text = clean(content)
    if part in ("chief of state", "head of government"):
        at = text.find(f"{part}:")
        if at < 0:
            return None
        rest = text[at + len(part) + 1 :]
        seg = _until(rest, EXECUTIVE_LABELS).split(";")[0].strip()
        since = re.match(r"^(.*?\(since[^)]*\))", seg)
        if since:
            seg = since.group(1)
        elif len(seg) > 160 and ")" in seg:
            seg = seg[: seg.index(")") + 1]
        return seg or None
    if part == "capital":
        if text.startswith("name:"):
            text = text[len("name:") :].strip()
        seg = _until(text, CAPITAL_LABELS).split(";")[0].strip()
        return seg or None
    seg = text[: text.index(")") + 1] if ")" in text else text
    if " note:" in seg:
        seg = seg[: seg.index(" note:")]
    return seg.strip() or None


def statement_text(name: str, part: str, cut: str) -> str:
    return f"{name} — {FIELDS[part][1]}: {cut}"


def locate(editions: dict[int, dict[str, tuple[str, dict[str, str]]]], where: dict[str, Any]) -> str | None:
    entry = editions[where["year"]].get(where["code"])
    if entry is None:
        return None
    name, fields = entry
    content = fields.get(FIELDS[where["part"]][0])
    cut = excerpt(content, where["part"]) if content else None
    return statement_text(name, where["part"], cut) if cut else None


def load_editions(source: Source, years: set[int]) -> dict[int, dict[str, tuple[str, dict[str, str]]]]:
    ids = countries(source)
    return {year: edition(source, year, ids) for year in sorted(years)}


def build(labels: dict[str, Any], source: Source) -> list[dict[str, str]]:
    statements = labels["statements"]
    editions = load_editions(source, {s["locator"]["year"] for s in statements})
    rows, bad = [], []
    for s in statements:
        text = locate(editions, s["locator"])
        if text is None or text_hash(text) != s["sha256"]:
            bad.append(s["id"])
            continue
        rows.append({"id": s["id"], "text": text})
    if bad:
        raise SystemExit(f"{len(bad)} statements do not match their labels (first: {bad[:5]})")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repo", type=Path, default=None, help="a git dir holding the pinned commit")
    parser.add_argument("--out", type=Path, default=None, help="eval data root (default $AGENTMEM_EVAL_DATA)")
    args = parser.parse_args()
    labels = load_labels()
    source = find_source(labels["source"]["commit"], args.repo)
    rows = build(labels, source)
    out = statements_path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    (out.parent / "source.json").write_text(
        json.dumps({**labels["source"], "git_dir": str(source.git_dir), "statements": len(rows)}, indent=2)
        + "\n",
        encoding="utf-8",
    )
    print(f"wrote {len(rows)} statements to {out} (from {REPO_NAME}@{source.commit[:12]})")


if __name__ == "__main__":
    main()
