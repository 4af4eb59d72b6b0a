"""Who the MCP server acts as. Never a tool argument: principals and role come from configuration
(stdio) or from the HTTP request's credentials (the `/mcp` endpoint), resolved by the same rules
as the API's (agentmem.api.principals, docs/access.md).

- stdio against the embedded backend: with AGENTMEM_API_KEYS set, the server must present one of
  those keys (AGENTMEM_API_KEY or --api-key) and acts with its grant; without keys (loopback
  development) it acts as the principals given with --principals, whose role follows
  AGENTMEM_WRITER_PRINCIPALS, like the development header of `agentmem serve`.
- `/mcp` on `agentmem serve`: the request's API key grant, or in development mode its
  `X-Agentmem-Principals` header, exactly as the resolver reads them.
- against a deployed tenant: the IAM identity that signs; the tenant resolves it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from agentmem.access import WRITER, Caller
from agentmem.api.principals import CallerRules
from agentmem.entrypoints.server.api_keys import GRANT_SCOPE_KEY, ApiKeyGrant, ApiKeys
from agentmem.settings import Settings

DEV_PRINCIPALS_HEADER = "x-agentmem-principals"


class IdentityError(ValueError):
    """The configured identity cannot be established; the message never contains a key."""


class Identity(Protocol):
    def caller(self, request: Any) -> Caller:
        """The caller of one MCP request; `request` is the HTTP request, or None on stdio."""
        ...


@dataclass(frozen=True)
class FixedIdentity:
    """One identity for the whole process: a stdio server serves one client as one caller."""

    fixed: Caller

    def caller(self, request: Any) -> Caller:
        return self.fixed


@dataclass(frozen=True)
class HttpIdentity:
    """Per request, from what `agentmem serve`'s API-key gate put in the ASGI scope."""

    rules: CallerRules

    def caller(self, request: Any) -> Caller:
        if request is None:  # not an HTTP request: nothing vouches for it
            return Caller.of([])
        grant: ApiKeyGrant | None = (request.scope.get("state") or {}).get(GRANT_SCOPE_KEY)
        if grant is not None:
            return self.rules.of({"authorizer": grant.authorizer_context()})
        claimed = request.headers.get(DEV_PRINCIPALS_HEADER, "")
        return self.rules.of({"authorizer": {"principals": claimed}} if claimed else {})


def configured_caller(settings: Settings, *, api_key: str | None, principals: str | None) -> Caller:
    """The stdio server's caller against the embedded backend (see the module docstring)."""
    rules = CallerRules.from_settings(settings)
    if settings.api_keys is None:
        return rules.of({"authorizer": {"principals": principals}} if principals else {})
    keys = ApiKeys.from_setting(settings.api_keys.get_secret_value())
    grant = keys.match(api_key)
    if grant is None:
        raise IdentityError(
            "AGENTMEM_API_KEYS is set, so this server needs one of those keys: pass it as "
            "AGENTMEM_API_KEY or --api-key" + (" (the one given matches none)" if api_key else "")
        )
    return rules.of({"authorizer": grant.authorizer_context()})


def remote_caller(*, read_only: bool) -> Caller:
    """Against a deployed tenant the tenant decides; locally only the tool set follows this: a
    writer's set unless --read-only (the tenant still refuses a reader's review with a 403)."""
    return Caller.of([], WRITER) if not read_only else Caller.of([])
