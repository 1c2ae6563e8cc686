"""What the people at a table say besides their decisions: a name per seat, and a short chat.

Both belong to the game: they are stored with it (`hansa.web.store`), and every page of the game
(its seats, host and spectators) is shown them. They are the players' own words, so nothing in
them is hidden information the server keeps; the page shows them as text, never as markup.

A seat's link names its own seat; a seat's or the host's link may write in the chat (a spectator
only reads it). Names are at most `NAME_LENGTH` characters, messages `MESSAGE_LENGTH`; control
characters are dropped and white space folded. Each link may write `RATE_COUNT` messages (or name
changes) per `RATE_SECONDS`: a flood is refused (429) without changing anything. A game keeps its
last `KEPT_MESSAGES` messages.
"""

from __future__ import annotations

import time
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from .access import HOST, SEAT, Refused, Viewer

NAME_LENGTH = 24
MESSAGE_LENGTH = 280
KEPT_MESSAGES = 200
RATE_COUNT = 5  # messages (or name changes) one link may send …
RATE_SECONDS = 10.0  # … in this many seconds


class TooFast(Exception):
    """A link wrote more than the rate allows (HTTP 429); nothing was changed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadText(ValueError):
    """A name or message that is not text, empty, or too long (HTTP 400)."""


def clean(text: object, limit: int, what: str) -> str:
    """`text` as it is kept: control and format characters dropped, white space folded to single
    spaces, trimmed; refused when not a string, empty or longer than `limit` characters."""
    if not isinstance(text, str):
        raise BadText(f"{what}: expected a string")
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or unicodedata.category(ch)[0] != "C"
    )
    folded = " ".join(kept.split())
    if not folded:
        raise BadText(f"{what}: empty")
    if len(folded) > limit:
        raise BadText(f"{what}: at most {limit} characters (got {len(folded)})")
    return folded


def author(viewer: Viewer) -> dict:
    return {"role": viewer.role, "seat": viewer.seat}


@dataclass
class Talk:
    """One game's names and chat. Called with the session's lock held."""

    names: dict[int, str] = field(default_factory=dict)
    messages: list[dict] = field(default_factory=list)  # {n, role, seat, text}
    count: int = 0  # messages ever written (numbers them, also past the kept ones)
    sent: dict[str, deque] = field(default_factory=dict)  # times of each link's recent writes
    clock: Callable[[], float] = time.monotonic

    def _rate(self, token: str) -> None:
        now = self.clock()
        recent = self.sent.setdefault(token, deque())
        while recent and now - recent[0] > RATE_SECONDS:
            recent.popleft()
        if len(recent) >= RATE_COUNT:
            raise TooFast(
                f"too many messages: at most {RATE_COUNT} every {RATE_SECONDS:g} seconds from "
                "one link; wait a moment"
            )
        recent.append(now)

    def rename(self, viewer: Viewer, token: str, name: object) -> tuple[int, str]:
        """Seat `viewer`'s name (its own only); the seat and the name kept."""
        if viewer.role != SEAT:
            raise Refused("only a seat's link names its player")
        kept = clean(name, NAME_LENGTH, "name")
        self._rate(token)
        self.names[viewer.seat] = kept
        return viewer.seat, kept

    def say(self, viewer: Viewer, token: str, text: object) -> dict:
        """A chat message from a seat's or the host's link; the message kept."""
        if viewer.role not in (SEAT, HOST):
            raise Refused("a spectator's link reads the chat but does not write in it")
        kept = clean(text, MESSAGE_LENGTH, "message")
        self._rate(token)
        self.count += 1
        message = {"n": self.count, **author(viewer), "text": kept}
        self.messages.append(message)
        del self.messages[:-KEPT_MESSAGES]
        return message

    def restore(self, names: dict[int, str], messages: list[dict]) -> None:
        self.names = dict(names)
        self.messages = list(messages)[-KEPT_MESSAGES:]
        self.count = max((m["n"] for m in messages), default=0)

    def public(self) -> dict:
        """What every page of the game is shown."""
        return {
            "names": {str(seat): name for seat, name in sorted(self.names.items())},
            "chat": list(self.messages),
        }
