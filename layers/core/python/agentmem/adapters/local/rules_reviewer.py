"""The review duty of the LLM port without a model: documented rules over events an agent wrote
up on purpose. Only events of kind `code` and `procedure` are read; every other kind is ignored.

`code` events propose functions:
- a JSON object with `name` and `implementation` (or `code`), and optionally `signature`,
  `docstring`, `language`, `depends_on` (names or library ids) and `tags`: one function;
- a string that parses as Python: one function per top-level `def`, with its name, its signature
  as written, its docstring and its source. A call to a function the same session proposes is a
  dependency (`depends_on`). Source that does not parse as Python proposes nothing (there is no
  name to give it): send the object form instead.

`procedure` events propose guidance:
- a JSON object with `title` and `content` (markdown) or `steps` (a list, rendered as a numbered
  list), and optionally `uses` (function names or ids) and `tags`;
- a string of markdown: its first heading (or first line) is the title, the rest the content.

A guidance links every function of the session that it names in `uses`, or mentions in its text as
`name(` or in backticks. Everything is proposed as written, nothing paraphrased or invented.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from typing import Any

from agentmem.model.events import Event
from agentmem.procedural.model import Proposals, ProposedFunction, ProposedGuidance

HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")


class RulesSkillReviewer:
    def propose_skills(self, events: Sequence[Event]) -> Proposals:
        functions = [f for e in events if e.kind == "code" for f in _functions(e)]
        names = {f.name for f in functions}
        for function in functions:
            if function.language == "python":
                called = _python_calls(function.implementation) & names
                function.calls = list(dict.fromkeys([*function.calls, *sorted(called - {function.name})]))
        guidance = [g for e in events if e.kind == "procedure" for g in _guidance(e, names)]
        return Proposals(functions=functions, guidance=guidance)


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _functions(event: Event) -> Iterator[ProposedFunction]:
    content = event.content
    if isinstance(content, dict):
        name, source = content.get("name"), content.get("implementation", content.get("code"))
        if isinstance(name, str) and name.strip() and isinstance(source, str) and source.strip():
            yield ProposedFunction(
                name=name.strip()[:200],
                signature=str(content.get("signature", "")),
                docstring=str(content.get("docstring", "")),
                implementation=source,
                language=str(content.get("language", "python")),
                calls=_strings(content.get("depends_on")),
                tags=_strings(content.get("tags")),
                source_seq=event.seq,
            )
    elif isinstance(content, str):
        yield from _python_functions(content, event.seq)


def _python_functions(source: str, seq: int) -> Iterator[ProposedFunction]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
            prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
            yield ProposedFunction(
                name=node.name,
                signature=f"{prefix} {node.name}({ast.unparse(node.args)}){returns}",
                docstring=ast.get_docstring(node) or "",
                implementation=ast.get_source_segment(source, node) or ast.unparse(node),
                language="python",
                source_seq=seq,
            )


def _python_calls(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }


def _mentioned(text: str, names: set[str]) -> list[str]:
    return [n for n in sorted(names) if re.search(rf"(?<![\w.]){re.escape(n)}\s*\(|`{re.escape(n)}`", text)]


def _guidance(event: Event, names: set[str]) -> Iterator[ProposedGuidance]:
    content = event.content
    if isinstance(content, dict):
        title = content.get("title")
        if not isinstance(title, str) or not title.strip():
            return
        steps = _strings(content.get("steps"))
        body = content.get("content")
        text = body if isinstance(body, str) else "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
        uses = _strings(content.get("uses"))
        tags = _strings(content.get("tags"))
    elif isinstance(content, str):
        lines = content.strip().splitlines()
        if not lines:
            return
        at = next((i for i, line in enumerate(lines) if HEADING.match(line)), 0)
        match = HEADING.match(lines[at])
        title = match.group(1) if match else lines[at].strip()
        text = "\n".join(lines[:at] + lines[at + 1 :])
        uses, tags = [], []
    else:
        return
    mentioned = _mentioned(f"{title}\n{text}", names)
    yield ProposedGuidance(
        title=title.strip()[:500],
        content=text.strip(),
        uses=list(dict.fromkeys([*uses, *mentioned])),
        tags=tags,
        source_seq=event.seq,
    )
