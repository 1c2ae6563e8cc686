"""The project's error type as the compiler sees it, and "did you mean" hints.

`Span`, `Diagnostic` and `HansaError` are defined once, in `hansa.runtime.errors`, so the compiler,
the runtime and every generated module raise the same class and a caller needs one `except`.
"""

from __future__ import annotations

from hansa.runtime.errors import NO_SPAN, Diagnostic, HansaError, Span, format_diagnostics
from hansa.runtime.names import closest

__all__ = [
    "NO_SPAN",
    "Diagnostic",
    "HansaError",
    "Span",
    "closest_name",
    "did_you_mean",
    "format_diagnostics",
]


def closest_name(name: str, known: list[str] | set[str] | tuple[str, ...]) -> str | None:
    """The known name nearest to `name`, for 'did you mean …?' hints (accents and case ignored:
    `Lodz` finds `Łódź`)."""

    if len(name) > 200:  # no real name is that long, and matching cost grows with its square
        return None
    return closest(name, known)


def did_you_mean(name: str, known) -> str:
    guess = closest_name(name, known)
    return f" (did you mean '{guess}'?)" if guess and guess != name else ""
