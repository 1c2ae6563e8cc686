"""Checked reading of state JSON: every problem is a HansaError naming the field's path.

Generated modules describe their own fields; this reader only knows JSON types and paths, so it is
shared by every game.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .errors import HansaError
from .names import did_you_mean

_LONG_NUMBER = re.compile(r"-?[0-9]{4300,}")


def json_problem(exc: BaseException, text: str) -> tuple[str, int, int]:
    """(message, line, column) for why `json.loads(text)` failed, for a located HansaError:
    bad syntax where the parser stopped, a number too long to convert (Python converts at most
    4,300 digits) where that number starts, nesting too deep for the decoder at 1:1."""
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON: {exc.msg}", exc.lineno, exc.colno
    if isinstance(exc, RecursionError):
        return "not valid JSON for us: nested too deeply", 1, 1
    found = _LONG_NUMBER.search(text)
    if found is not None:
        line = text.count("\n", 0, found.start()) + 1
        column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
        digits = len(found.group().lstrip("-"))
        return f"a number of {digits} digits is too large", line, column
    return f"not valid JSON: {exc}", 1, 1


class StateReader:
    """Reads a decoded JSON document; errors read `state JSON: routes[3].points[1]: …`."""

    def __init__(self, source: str = "state JSON") -> None:
        self.source = source

    def fail(self, path: str, message: str) -> HansaError:
        return HansaError(f"{self.source}: {path}: {message}")

    @staticmethod
    def describe(value: Any) -> str:
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str):
            return repr(value) if len(value) < 40 else "a string"
        if isinstance(value, int) and abs(value) >= 10**30:  # str() of a huge int is slow or fails
            return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
        if isinstance(value, (int, float)):
            return repr(value)
        if isinstance(value, list):
            return "a list"
        if isinstance(value, dict):
            return "an object"
        return type(value).__name__

    def object(
        self, value: Any, path: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
    ) -> dict:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected an object, got {self.describe(value)}")
        for key in required:
            if key not in value:
                raise self.fail(f"{path}.{key}" if path else key, "missing")
        known = set(required) | set(optional)
        for key in value:
            if key not in known:
                where = f"{path}.{key}" if path else str(key)
                raise self.fail(
                    where, "unknown field (expected one of " + ", ".join(sorted(known)) + ")"
                )
        return value

    def integer(
        self, value: Any, path: str, low: int | None = None, high: int | None = None
    ) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"expected a whole number, got {self.describe(value)}")
        if low is not None and value < low:
            raise self.fail(path, f"{self.describe(value)} is below the least allowed value {low}")
        if high is not None and value > high:
            shown = self.describe(value)
            raise self.fail(path, f"{shown} is above the largest allowed value {high}")
        return value

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, f"expected true or false, got {self.describe(value)}")
        return value

    def choice(self, value: Any, path: str, choices: tuple[str, ...] | list[str]) -> int:
        """The index of `value` in `choices`."""
        if not isinstance(value, str) or value not in choices:
            listed = ", ".join(repr(c) for c in choices[:40]) + (" …" if len(choices) > 40 else "")
            hint = did_you_mean(value, choices) if isinstance(value, str) else ""
            raise self.fail(path, f"got {self.describe(value)}{hint}; expected one of {listed}")
        return list(choices).index(value)

    def array(self, value: Any, path: str, length: int | None = None) -> list:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list, got {self.describe(value)}")
        if length is not None and len(value) != length:
            raise self.fail(path, f"expected {length} entries, got {len(value)}")
        return value


def read_text_file(path: str) -> str:
    """A UTF-8 text file's contents; a missing or unreadable file is one clear HansaError."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        raise HansaError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise HansaError(f"{path}: not a text file (UTF-8 expected)") from None
    except OSError as exc:
        raise HansaError(f"{path}: cannot read: {exc.strerror or exc}") from None


def decode(text: str | bytes | dict, source: str = "state JSON") -> dict:
    """Parse state JSON text (or pass a dict through), with a located error on bad syntax."""
    if isinstance(text, dict):
        return text
    try:
        data = json.loads(text)
    except (ValueError, TypeError, RecursionError) as exc:
        shown = text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")
        message, line, column = json_problem(exc, shown)
        raise HansaError(f"{source}: {message} (line {line}, column {column})") from None
    if not isinstance(data, dict):
        raise HansaError(f"{source}: expected a JSON object at the top level")
    return data


def encode(data: dict) -> str:
    """Canonical state JSON text: one top-level field per line, and one entry per line for lists of
    objects (players, routes, cities, frames); key order as built, non-ASCII kept.

    Each part goes through the C-accelerated compact encoder, which is several times faster than
    `indent=` (a pure-Python encoder) while the text stays easy to read and to diff.
    """
    dumps = _ENCODER.encode
    lines = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            items = ",\n  ".join([dumps(v) for v in value])
            lines.append(f" {dumps(key)}: [\n  {items}\n ]")
        else:
            lines.append(f" {dumps(key)}: {dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}"


_ENCODER = json.JSONEncoder(ensure_ascii=False)
