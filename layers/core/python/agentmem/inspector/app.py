"""The inspector as one ASGI app, mounted at `/ui`: its pages, its stylesheet, and how a person
says who they are (an API key, when the server has keys; else, in loopback development mode, the
principals to read as).

With keys, the server's gate checks the key on every `/ui` request, from the `agentmem_key`
cookie this login page sets (agentmem.entrypoints.server.api_keys); the pages then read with the key's
grant, exactly as an API call with that key would."""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import parse_qs, quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from agentmem.entrypoints.server.api_keys import UI_KEY_COOKIE
from agentmem.inspector.pages_explain import explain_routes
from agentmem.inspector.pages_memory import memory_routes
from agentmem.inspector.pages_skills import skill_routes
from agentmem.inspector.web import HERE, PRINCIPALS, SECURITY_HEADERS, VIEW_AS_COOKIE, InspectorConfig, Pages

logger = logging.getLogger(__name__)

MOUNT_PATH = "/ui"
COOKIE_OPTIONS = {"path": MOUNT_PATH, "httponly": True, "samesite": "strict"}
MAX_FORM_BYTES = 4096


async def _form(request: Request) -> dict[str, str]:
    """A small urlencoded form (the login and view-as forms), last value of each field."""
    body = b""
    async for chunk in request.stream():  # read no further than the cap: the login page is open
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return {}
    return {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}


def _back_to(target: str | None) -> str:
    """Only a path of this inspector: never an open redirect."""
    if target and target.startswith(f"{MOUNT_PATH}") and not target.startswith("//") and "\\" not in target:
        return target
    return MOUNT_PATH


def _redirect(target: str) -> RedirectResponse:
    return RedirectResponse(target, status_code=303, headers=SECURITY_HEADERS)


def build_inspector(config: InspectorConfig) -> Starlette:
    pages = Pages(config)

    async def login_form(request: Request) -> Response:
        return pages.render(request, "login.html", failed=False)

    async def login(request: Request) -> Response:
        key = (await _form(request)).get("key", "").strip()
        if config.keys is None:
            return _redirect(MOUNT_PATH)
        if config.keys.match(key) is None:
            logger.warning("inspector login refused", extra={"peer": (request.client or ("", 0))[0]})
            return pages.render(request, "login.html", status=401, failed=True)
        response = _redirect(MOUNT_PATH)
        response.set_cookie(UI_KEY_COOKIE, quote(key, safe=""), **COOKIE_OPTIONS)  # type: ignore[arg-type]
        return response

    async def logout(request: Request) -> Response:
        response = _redirect(f"{MOUNT_PATH}/login" if config.keys is not None else MOUNT_PATH)
        response.delete_cookie(UI_KEY_COOKIE, path=MOUNT_PATH)
        return response

    async def view_as(request: Request) -> Response:
        """Development mode: read as these principals (what `X-Agentmem-Principals` claims)."""
        form = await _form(request)
        principals = ",".join(p.strip() for p in form.get("principals", "").split(",") if p.strip())
        response = _redirect(_back_to(form.get("next")))
        if principals and PRINCIPALS.fullmatch(principals):
            response.set_cookie(VIEW_AS_COOKIE, principals, **COOKIE_OPTIONS)  # type: ignore[arg-type]
        else:
            response.delete_cookie(VIEW_AS_COOKIE, path=MOUNT_PATH)
        return response

    def stylesheet(request: Request) -> Response:
        headers = {"X-Content-Type-Options": "nosniff", "Cache-Control": "max-age=300"}
        return FileResponse(Path(HERE / "static" / "inspector.css"), media_type="text/css", headers=headers)

    routes: list[BaseRoute] = [
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/view-as", view_as, methods=["POST"]),
        Route("/static/inspector.css", stylesheet),
        *memory_routes(pages),
        *skill_routes(pages),
        *explain_routes(pages),
    ]
    return Starlette(routes=routes)


def inspector_routes(config: InspectorConfig) -> list[BaseRoute]:
    """`/ui` (to `/ui/`) and the inspector mounted under it, for a server's router."""

    def to_home(request: Request) -> Response:
        return _redirect(f"{MOUNT_PATH}/")

    return [Route(MOUNT_PATH, to_home), Mount(MOUNT_PATH, app=build_inspector(config))]
