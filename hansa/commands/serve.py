"""Serve a local web app to play games against agents and step through game logs.

Open the printed URL in a browser. The start page offers every built game and every game declared
in the spec folder (`--spec`, default spec/; compiled in memory, so a house rule being edited is
played as written), the player count, who plays each seat (a human in the page, or an agent such
as greedy or random) and the seed. The board shows the pieces in player colours with the player's
number on each (traders square, merchants round); the legal actions of the current decision are
offered on the board and as a list. Each human seat has its own secret link, so people can play
from their own browsers; a page only ever receives what its seat may see (no face-down marker
order, no other player's mission card, no seed) until the game is over. A finished game can be
saved as a log that `hansa replay` accepts; a log (`hansa play --log`) or a state JSON can be
opened and stepped through. It listens on 127.0.0.1 unless --host names another address; then
every request to a game needs one of its links' tokens (as it does with --name, the public name
of a reverse proxy or tunnel in front of it); --ssl-certfile and --ssl-keyfile serve HTTPS.
Needs the `web` extra:
pip install -e '.[web]'. The API and what the server defends against are in docs/serve.md.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import sqlite3
import ssl
import sys
import threading
from pathlib import Path

from hansa.compiler.errors import HansaError
from hansa.runtime.errors import terminal_safe

NAME = "serve"
HELP = "serve a local web app to play games and step through logs in a browser"

INSTALL_HINT = "hansa serve needs the web extra (starlette, uvicorn): pip install -e '.[web]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--spec",
        metavar="DIR",
        default=None,
        help="spec folder whose games are offered too, compiled in memory (default: spec/ if any)",
    )
    parser.add_argument(
        "--port", type=int, default=8000, metavar="N", help="port (default 8000; 0 picks one)"
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: only this machine can connect; another "
        "address serves a network, and then every game needs its links' tokens)",
    )
    parser.add_argument(
        "--store",
        metavar="FILE",
        default=None,
        help="SQLite file keeping the games across restarts (default: $HANSA_STORE, else "
        "~/.local/state/hansa/serve.sqlite)",
    )
    parser.add_argument("--no-store", action="store_true", help="keep the games in memory only")
    parser.add_argument(
        "--ssl-certfile",
        metavar="FILE",
        default=None,
        help="serve HTTPS with this certificate (PEM; with --ssl-keyfile unless it holds the key)",
    )
    parser.add_argument(
        "--ssl-keyfile", metavar="FILE", default=None, help="the certificate's private key (PEM)"
    )
    parser.add_argument(
        "--name",
        action="append",
        default=[],
        metavar="HOST",
        help="a name the server is reached by (repeatable), e.g. behind a reverse proxy or a "
        "tunnel; every game then needs its links' tokens",
    )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, so a busy port is one clear error before the server starts."""
    if not 0 <= port <= 65535:
        raise HansaError(f"--port must be from 0 to 65535, got {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise HansaError(f"--host {host!r}: {exc.strerror}") from None
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise HansaError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def url_of(sock: socket.socket, tls: bool = False) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if tls else 'http'}://{shown}:{port}/"


def is_loopback(sock: socket.socket) -> bool:

    return ipaddress.ip_address(sock.getsockname()[0].split("%")[0]).is_loopback


def served_names(host: str, sock: socket.socket) -> set[str]:
    """Host names requests may use besides localhost and IP addresses: the name given to --host,
    and, for a server on a network, this machine's own names."""
    names = {host}
    if not is_loopback(sock):
        names |= {socket.gethostname(), socket.getfqdn()}
    return {n for n in names if n}


def open_store(path: str | None):
    """The games' SQLite file, as one clear error when it cannot be used."""

    from hansa.web.store import Store, StoreRefused, default_store

    where = path if path is not None else default_store()
    own = path is None and not os.environ.get("HANSA_STORE")  # the default folder is hansa's own
    try:
        return Store(where, own_folder=own)
    except (OSError, sqlite3.Error, StoreRefused) as exc:
        raise HansaError(f"--store {where}: cannot keep games there: {exc}") from None


def tls_options(certfile: str | None, keyfile: str | None) -> dict:
    """uvicorn's certificate options, checked first: one clear error for a missing or broken
    certificate or key, before the server starts."""

    if certfile is None:
        if keyfile is not None:
            raise HansaError("--ssl-keyfile needs --ssl-certfile (the certificate it belongs to)")
        return {}
    for option, path in (("--ssl-certfile", certfile), ("--ssl-keyfile", keyfile)):
        if path is not None and not os.path.isfile(path):
            raise HansaError(f"{option} {path}: no such file")
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(certfile, keyfile)
    except (ssl.SSLError, OSError) as exc:
        raise HansaError(
            f"--ssl-certfile {certfile}: cannot use this certificate and key: "
            f"{exc.strerror or exc.reason or exc}"
        ) from None
    return {"ssl_certfile": certfile, "ssl_keyfile": keyfile}


def run(args: argparse.Namespace) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        raise HansaError(INSTALL_HINT) from None

    from hansa.web.app import create_app
    from hansa.web.sessions import Catalogue

    spec = args.spec
    if spec is not None and not Path(spec).is_dir():
        raise HansaError(f"--spec {spec}: no such folder")
    catalogue = Catalogue(spec if spec is not None else "spec")
    for problem in catalogue.problems:
        print(terminal_safe(str(problem)), file=sys.stderr)
    tls = tls_options(args.ssl_certfile, args.ssl_keyfile)
    sock = bind(args.host, args.port)
    try:
        store = None if args.no_store else open_store(args.store)
    except HansaError:
        sock.close()
        raise
    network = not is_loopback(sock) or bool(args.name)  # a proxy or tunnel brings the network
    app = create_app(
        catalogue,
        allowed_hosts=served_names(args.host, sock) | set(args.name),
        require_tokens=network,
        store=store,
    )
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", timeout_graceful_shutdown=GRACE_SECONDS, **tls
    )
    server = make_server(config, app.state.stop)
    # Agents think in threads that share the interpreter with the requests; a thread waiting for
    # the interpreter lock waits up to the switch interval at each hand-over, and a request hands
    # over dozens of times (socket, event loop, worker thread), so the default 5 ms made a 3 ms
    # request take 0.5-2.8 s beside two searching agents (tests/app/web/test_serve_doors.py's load
    # test).
    # 1 ms: the slowest good request 0.13-0.2 s there, for about 7% of the agents' speed.
    sys.setswitchinterval(SWITCH_INTERVAL)
    note = "  every game needs its links' tokens" if network else ""
    kept = f"  games kept in {store.path}" if store is not None else ""
    print(f"hansa serve: {url_of(sock, bool(tls))}  (Ctrl-C stops){note}{kept}", flush=True)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return 0


GRACE_SECONDS = 2  # a stop signal ends open requests after this long
SWITCH_INTERVAL = 0.001  # seconds a thread holds the interpreter before another may take it


def make_server(config, stop):
    """uvicorn's server, which on SIGINT/SIGTERM first stops the agents and ends the update
    streams (they would otherwise keep the graceful shutdown waiting); `stop` runs in a thread of
    its own, never inside the signal handler, which may have interrupted a lock's holder."""

    import uvicorn

    class StoppingServer(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            threading.Thread(target=stop, name="hansa stop", daemon=True).start()
            super().handle_exit(sig, frame)

    return StoppingServer(config)
