"""Names in messages: "did you mean" that ignores accents and case, and shortened quotes.

Standard library only (the runtime and every generated module may use it). Users type names
without the accents a board prints (`Lodz` for `Łódź`, `Lubeck` for `Lübeck`): the suggestion
compares names with accents, case and a few letters that do not decompose (ł, ø, ß) folded away.
"""

from __future__ import annotations

import difflib
import unicodedata

SHOWN_NAME = 60  # characters of a name quoted in a message

_UNDECOMPOSED = str.maketrans(
    {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "ß": "ss", "đ": "d", "Đ": "D", "æ": "ae", "Æ": "AE"}
)


def fold(name: str) -> str:
    """`name` without accents or case (`Łódź` → `lodz`)."""
    decomposed = unicodedata.normalize("NFKD", name.translate(_UNDECOMPOSED))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def closest(name: str, known) -> str | None:
    """The known name nearest to `name`: one equal but for accents and case first, else the most
    similar (difflib, cutoff 0.6) after folding."""
    if not isinstance(name, str):
        return None
    known = sorted(str(k) for k in known)
    if not known or len(name) > 10 * max(len(k) for k in known):
        return None  # a huge argument is like nothing known (and slow to compare)
    folded = fold(name)
    by_fold: dict[str, str] = {}
    for k in known:
        by_fold.setdefault(fold(k), k)
    if folded in by_fold and by_fold[folded] != name:
        return by_fold[folded]
    matches = difflib.get_close_matches(folded, list(by_fold), n=1, cutoff=0.6)
    return by_fold[matches[0]] if matches else None


def did_you_mean(name: str, known) -> str:
    guess = closest(name, known)
    return f" (did you mean '{guess}'?)" if guess and guess != name else ""


def shown(name: object, limit: int = SHOWN_NAME) -> str:
    """`repr` of a name for messages, cut to `limit` characters (saying how long it was)."""
    text = str(name)
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"… ({len(text):,} characters)"
