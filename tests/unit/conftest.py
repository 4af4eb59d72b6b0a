"""The unit tier opens no connection: a test that needs a server or a socket belongs to another
tier. Subprocess pipes and in-process moto (which patches botocore, not the network) are fine."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest


class NetworkInUnitTestError(RuntimeError):
    pass


@pytest.fixture(autouse=True)
def no_sockets(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refuse(self: socket.socket, address: Any, *args: Any) -> None:
        raise NetworkInUnitTestError(f"unit tests open no connection (tried {address!r}); use another tier")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    yield
