"""The demo's docs writer: blocks between markers are rewritten and nothing else, drift in a block
or a figure in the prose that the run did not print is reported, and the paragraph of figures
says only what its numbers bear out. The input is the run the docs themselves quote (the output
block of docs/demo.md), so no demo runs here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentmem.demo.docs import BLOCKS, DocsBlockError, block, main, normalise, problems, replace_block, write
from agentmem.demo.docs_figures import SessionCost, comparison

ROOT = Path(__file__).resolve().parents[2]


def _quoted_run() -> str:
    """The run docs/demo.md quotes, as the demo printed it (port and data dir already masked)."""
    body = block((ROOT / "docs/demo.md").read_text(encoding="utf-8"), "output")
    return body.removeprefix("```\n").removesuffix("```").rstrip() + "\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for path in BLOCKS:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / path, tmp_path / path)
    return tmp_path


def test_the_committed_blocks_are_what_the_quoted_run_renders(root: Path) -> None:
    assert problems(root, _quoted_run()) == []


def test_a_hand_edited_figure_in_a_block_is_reported(root: Path) -> None:
    readme = root / "README.md"
    text = readme.read_text(encoding="utf-8")
    total = next(line for line in block(text, "excerpt").splitlines() if line.startswith("all "))
    readme.write_text(text.replace(total, total.replace("18 prompts", "19 prompts")), encoding="utf-8")
    assert problems(root, _quoted_run()) == [
        "README.md: the demo:excerpt block differs from what the demo prints"
    ]


def test_a_figure_in_the_prose_that_the_run_never_printed_is_reported(root: Path) -> None:
    demo = root / "docs/demo.md"
    demo.write_text(demo.read_text(encoding="utf-8") + "\nTwo runs took 47 s and 7,440 tokens.\n")
    found = problems(root, _quoted_run())
    assert found == [
        "docs/demo.md: '47 s' is in the prose but not in what the demo prints",
        "docs/demo.md: '7,440' is in the prose but not in what the demo prints",
    ]


def test_writing_rewrites_the_blocks_and_nothing_around_them(root: Path) -> None:
    demo = root / "docs/demo.md"
    before = demo.read_text(encoding="utf-8")
    stale = replace_block(before, "figures", "With 3 sessions, figures from an older run.")
    demo.write_text(stale, encoding="utf-8")
    assert write(root, _quoted_run()) == ["docs/demo.md"]
    assert demo.read_text(encoding="utf-8") == before
    assert write(root, _quoted_run()) == []  # a second write finds nothing to change


def test_a_block_needs_one_begin_and_after_it_one_end_marker() -> None:
    whole = "a\n<!-- demo:x begin -->\nold\n<!-- demo:x end -->\nb\n"
    assert block(replace_block(whole, "x", "new"), "x") == "new"
    assert replace_block(whole, "x", "new").startswith("a\n<!-- demo:x begin") and whole.endswith(
        "end -->\nb\n"
    )
    for broken in ("a\n", whole + whole, "<!-- demo:x end -->\n<!-- demo:x begin -->\n"):
        with pytest.raises(DocsBlockError):
            block(broken, "x")


def test_the_port_and_the_temporary_dir_are_masked() -> None:
    line = "local server http://127.0.0.1:41234, data dir /var/tmp/agentmem-demo-7 (deleted at exit)"
    assert normalise(line) == (
        "local server http://127.0.0.1:PORT, data dir /tmp/agentmem-demo-N (deleted at exit)\n"
    )


@pytest.mark.parametrize(
    ("costs", "said"),
    [  # (by reference, text-only) per session
        (
            [(4, 3), (8, 9), (9, 15)],
            "by reference costs less from session 2 on, and the gap grows every session",
        ),
        ([(4, 5), (8, 9), (9, 10)], "by reference costs less in every session"),
        ([(4, 3), (9, 8), (9, 15)], "by reference costs less from session 3 on"),
        ([(4, 5), (9, 8), (9, 15)], "by reference costs less only in session(s) 1, 3"),
        ([(4, 3), (9, 8)], "by reference does not cost less than the text-only chain in any session yet"),
    ],
)
def test_the_paragraph_claims_only_what_its_figures_show(costs: list[tuple[int, int]], said: str) -> None:
    assert comparison([SessionCost(n, ref, text) for n, (ref, text) in enumerate(costs, start=1)]) == said


def test_check_exits_1_on_drift_and_writes_nothing(root: Path) -> None:
    assert main(["--root", str(root), "--check"], demo=_quoted_run) == 0
    demo = root / "docs/demo.md"
    stale = replace_block(demo.read_text(encoding="utf-8"), "figures", "figures of an older run")
    demo.write_text(stale, encoding="utf-8")
    assert main(["--root", str(root), "--check"], demo=_quoted_run) == 1
    assert demo.read_text(encoding="utf-8") == stale
    assert main(["--root", str(root)], demo=_quoted_run) == 0  # rewritten from the run
    assert main(["--root", str(root), "--check"], demo=_quoted_run) == 0


def test_a_root_without_the_docs_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["--root", str(tmp_path)], demo=_quoted_run)
    assert refused.value.code == 2
