"""`python -m agentmem.demo.docs [--check] [--root DIR]`: the demo's excerpts and figures in
README.md and docs/demo.md, written from a run of `make demo`, so the docs quote what it prints.

Each generated block sits between two marker comments, `<!-- demo:NAME begin -->` and
`<!-- demo:NAME end -->`, and nothing outside them is touched. Figures in the prose around the
blocks (a budget, a size) are checked instead: each must appear in the run's output. `--check`
writes nothing and exits 1 on any difference; tests/functional/test_demo.py checks the same
against the run it already makes.

A run differs from the next only in its port, its temporary data dir and its elapsed time: the
first two are masked, and the elapsed time is kept but never compared."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

from agentmem.demo.docs_figures import figures

BLOCKS: Mapping[str, tuple[str, ...]] = {"README.md": ("excerpt",), "docs/demo.md": ("figures", "output")}
PROSE_CHECKED = {"README.md": "## What `make demo` prints", "docs/demo.md": None}  # None: the whole file
FIGURE = re.compile(r"\b\d{1,3}(?:,\d{3})+\b|\b\d+(?:\.\d+)?(?: ?KB|%| s\b)")
ELAPSED = re.compile(r"^done in \d+(?:\.\d+)? s$", re.MULTILINE)
HERE = "(python -m agentmem.demo.docs writes this block from a run of the demo; do not edit it)"


class DocsBlockError(ValueError):
    """A document lacks a block's markers, or holds them twice or out of order."""


class DemoRunError(RuntimeError):
    """The demo exited with an error; the message ends with its stderr."""


def run_demo(timeout: float | None = None) -> str:
    """The demo's stdout, run as `make demo` runs it, with no AGENTMEM_* setting of this shell
    (the docs describe the defaults)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTMEM_")}
    done = subprocess.run(
        [sys.executable, "-m", "agentmem.demo"],
        capture_output=True, text=True, env=env, check=False, timeout=timeout,
    )  # fmt: skip
    if done.returncode != 0:
        raise DemoRunError(f"the demo exited with {done.returncode}:\n{done.stderr[-3000:]}")
    return done.stdout


def normalise(output: str) -> str:
    """The output as the docs show it: the port and the temporary data dir masked."""
    output = re.sub(r"http://127\.0\.0\.1:\d+", "http://127.0.0.1:PORT", output)
    return re.sub(r"data dir \S*agentmem-demo-\d+", "data dir /tmp/agentmem-demo-N", output).rstrip() + "\n"


def sections(output: str) -> dict[str, list[str]]:
    """The output's `── Title ───` sections, by title; the lines before the first under ""."""
    found: dict[str, list[str]] = {"": []}
    current = ""
    for line in output.splitlines():
        if line.startswith("── "):
            current = line.strip("─ ")
            found[current] = [line]
        else:
            found[current].append(line)
    return found


def _section(parts: Mapping[str, list[str]], starts: str) -> list[str]:
    title = next((t for t in parts if t.startswith(starts)), None)
    if title is None:
        raise DocsBlockError(f"the demo printed no section starting {starts!r}")
    return [line for line in parts[title] if line.strip()]


def _token_rows(lines: list[str]) -> list[str]:
    """Per session its first agent and its total; the dashes under the header left out."""
    out = lines[:2]
    for line in lines:
        if line.startswith("priya-s"):
            out += [line, "          ..."]
        elif "session total" in line or line.startswith("all "):
            out.append(line)
    return out


def _later_beliefs(lines: list[str]) -> list[str]:
    """The beliefs a session after the first made or changed (their sessions column says so)."""
    rows = [line for line in lines[3:] if re.search(r"priya-s(?!1\b)\d+", line)]
    return [*lines[:2], *rows, "..."]


def excerpt(output: str) -> str:
    """README's excerpt: the token table by session, the beliefs later sessions changed, the
    first flagged line the compliance agent read, and the composer's cut."""
    parts = sections(output)
    flagged = _section(parts, "What the compliance agent read")
    composer = _section(parts, "The composer")
    cut = next(n for n, line in enumerate(composer) if line.startswith("sections, best first"))
    tail = [line for line in composer if re.match(r"^\d[\d,]* (of|assets in scope)", line)]
    lines = [
        *_token_rows(_section(parts, "Prompt tokens per agent")),
        "",
        *_later_beliefs(_section(parts, "What is known about")),
        "",
        flagged[0],
        next(line for line in flagged if "⚠ changed from" in line),
        "",
        *composer[:3],
        *composer[cut : cut + 4],
        "   ...",
        *tail,
    ]
    return "\n".join(lines)


