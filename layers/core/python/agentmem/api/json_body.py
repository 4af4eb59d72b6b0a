"""Request bodies parsed as strict JSON, with the offending field named when a number fails.

Python's json reads an integer of more than `sys.get_int_max_str_digits()` (4,300) digits by
raising a bare ValueError, with no position, which would surface as a 500. It also accepts
`NaN`, `Infinity` and `1e999` (read as infinity), which are not JSON numbers and would be stored
and echoed as invalid JSON. Here each such number parses to a marker; the first one found, in
document order, is reported as a 400 naming its field."""

from __future__ import annotations

import json
import math
import sys
from typing import Any


class BodyNumberError(ValueError):
    """A number in the body that cannot be read. Not a JSONDecodeError: Powertools turns those
    into its own validation error, while this one reaches agentmem.api.errors as it is."""

    def __init__(self, code: str, reason: str, path: tuple[str | int, ...]) -> None:
        where = ".".join(str(p) for p in path) or "body"
        super().__init__(f"{where}: {reason}")
        self.code = code
        self.field = str(path[0]) if path else "body"


class _Unreadable:
    __slots__ = ("code", "reason")

    def __init__(self, code: str, reason: str) -> None:
        self.code = code
        self.reason = reason


def _first_unreadable(
    value: Any, path: tuple[str | int, ...]
) -> tuple[_Unreadable, tuple[str | int, ...]] | None:
    if isinstance(value, _Unreadable):
        return value, path
    items: Any = (
        value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    )
    for key, child in items:
        found = _first_unreadable(child, (*path, key))
        if found is not None:
            return found
    return None


def parse_json_body(text: str | bytes | bytearray) -> Any:
    unreadable = False

    def parse_int(digits: str) -> int | _Unreadable:
        nonlocal unreadable
        try:
            return int(digits)
        except ValueError:
            unreadable = True
            count = len(digits.lstrip("-"))
            limit = sys.get_int_max_str_digits()
            return _Unreadable("number_too_long", f"an integer of {count} digits; at most {limit} are read")

    def parse_float(literal: str) -> float | _Unreadable:
        nonlocal unreadable
        number = float(literal)
        if math.isfinite(number):
            return number
        unreadable = True
        return _Unreadable("number_out_of_range", f"{literal[:40]} is beyond the range of a double")

    def parse_constant(name: str) -> _Unreadable:
        nonlocal unreadable
        unreadable = True
        return _Unreadable("invalid_number", f"{name} is not a JSON number")

    value = json.loads(text, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant)
    if unreadable:
        found = _first_unreadable(value, ())
        if found is not None:
            marker, path = found
            raise BodyNumberError(marker.code, marker.reason, path)
    return value
