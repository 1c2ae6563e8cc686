"""Who is asking: the viewer a request's token names, and what that viewer may see and do.

Every session hands out secret tokens when it is made (docs/serve.md, "Seats and links"):

- one per human seat: the seat's view (its own secrets, the legal actions when it decides) and
  its decisions;
- a host token: the public view, and asking the agents to move (the creator of a game in which
  only agents play needs someone to start them);
- a spectator token: the public view only.

A request without a token is a spectator on a server that listens on this machine only; a server
that serves a network (`--host ADDR`) refuses it. Nothing here knows HTTP: `hansa.web.app` reads
the token from the `X-Hansa-Token` header (or a `token` query parameter, for links and
EventSource) and calls `resolve`.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass

SEAT, HOST, SPECTATOR = "seat", "host", "spectator"
TOKEN_BYTES = 24  # 192 random bits per token, URL-safe text of 32 characters


@dataclass(frozen=True)
class Viewer:
    role: str  # SEAT, HOST or SPECTATOR
    seat: int | None = None  # the seat of a SEAT viewer

    def public(self) -> dict:
        return {"role": self.role, "seat": self.seat}

    @property
    def may_drive_agents(self) -> bool:
        return self.role in (SEAT, HOST)


PUBLIC = Viewer(SPECTATOR)


class Refused(Exception):
    """A request its token does not allow (HTTP 403); nothing was changed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def make_tokens(human_seats: list[int], token: Callable[[], str] = new_token) -> dict[str, Viewer]:
    """The tokens of a new session: host, spectator, then one per human seat."""
    tokens = {token(): Viewer(HOST), token(): Viewer(SPECTATOR)}
    for seat in human_seats:
        tokens[token()] = Viewer(SEAT, seat)
    return tokens


def token_listing(tokens: dict[str, Viewer]) -> dict:
    """The tokens as the session's creator receives them: by role, seats by number."""
    out: dict = {"host": None, "spectator": None, "seats": {}}
    for token, viewer in tokens.items():
        if viewer.role == SEAT:
            out["seats"][str(viewer.seat)] = token
        else:
            out[viewer.role] = token
    return out


def resolve(tokens: dict[str, Viewer], token: str | None, require: bool) -> Viewer:
    """The viewer `token` names among a session's `tokens` (compared in constant time)."""
    if not token:
        if require:
            raise Refused(
                "this server serves a network: every request needs its link's token "
                "(X-Hansa-Token header or ?token=)"
            )
        return PUBLIC
    found = None
    given = token.encode("utf-8", "surrogateescape")
    for known, viewer in tokens.items():
        if hmac.compare_digest(known.encode(), given):
            found = viewer
    if found is None:
        raise Refused("this link's token does not belong to this game")
    return found
