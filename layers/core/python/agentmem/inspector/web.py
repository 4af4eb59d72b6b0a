"""What every inspector page shares: the templates (Jinja2, autoescaped: everything shown is
escaped, since memory holds text written by agents and users), who is looking, and the answer
to an API error."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from agentmem.client import MemoryApiError
from agentmem.entrypoints.server.api_keys import GRANT_SCOPE_KEY, ApiKeyGrant, ApiKeys
from agentmem.inspector.reader import MemoryReader, Transport, Viewer
from agentmem.inspector.saved_reads import SavedCompose, SavedContextRead, SavedReadsError, load_saved_reads

logger = logging.getLogger(__name__)
HERE = Path(__file__).resolve().parent
VIEW_AS_COOKIE = "agentmem_view_as"
PRINCIPALS = re.compile(r"^[A-Za-z0-9._:-]{1,128}(,[A-Za-z0-9._:-]{1,128}){0,31}$")
# No script runs on these pages, so none may: should escaping ever fail, a stored <script> still
# cannot execute. Styles and forms come only from the inspector itself.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self';"
    " frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


@dataclass
class InspectorConfig:
    """How one inspector reads: its transport, the keys its login checks (None: no keys, so
    principals may be claimed, as in loopback development mode), and where it points."""

    transport: Transport
    keys: ApiKeys | None = None
    source_label: str = "this server"
    saved_reads_path: Path | None = None
    claims_honoured: bool = True  # whether a claimed principal means anything to the API read
    _saved: tuple[float, list[SavedContextRead | SavedCompose]] = field(default=(-1.0, []), repr=False)

    @property
    def saved_reads(self) -> list[SavedContextRead | SavedCompose]:
        """The saved reads file as it is now (read again when it changes); none without one."""
        path = self.saved_reads_path
        stamp = path.stat().st_mtime if path is not None and path.is_file() else 0.0
        if stamp != self._saved[0]:
            try:
                self._saved = (stamp, load_saved_reads(path))
            except SavedReadsError as exc:
                logger.warning("saved reads ignored", extra={"problem": str(exc)})
                self._saved = (stamp, [])
        return self._saved[1]


def _url(path: str, **query: Any) -> str:
    kept = {k: v for k, v in query.items() if v not in (None, "")}
    return path + ("?" + urlencode(kept, doseq=True) if kept else "")


def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["u"] = lambda value: quote(str(value), safe="")
    env.globals["url"] = _url
    return env


def viewer_of(request: Request) -> Viewer:
    """The key's grant when the server checked one; else the principals claimed by cookie."""
    grant: ApiKeyGrant | None = (request.scope.get("state") or {}).get(GRANT_SCOPE_KEY)
    if grant is not None:
        return Viewer(authorizer=grant.authorizer_context())
    claimed = request.cookies.get(VIEW_AS_COOKIE, "")
    return Viewer(claimed=claimed if PRINCIPALS.fullmatch(claimed) else None)


class Pages:
    """Renders templates for one inspector; `reader(request)` reads as that request's viewer."""

    def __init__(self, config: InspectorConfig) -> None:
        self.config = config
        self.env = environment()

    def reader(self, request: Request, claimed: str | None = None) -> MemoryReader:
        viewer = viewer_of(request)
        if claimed and viewer.authorizer is None and viewer.claimed is None:
            viewer = Viewer(claimed=claimed)
        return MemoryReader(self.config.transport, viewer)

    def render(self, request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        viewer = context.pop("viewer", None) or viewer_of(request)
        page = self.env.get_template(template).render(
            request_path=request.url.path,
            request_target=request.url.path + (f"?{request.url.query}" if request.url.query else ""),
            viewer=viewer,
            config=self.config,
            keyed=self.config.keys is not None,
            **context,
        )
        return HTMLResponse(page, status_code=status, headers=SECURITY_HEADERS)

    def failure(self, request: Request, error: MemoryApiError) -> HTMLResponse:
        status = error.status if 400 <= error.status < 600 else 502
        return self.render(request, "error.html", status=status, error=error)

    def guarded(self, page: Callable[[Request], Response]) -> Callable[[Request], Response]:
        """`page`, with an API error answered as an error page of the same status."""

        def run(request: Request) -> Response:
            try:
                return page(request)
            except MemoryApiError as error:
                return self.failure(request, error)

        return run


def int_param(request: Request, name: str, default: int | None = None) -> int | None:
    raw = request.query_params.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise MemoryApiError(422, "validation_error", f"{name} must be a whole number", name) from None


def text_param(request: Request, name: str) -> str | None:
    value = request.query_params.get(name, "").strip()
    return value or None
