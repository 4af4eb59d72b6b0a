"""API keys for `agentmem serve` off loopback: each key grants a set of principals and a role.

`AGENTMEM_API_KEYS` holds a JSON object, or the path of a file holding one:
`{"<key>": {"principals": ["analyst"], "role": "reader"}}`. Clients send the key as
`Authorization: Bearer <key>` or `X-Agentmem-Api-Key: <key>`. Once keys are configured every
route but `/v1/health` needs one; the grant goes into the authorizer context (as a Lambda
authorizer would put it) and the development header `X-Agentmem-Principals` is ignored.

Only SHA-256 digests of the keys are kept, compared in constant time; no key is ever logged or
put into an error message."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.responses import JSONResponse, RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from agentmem.model.common import Identifier

logger = logging.getLogger(__name__)

MIN_KEY_LENGTH = 16
OPEN_PATHS = frozenset({"/v1/health"})
# The memory inspector (agentmem.inspector) is read in a browser, which cannot send a header: there
# the key may come as this cookie (set by its login page, HttpOnly, SameSite=Strict, path /ui).
UI_PREFIX = "/ui/"
UI_OPEN_PATHS = frozenset({"/ui/login", "/ui/static/inspector.css"})
UI_KEY_COOKIE = "agentmem_key"
GRANT_SCOPE_KEY = "agentmem.api_key_grant"  # in scope["state"], read by the resolver adapter
KEY_HEADERS = (b"authorization", b"x-agentmem-api-key")


class ApiKeyConfigError(ValueError):
    """`AGENTMEM_API_KEYS` does not parse; the message never contains a key."""


class ApiKeyGrant(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    principals: list[Identifier]
    role: Identifier

    def authorizer_context(self) -> dict[str, str]:
        """Flat strings, as API Gateway hands a Lambda authorizer's context to the function."""
        return {"principals": ",".join(self.principals), "role": self.role}


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


class ApiKeys:
    def __init__(self, grants: Mapping[str, ApiKeyGrant]) -> None:
        if not grants:
            raise ApiKeyConfigError("AGENTMEM_API_KEYS names no key")
        for number, key in enumerate(grants, start=1):
            if len(key) < MIN_KEY_LENGTH or key != key.strip() or any(c.isspace() for c in key):
                raise ApiKeyConfigError(
                    f"API key #{number} must be at least {MIN_KEY_LENGTH} characters with no whitespace"
                )
        self._grants = [(_digest(key), grant) for key, grant in grants.items()]

    def __len__(self) -> int:
        return len(self._grants)

    @classmethod
    def from_setting(cls, value: str) -> ApiKeys:
        """Parse the setting: inline JSON when it starts with `{`, else a path to a JSON file."""
        text = value.strip()
        if not text.startswith("{"):
            try:
                text = Path(text).read_text(encoding="utf-8")
            except OSError as exc:
                raise ApiKeyConfigError(f"cannot read the API key file: {exc.strerror}") from None
        try:
            raw: Any = json.loads(text)
        except ValueError:
            raise ApiKeyConfigError("AGENTMEM_API_KEYS is not a JSON object") from None
        if not isinstance(raw, dict):
            raise ApiKeyConfigError("AGENTMEM_API_KEYS is not a JSON object of key -> grant")
        grants: dict[str, ApiKeyGrant] = {}
        for number, (key, grant) in enumerate(raw.items(), start=1):
            try:
                grants[key] = ApiKeyGrant.model_validate(grant)
            except ValidationError as exc:
                problem = exc.errors()[0]
                where = ".".join(str(part) for part in problem["loc"]) or "grant"
                raise ApiKeyConfigError(f"API key #{number}: {where}: {problem['msg']}") from None
        return cls(grants)

    def match(self, presented: str | None) -> ApiKeyGrant | None:
        """The grant of `presented`, comparing against every key so timing says nothing."""
        if not presented:
            return None
        digest = _digest(presented)
        found: ApiKeyGrant | None = None
        for stored, grant in self._grants:
            if hmac.compare_digest(stored, digest):
                found = grant
        return found


def presented_key(headers: list[tuple[bytes, bytes]]) -> str | None:
    for name, value in headers:
        if name == b"authorization":
            scheme, _, credential = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and credential.strip():
                return credential.strip()
        elif name == b"x-agentmem-api-key" and value.strip():
            return value.decode("latin-1").strip()
    return None


def cookie_key(headers: list[tuple[bytes, bytes]]) -> str | None:
    for name, value in headers:
        if name == b"cookie":
            for part in value.decode("latin-1").split(";"):
                cookie, _, credential = part.strip().partition("=")
                if cookie == UI_KEY_COOKIE and credential:
                    return unquote(credential)  # set percent-encoded: a key may hold `;`
    return None


class ApiKeyGate:
    """ASGI middleware in front of every mounted app: 401 without a valid key, except health."""

    def __init__(self, app: ASGIApp, keys: ApiKeys | None) -> None:
        self._app = app
        self._keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")  # a lifespan scope has none
        open_path = path in OPEN_PATHS or path in UI_OPEN_PATHS
        if self._keys is None or scope["type"] not in ("http", "websocket") or open_path:
            await self._app(scope, receive, send)
            return
        in_ui = path == UI_PREFIX[:-1] or path.startswith(UI_PREFIX)
        presented = presented_key(scope["headers"]) or (cookie_key(scope["headers"]) if in_ui else None)
        grant = self._keys.match(presented)
        if grant is None:
            peer = (scope.get("client") or ("", 0))[0]
            logger.warning("api key refused", extra={"path": path, "peer": peer})
            if in_ui and scope["type"] == "http":  # a person at a browser: to the login page
                await RedirectResponse("/ui/login", status_code=303)(scope, receive, send)
                return
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            refusal = JSONResponse(
                {
                    "error": {
                        "code": "unauthorized",
                        "message": "send a valid API key as 'Authorization: Bearer <key>'"
                        " or 'X-Agentmem-Api-Key: <key>'",
                        "field": "authorization",
                    }
                },
                status_code=401,
                # Close: an unauthenticated client's body is not worth reading to keep the connection.
                headers={"WWW-Authenticate": "Bearer", "Connection": "close"},
            )
            await refusal(scope, receive, send)
            return
        scope.setdefault("state", {})[GRANT_SCOPE_KEY] = grant
        await self._app(scope, receive, send)
