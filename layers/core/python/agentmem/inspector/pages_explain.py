"""Explain a read, and History: run a `/v1/context` request or a composition (typed, pasted as
JSON, or saved), at one budget or two side by side, and lay out the trace or report it returned.
Every parameter travels in the query string, so an explained read is a link that can be shared."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agentmem.client import MemoryApiError
from agentmem.compose.model import ComposeRequest
from agentmem.inspector import explain
from agentmem.inspector.after_read import AfterRead, still_logged, written_after
from agentmem.inspector.reader import MemoryReader
from agentmem.inspector.saved_reads import SavedCompose, SavedContextRead
from agentmem.inspector.web import Pages, int_param, text_param
from agentmem.model.context import ContextRequest, ContextResponse

AFTER_EVENTS = 200  # later events listed beside a read shown as it was; more are a link away
MAX_PASTE = 12_000  # characters of pasted JSON; a request line longer than the server's header cap fails


@dataclass(frozen=True)
class ReadSpec:
    """One read to run: a context request, or a composition of `skill_id`."""

    kind: str
    context: ContextRequest | None = None
    skill_id: str | None = None
    compose: ComposeRequest | None = None
    claimed: str | None = None  # a saved composition's principals (development mode only)
    watermark: int | None = None
    label: str | None = None
    kept: ContextResponse | None = None  # a saved read's own answer: the read as it was
    read_at: str | None = None

    def at(self, budget: int) -> ReadSpec:
        """The same read at another budget: run now, since no answer was kept at that budget."""
        if self.context is not None:
            context = self.context.model_copy(update={"budget_tokens": budget})
            return replace(self, context=context, kept=None)
        assert self.compose is not None
        return replace(self, compose=self.compose.model_copy(update={"budget_tokens": budget}))

    def form(self) -> dict[str, Any]:
        """The form's fields, to fill it in again."""
        if self.context is not None:
            return {"kind": "context", **self.context.model_dump(mode="json")}
        assert self.compose is not None
        return {"kind": "compose", "skill_id": self.skill_id, **self.compose.model_dump(mode="json")}


def _invalid(exc: ValidationError, prefix: str = "") -> MemoryApiError:
    problem = exc.errors()[0]
    where = ".".join(str(p) for p in problem["loc"]) or "request"
    return MemoryApiError(422, "validation_error", f"{prefix}{where}: {problem['msg']}", where)


def _from_saved(saved: SavedContextRead | SavedCompose, now: bool) -> ReadSpec:
    """`now`: run the read again instead of showing the answer kept with it."""
    if isinstance(saved, SavedContextRead):
        return ReadSpec(
            "context",
            saved.request,
            watermark=saved.seen_seq,
            label=saved.label,
            kept=None if now else saved.response,
            read_at=saved.read_at,
        )
    return ReadSpec(
        "compose", skill_id=saved.skill_id, compose=saved.request, claimed=saved.principals, label=saved.label
    )


def _from_paste(text: str) -> ReadSpec:
    if len(text) > MAX_PASTE:
        raise MemoryApiError(413, "payload_too_large", f"paste at most {MAX_PASTE} characters", "paste")
    try:
        body = json.loads(text)
    except ValueError:
        raise MemoryApiError(400, "bad_json", "the pasted request is not JSON", "paste") from None
    if not isinstance(body, dict):
        raise MemoryApiError(422, "validation_error", "paste a JSON object", "paste")
    try:
        if "question" in body:
            skill_id = body.pop("skill_id", None)
            if not isinstance(skill_id, str):
                raise MemoryApiError(
                    422, "validation_error", "a pasted composition names its skill_id", "skill_id"
                )
            return ReadSpec("compose", skill_id=skill_id, compose=ComposeRequest.model_validate(body))
        return ReadSpec("context", ContextRequest.model_validate(body))
    except ValidationError as exc:
        raise _invalid(exc, "pasted request: ") from None


def _from_fields(request: Request) -> ReadSpec | None:
    params = request.query_params
    try:
        if params.get("kind") == "compose":
            if not text_param(request, "question"):
                return None
            body: dict[str, Any] = {"question": params["question"]}
            if text_param(request, "budget_tokens"):
                body["budget_tokens"] = int_param(request, "budget_tokens")
            return ReadSpec(
                "compose", skill_id=params.get("skill_id", ""), compose=ComposeRequest.model_validate(body)
            )
        if not text_param(request, "query"):
            return None
        fields: dict[str, Any] = {
            k: params[k] for k in ("subject_id", "session_id", "agent", "query") if k in params
        }
        if text_param(request, "budget_tokens"):
            fields["budget_tokens"] = int_param(request, "budget_tokens")
        if text_param(request, "split"):
            fields["split"] = params["split"]
        if params.getlist("include"):
            fields["include"] = params.getlist("include")
        return ReadSpec("context", ContextRequest.model_validate(fields))
    except ValidationError as exc:
        raise _invalid(exc) from None


