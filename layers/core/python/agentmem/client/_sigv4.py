"""SigV4 for API Gateway: credentials resolved once per client, refreshed by botocore.

The credential chain (environment, profile, SSO, container or instance metadata, STS) is walked
on the first signed request, never again. What it yields is usually botocore's refreshable
credentials (assumed roles, instance and container roles, SSO), which renew themselves shortly
before they expire, under their own lock; static keys never need renewing."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import RefreshableCredentials

from agentmem.client._errors import NoCredentials

if TYPE_CHECKING:
    import botocore.session
    from botocore.credentials import Credentials, ReadOnlyCredentials


class SigV4Signer:
    def __init__(
        self,
        region: str,
        *,
        session: botocore.session.Session | None = None,
        service: str = "execute-api",
    ) -> None:
        """`session` is the botocore session whose chain is walked (a profile, a custom
        provider); by default a fresh one over the standard chain."""
        self.region = region
        self.service = service
        self._session = session
        self._credentials: Credentials | None = None
        self._lock = threading.Lock()

    def may_block(self) -> bool:
        """Whether `frozen()` may do I/O now: the first resolution, or a refresh that is due.
        The async client then calls it on a worker thread, off the event loop."""
        credentials = self._credentials
        if credentials is None:
            return True
        return isinstance(credentials, RefreshableCredentials) and credentials.refresh_needed()

    def frozen(self) -> ReadOnlyCredentials:
        """A consistent key, secret and token to sign one request with."""
        credentials = self._credentials
        if credentials is None:
            with self._lock:
                if self._credentials is None:
                    self._credentials = self._resolve()
                credentials = self._credentials
        return credentials.get_frozen_credentials()

    def _resolve(self) -> Credentials:
        import botocore.session

        session = self._session or botocore.session.Session()
        credentials = session.get_credentials()
        if credentials is None:
            raise NoCredentials(0, "no_credentials", "SigV4 signing needs AWS credentials", None)
        return credentials

    def sign(
        self,
        method: str,
        url: str,
        content: bytes | None,
        headers: dict[str, str],
        frozen: ReadOnlyCredentials,
    ) -> dict[str, str]:
        """`headers` plus the SigV4 ones (Authorization, X-Amz-Date, X-Amz-Security-Token)."""
        request = AWSRequest(method=method, url=url, data=content, headers=headers)
        SigV4Auth(frozen, self.service, self.region).add_auth(request)
        return dict(request.headers.items())
