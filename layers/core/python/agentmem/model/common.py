"""Field types shared by every model."""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

ID_PATTERN = r"^[A-Za-z0-9._:-]{1,128}$"

Identifier = Annotated[str, StringConstraints(pattern=ID_PATTERN)]
"""Every id in the API: sessions, subjects, agents, kinds, idempotency keys, resources."""

MediaType = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9!#$&^_.+-]{1,64}/[A-Za-z0-9!#$&^_.+-]{1,64}$")
]