def read_spec(request: Request, saved: list[SavedContextRead | SavedCompose]) -> ReadSpec | None:
    """The read the query string asks for: a saved one by number, a pasted one, or the fields."""
    number = int_param(request, "saved")
    if number is not None:
        if not 0 <= number < len(saved):
            raise MemoryApiError(404, "not_found", f"there is no saved read {number}", "saved")
        return _from_saved(saved[number], now=text_param(request, "now") is not None)
    paste = text_param(request, "paste")
    return _from_paste(paste) if paste else _from_fields(request)


def run(reader: MemoryReader, spec: ReadSpec) -> explain.ContextExplain | explain.ComposeExplain:
    if spec.context is not None:
        now = reader.context(spec.context)  # as the viewer, even for a kept answer: see later_than
        shown = spec.kept if spec.kept is not None else now
        return explain.explain_context(spec.context, shown, spec.watermark, spec.read_at)
    assert spec.compose is not None and spec.skill_id is not None
    answer = reader.compose(spec.skill_id, spec.compose)
    return explain.explain_compose(spec.skill_id, spec.compose.question, answer.report, answer.markdown)


def later_than(reader: MemoryReader, spec: ReadSpec) -> AfterRead | None:
    """What was written after a read shown as it was; None for a read run now. The read itself
    was just run again as the viewer (`run`), so a kept answer is shown only to whoever could
    make the same read now; and only while the log still holds the last event it saw."""
    if spec.kept is None or spec.context is None:
        return None
    session, watermark = spec.context.session_id, spec.watermark or 0
    page = reader.events(session, after=max(0, watermark - 1), limit=AFTER_EVENTS)
    if not still_logged(page.items, watermark):
        raise MemoryApiError(
            404,
            "not_found",
            f"the log no longer holds {session} #{watermark}, the last event this read saw "
            "(erased?), so the answer kept with it is not shown",
            "saved",
        )
    return written_after(
        session,
        page.items,
        reader.beliefs(spec.context.subject_id),
        watermark=watermark,
        read_at=spec.read_at,
        seen_versions=spec.kept.trace.belief_versions,
        more=page.next is not None,
    )


def budget_of(result: explain.ContextExplain | explain.ComposeExplain) -> int:
    if isinstance(result, explain.ComposeExplain):
        return result.report.budget_tokens
    return result.request.budget_tokens


def explain_routes(pages: Pages) -> list[Route]:
    def explain_page(request: Request, template: str) -> Response:
        saved = pages.config.saved_reads

        def show(status: int = 200, **fields: Any) -> Response:
            page: dict[str, Any] = {
                "spec": None, "first": None, "second": None, "moved": [], "error": None, "after": None,
                "now": text_param(request, "now") is not None,
            }  # fmt: skip
            return pages.render(request, template, status=status, saved=saved, **{**page, **fields})

        try:
            spec = read_spec(request, saved)
        except MemoryApiError as error:
            return show(error.status, form=dict(request.query_params), error=error)
        if spec is None:
            return show(form={"kind": request.query_params.get("kind", "context")})
        if template == "history.html" and spec.context is not None and "history" not in spec.context.include:
            with_history = spec.context.model_copy(update={"include": [*spec.context.include, "history"]})
            spec = replace(spec, context=with_history)
        reader = pages.reader(request, claimed=spec.claimed)
        saved_index = int_param(request, "saved")
        picked = {"saved": str(saved_index)} if saved_index is not None else {}  # stays selected
        try:
            first = run(reader, spec)
            after = later_than(reader, spec)
            compare = int_param(request, "compare")
            second = run(reader, spec.at(compare)) if compare else None
        except MemoryApiError as error:
            return show(error.status, form={**spec.form(), **picked}, spec=spec, error=error)
        moved = []
        if second is not None:
            hrefs = explain.hrefs_of(first.labels().items(), second.labels().items())
            moved = explain.moves(first.statuses(), second.statuses(), hrefs)
        return show(
            form={**spec.form(), "compare": request.query_params.get("compare", ""), **picked},
            spec=spec,
            first=first,
            second=second,
            moved=moved,
            after=after,
            viewer=reader.viewer,
            budget_of=budget_of,
            saved_index=saved_index,
        )

    def explain_view(request: Request) -> Response:
        return explain_page(request, "explain.html")

    def history_view(request: Request) -> Response:
        return explain_page(request, "history.html")

    return [
        Route("/explain", pages.guarded(explain_view)),
        Route("/history", pages.guarded(history_view)),
    ]
