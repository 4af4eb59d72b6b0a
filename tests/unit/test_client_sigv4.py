"""SigV4 credentials are resolved once per client and refreshed by botocore when they near
expiry, for both clients: counted over 100 requests each."""

from __future__ import annotations

import asyncio
import re
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import botocore.credentials
import botocore.session
import httpx2
import pytest
from botocore.credentials import CredentialProvider, CredentialResolver, RefreshableCredentials

from agentmem.client import AsyncMemoryClient, MemoryClient, NoCredentials
from tests.unit.client_doubles import Script, answer

REQUESTS = 100
HEALTH = {"status": "ok"}


def signing_keys(script: Script) -> list[str]:
    """The access key id each request was signed with."""
    keys = []
    for request in script.requests:
        found = re.search(
            r"Credential=([^/]+)/\d{8}/eu-west-1/execute-api/aws4_request", request.headers["authorization"]
        )
        assert found, request.headers["authorization"]
        keys.append(found.group(1))
    return keys


def hundred_sync(script: Script, **options: Any) -> None:
    transport = httpx2.MockTransport(script.handle)
    with MemoryClient(
        "https://api.test/prod", transport=transport, sigv4_region="eu-west-1", **options
    ) as client:
        for _ in range(REQUESTS):
            client.health()


def hundred_async(script: Script, **options: Any) -> None:
    async def main() -> None:
        transport = httpx2.MockTransport(script.handle)
        async with AsyncMemoryClient(
            "https://api.test/prod", transport=transport, sigv4_region="eu-west-1", **options
        ) as client:
            for _ in range(REQUESTS):
                await client.health()

    asyncio.run(main())


HUNDRED = {"sync": hundred_sync, "async": hundred_async}


@pytest.mark.parametrize("client", HUNDRED)
def test_the_default_chain_is_walked_once_per_client_not_per_request(
    client: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The regression: the client used to build a new botocore session, and so walk the whole
    credential chain (metadata endpoint or STS on a hosted agent), for every request."""
    walks = []
    load = CredentialResolver.load_credentials

    def counted(resolver: CredentialResolver) -> Any:
        walks.append(1)
        return load(resolver)

    monkeypatch.setattr(CredentialResolver, "load_credentials", counted)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDSTATIC")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    script = Script([answer(200, HEALTH)])
    HUNDRED[client](script)
    assert len(walks) == 1
    assert signing_keys(script) == ["AKIDSTATIC"] * REQUESTS
    assert all("x-amz-date" in r.headers for r in script.requests)


class RotatingRole(CredentialProvider):
    """A provider like an assumed role's: credentials valid for an hour on a clock the test
    moves, renewed through botocore's refresh. Counts resolutions, renewals and their threads."""

    METHOD = "rotating-role"

    def __init__(self) -> None:
        super().__init__()
        self.now = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
        self.resolutions = 0
        self.refreshes = 0
        self.threads: set[int] = set()

    def _metadata(self) -> dict[str, str]:
        generation = self.refreshes
        return {
            "access_key": f"AKIDGEN{generation}",
            "secret_key": f"secret{generation}",
            "token": f"token{generation}",
            "expiry_time": (self.now + timedelta(hours=1)).isoformat(),
        }

    def _refresh(self) -> dict[str, str]:
        self.refreshes += 1
        self.threads.add(threading.get_ident())
        return self._metadata()

    def load(self) -> RefreshableCredentials:
        self.resolutions += 1
        self.threads.add(threading.get_ident())
        metadata = self._metadata()
        return RefreshableCredentials(
            metadata["access_key"], metadata["secret_key"], metadata["token"],
            botocore.credentials._parse_if_needed(metadata["expiry_time"]),
            self._refresh, self.METHOD, time_fetcher=lambda: self.now,
        )  # fmt: skip


def session_with(provider: RotatingRole) -> botocore.session.Session:
    session = botocore.session.Session()
    session.register_component("credential_provider", CredentialResolver([provider]))
    return session


class MinutePerRequest(Script):
    """Each request takes a minute on the role's clock."""

    def __init__(self, role: RotatingRole) -> None:
        super().__init__([answer(200, HEALTH)])
        self.role = role

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.role.now += timedelta(minutes=1)
        return super().handle(request)


@pytest.mark.parametrize("client", HUNDRED)
def test_refreshable_credentials_are_resolved_once_and_renewed_as_they_expire(client: str) -> None:
    role = RotatingRole()
    script = MinutePerRequest(role)
    HUNDRED[client](script, botocore_session=session_with(role))
    assert role.resolutions == 1
    # Hour-long credentials, renewed by botocore once under 15 minutes remain: request n is
    # signed at minute n, so generation 0 (expiring 10:00) signs 0-45, its successor (10:46)
    # 46-91, and the third the rest.
    assert role.refreshes == 2
    keys = signing_keys(script)
    assert keys == ["AKIDGEN0"] * 46 + ["AKIDGEN1"] * 46 + ["AKIDGEN2"] * 8
    tokens = [r.headers["x-amz-security-token"] for r in script.requests]
    assert tokens == [f"token{k[-1]}" for k in keys]
    if client == "async":
        # Resolving and renewing may call STS or the metadata endpoint: off the event loop.
        assert threading.get_ident() not in role.threads


@pytest.mark.parametrize("client", HUNDRED)
def test_no_credentials_is_a_typed_error(client: str, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = botocore.session.Session()
    empty.register_component("credential_provider", CredentialResolver([]))
    with pytest.raises(NoCredentials):
        HUNDRED[client](Script([answer(200, HEALTH)]), botocore_session=empty)