def render(output: str) -> dict[str, str]:
    """Every block's body, by name, from one run's stdout."""
    shown = normalise(output)
    return {
        "excerpt": f"```\n{excerpt(shown)}\n```",
        "figures": textwrap.fill(figures(shown), width=100, break_long_words=False, break_on_hyphens=False),
        "output": f"```\n{shown}```",
    }


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- demo:{name} begin {HERE} -->", f"<!-- demo:{name} end -->"


def _span(text: str, name: str) -> tuple[int, int]:
    begin = re.compile(rf"^<!-- demo:{name} begin.*-->\n", re.MULTILINE)
    end = re.compile(rf"^<!-- demo:{name} end -->$", re.MULTILINE)
    starts, ends = list(begin.finditer(text)), list(end.finditer(text))
    if len(starts) != 1 or len(ends) != 1 or ends[0].start() < starts[0].end():
        raise DocsBlockError(f"demo:{name} needs one begin marker and, after it, one end marker")
    return starts[0].end(), ends[0].start()


def block(text: str, name: str) -> str:
    start, stop = _span(text, name)
    return text[start:stop].rstrip("\n")


def replace_block(text: str, name: str, body: str) -> str:
    start, stop = _span(text, name)
    head = text[: text.rindex("<!--", 0, start)]
    return f"{head}{_markers(name)[0]}\n{body}\n{text[stop:]}"


def _comparable(body: str) -> str:
    return ELAPSED.sub("done in N s", body)


def outside_blocks(text: str, names: tuple[str, ...]) -> str:
    for name in names:
        start, stop = _span(text, name)
        text = text[:start] + text[stop:]
    return text


def _prose(path: str, text: str) -> str:
    heading = PROSE_CHECKED[path]
    text = outside_blocks(text, BLOCKS[path])
    if heading is None:
        return text
    after = text[text.index(heading) :]
    following = after.find("\n## ", len(heading))
    return after if following < 0 else after[:following]


def problems(root: Path, output: str) -> list[str]:
    """What in the docs under `root` does not match this run's stdout; empty when nothing."""
    rendered, shown, found = render(output), normalise(output), []
    for path, names in BLOCKS.items():
        text = (root / path).read_text(encoding="utf-8")
        for name in names:
            if _comparable(block(text, name)) != _comparable(rendered[name]):
                found.append(f"{path}: the demo:{name} block differs from what the demo prints")
        for figure in sorted(set(FIGURE.findall(_prose(path, text)))):
            if figure not in shown:
                found.append(f"{path}: {figure!r} is in the prose but not in what the demo prints")
    return found


def write(root: Path, output: str) -> list[str]:
    """Rewrite every block under `root` from this run; the files that changed."""
    rendered, changed = render(output), []
    for path, names in BLOCKS.items():
        file = root / path
        text = before = file.read_text(encoding="utf-8")
        for name in names:
            text = replace_block(text, name, rendered[name])
        if text != before:
            file.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str] | None = None, demo: Callable[[], str] = run_demo) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentmem.demo.docs", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository (default: here)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the docs drift")
    args = parser.parse_args(argv)
    missing = [p for p in BLOCKS if not (args.root / p).is_file()]
    if missing:
        parser.error(f"{args.root} has no {', '.join(missing)}: pass the repository as --root")
    try:
        output = demo()
    except DemoRunError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.check:
        found = problems(args.root, output)
        print("\n".join(found) or "the demo's docs match its output")
        return 1 if found else 0
    changed = write(args.root, output)
    leftover = problems(args.root, output)  # prose figures no block rewrite can fix
    print("\n".join([*(f"wrote {p}" for p in changed), *leftover]) or "the demo's docs already match")
    return 1 if leftover else 0


if __name__ == "__main__":
    sys.exit(main())
