"""The server's doors: which requests reach the application at all (an ASGI middleware).

- **Host**: the request must name this server: `localhost`, an IP address, or a name the server
  was told it has (`--host NAME`, and this machine's own names when it serves a network). A page
  of another site that re-points its own name at 127.0.0.1 (DNS rebinding) sends its own name and
  is refused, so it can never read an answer.
- **Origin**: a request a browser marks as coming from a page must come from this server's own
  page (same scheme, host and port); `Sec-Fetch-Site: cross-site` (or `same-site`) is refused
  for the API, so no other page — not even another local server — can drive it.
- **JSON only**: a request with a body must say `Content-Type: application/json`. A browser sends
  that cross-site only after asking first (a CORS preflight, which is never granted), so the
  "simple" text/plain and form posts a hostile page can send without asking are refused.

Answers also carry headers that keep the page out of frames, keep links' tokens out of the
Referer and answers out of caches.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable
from urllib.parse import urlsplit

SAFE_METHODS = {"GET", "HEAD"}
LOCAL_NAMES = {"localhost"}
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        b"frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    ),
]


def split_host(value: str) -> tuple[str, str]:
    """`host[:port]` (IPv6 in brackets) as (lower-case host, port text); ("", "") if malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return "", ""
        host, rest = value[1:end], value[end + 1 :]
        if rest and not rest.startswith(":"):
            return "", ""
        return host, rest[1:]
    host, _, port = value.partition(":")
    return host, port


def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class Guard:
    """Refuses requests for another host, from another page, or with a body that is not JSON."""

    def __init__(self, app, allowed_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.names = LOCAL_NAMES | {h.lower().strip("[]") for h in allowed_hosts if h}

    def host_allowed(self, host: str) -> bool:
        return bool(host) and (host in self.names or host.endswith(".localhost") or is_ip(host))

    def problem(self, scope) -> tuple[int, str] | None:
        headers = {}
        for key, value in scope.get("headers", ()):
            headers.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
        host_header = headers.get("host", "")
        host, port = split_host(host_header)
        if not self.host_allowed(host):
            return 403, (
                f"refused: Host {host_header[:100]!r} is not this server (hansa serve answers to "
                "localhost, IP addresses and the names it was started with)"
            )
        api = scope["path"].startswith("/api/")
        site = headers.get("sec-fetch-site")
        if api and site in ("cross-site", "same-site"):
            return 403, "refused: a request from another site's page"
        origin = headers.get("origin")
        if origin is not None and (api or scope["method"] not in SAFE_METHODS):
            parts = urlsplit(origin) if origin != "null" else None
            same = (
                parts is not None
                and parts.scheme == scope.get("scheme", "http")
                and split_host(parts.netloc) == (host, port)
            )
            if not same:
                return 403, f"refused: a request from the page of {origin[:100]!r}"
        if scope["method"] not in SAFE_METHODS:
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                return 415, "refused: a request body must be JSON (Content-Type: application/json)"
        return None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith("/api/")

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                extra = list(SECURITY_HEADERS)
                if api:
                    extra.append((b"cache-control", b"no-store"))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        refused = self.problem(scope)
        if refused is None:
            await self.app(scope, receive, send_with_headers)
            return
        status, message = refused
        body = json.dumps({"error": message}).encode()
        await send_with_headers(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
