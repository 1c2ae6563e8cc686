"""The starlette application behind `hansa serve`: a static page and a small JSON API.

Every endpoint is in docs/serve.md. Bad input of any kind (unknown game or session, malformed
JSON, wrong types, illegal actions, broken logs or states) is answered with status 4xx and
`{"error": message}`, the message being what the command line prints for the same problem; the
game it concerns is left unchanged. What the server defends against (foreign Host and Origin,
bodies that are not JSON, names that are paths, work without bound) is in docs/serve.md, "What the
server defends against"; `hansa.web.guard` is the door, `hansa.web.access` the tokens.

Work is bounded per request: a view or a decision is a few milliseconds in a small thread pool;
compiling, loading a log or a position runs in a smaller pool with a queue limit (busy: 503); the
agents think in `hansa.web.runner`'s workers while the request that asked for them waits on the
event loop (no thread held), at most `AGENT_WAIT` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hansa.compiler.errors import HansaError

from .access import HOST, SEAT, Refused, resolve, token_listing
from .guard import Guard
from .redact import Redactor
from .rules_help import RulesHelp
from .runner import AgentPool
from .sessions import Catalogue, Session, Sessions, bundled_spec_dir
from .store import MAX_STORED
from .talk import BadText, TooFast
from .views import change_notice, revealed, session_view

STATIC = Path(__file__).parent / "static"
MAX_BODY = 32 * 1024 * 1024  # bytes of one request (a long game log is a few MB)
AGENT_WAIT = 10.0  # seconds a request for agent decisions waits for them before answering
MAX_WAIT = 30.0
MAX_STREAM = 300.0  # seconds an update stream stays open (EventSource then reconnects)
KEEPALIVE = 15.0
LIGHT_THREADS = 4  # views and decisions at once
HEAVY_THREADS = 2  # compiling, verifying a log, loading a position at once
HEAVY_QUEUE = 16  # requests waiting for a heavy thread beyond which the server says it is busy
MAX_DELAY = 5.0  # seconds between two agent decisions a page may ask for


class BadRequest(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> dict:
    """The request's JSON object (size-limited); anything else is a clear 400."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
        raise BadRequest(f"request body too large (at most {MAX_BODY} bytes)", 413)
    chunks, total = [], 0
    async for chunk in request.stream():
        chunks.append(chunk)
        total += len(chunk)
        if total > MAX_BODY:
            raise BadRequest(f"request body too large (at most {MAX_BODY} bytes)", 413)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BadRequest(f"the request body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    return data


def _int_param(request: Request, key: str) -> int | None:
    value = request.query_params.get(key)
    if value is None or value == "":
        return None
    if not value.isdigit() or len(value) > 18:
        raise BadRequest(f"{key}: expected a whole number, got {value[:40]!r}")
    return int(value)


def _number(data: dict, key: str, default: float, low: float, high: float) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise BadRequest(f"{key}: expected a number of seconds from {low:g} to {high:g}")
    return float(value)


def _text_field(data: dict, key: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise BadRequest(f"{key}: expected a string")
    return value


class SourceGuard(dict):
    """The texts an error may quote: the uploaded file's, and the served spec folder's files.

    `HansaError.format` reads a file it is not given from disk; through this mapping it is given
    every file, and one outside the spec folder reads as empty (no line quoted), so an error can
    never quote a file the request names.
    """

    def __init__(self, given: dict | None, folders: Iterable[Path]) -> None:
        super().__init__(given or {})
        self.folders = [f.resolve() for f in folders]

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> str:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        try:
            path = Path(key).resolve()
            if any(path.is_relative_to(f) for f in self.folders) and path.suffix == ".hansa":
                return path.read_text(encoding="utf-8")
        except (OSError, ValueError, UnicodeDecodeError):
            pass
        return ""


class Endpoints:
    """The server's endpoints and error answers over one catalogue of games and its sessions;
    `create_app` routes requests to them."""

    def __init__(self, catalogue: Catalogue, sessions: Sessions, require_tokens: bool, folders):
        self.catalogue = catalogue
        self.sessions = sessions
        self.require_tokens = require_tokens
        self.folders = folders  # where an error's source lines may be shown from
        shown = [catalogue.spec_dir] if catalogue.spec_dir is not None else []
        self.redact = Redactor([*shown, *folders])  # no answer names a path of the server's disk
        self.light = anyio.CapacityLimiter(LIGHT_THREADS)
        self.heavy = anyio.CapacityLimiter(HEAVY_THREADS)
        self.app = None  # the Starlette app (create_app)
        self.help = RulesHelp(self.spec_folder_of)

    async def in_light(self, func, *args):
        return await anyio.to_thread.run_sync(func, *args, limiter=self.light)

    async def in_heavy(self, func, *args):
        if self.heavy.statistics().tasks_waiting >= HEAVY_QUEUE:
            raise BadRequest("the server is busy: try again in a moment", 503)
        return await anyio.to_thread.run_sync(func, *args, limiter=self.heavy)

    def token_of(self, request: Request) -> str | None:
        return request.headers.get("x-hansa-token") or request.query_params.get("token")

    async def session_of(self, request: Request) -> tuple[Session, object]:
        sid = request.path_params["sid"]
        try:
            session = self.sessions.in_memory(sid)
            if session is None and self.sessions.store is not None:
                # read back from the store: replays its decisions
                session = await self.in_heavy(self.sessions.get, sid)
            if session is None:
                raise KeyError(sid)
        except KeyError:
            kept = "the store keeps" if self.sessions.store is not None else "memory keeps"
            raise BadRequest(
                f"no such game session (it may have been dropped: {kept} at most "
                f"{MAX_STORED if self.sessions.store is not None else self.sessions.limit} games; "
                "start a new one)",
                404,
            ) from None
        return session, resolve(session.tokens, self.token_of(request), self.require_tokens)

    async def created(self, make: Callable[..., Session], *args, light_work=False) -> JSONResponse:
        """A new session (made in a heavy thread, or a light one when `light_work`), answered to
        its creator: every token, and the view of its first human seat (the host's where no
        human plays)."""

        def build() -> dict:
            session = make(*args)
            seats = [v for v in session.tokens.values() if v.role == SEAT]
            viewer = (
                seats[0] if seats else next(v for v in session.tokens.values() if v.role == HOST)
            )
            with session.lock:
                view = session_view(session, viewer, 0 if session.mode == "replay" else None)
            view["tokens"] = token_listing(session.tokens)
            return view

        run = self.in_light if light_work else self.in_heavy
        return JSONResponse(await run(build), status_code=201)

    async def index(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def list_games(self, request: Request) -> Response:
        listing = dict(self.catalogue.listing())
        if listing["spec"] is not None:
            listing["spec"] = self.redact(listing["spec"])
        listing["problems"] = [self.redact(p) for p in listing["problems"]]
        return JSONResponse(listing)

    def error(self, message: str, status: int) -> JSONResponse:
        return _error(self.redact(message), status)

    async def game_board(self, request: Request) -> Response:
        name = request.path_params["name"]
        run = self.in_light if self.catalogue.laid_out(name) else self.in_heavy  # drawn once
        return JSONResponse(await run(self.catalogue.layout, name))

    async def game_rules(self, request: Request) -> Response:
        """The rules help of a game: what its markers, tiles, cards, abilities and categories do,
        and what its rules change against their edition (`hansa.web.rules_help`)."""
        name = request.path_params["name"]

        def work() -> dict:
            module = self.catalogue.module(name)
            found = dict(self.help.of(module.GAME_NAME, module))
            if found["note"]:  # a spec that could not be read: its message names no path
                found["note"] = self.redact(found["note"])
            return found

        return JSONResponse(await self.in_heavy(work))

    def spec_folder_of(self, name: str) -> Path | None:
        entry = self.catalogue.entries.get(name)
        if entry is not None and entry.source == "spec":
            return self.catalogue.spec_dir
        return bundled_spec_dir()

    async def new_session(self, request: Request) -> Response:
        data = await _body(request)
        game = data.get("game")
        return await self.created(
            self.sessions.new_game,
            game,
            data.get("players"),
            data.get("seed"),
            data.get("seats"),
            light_work=self.catalogue.loaded(game),  # nothing to compile: a new game is quick
        )

    async def show_session(self, request: Request) -> Response:
        session, viewer = await self.session_of(request)
        at, since = _int_param(request, "at"), _int_param(request, "since")

        def view():
            with session.lock:
                return session_view(session, viewer, at, since or 0)

        return JSONResponse(await self.in_light(view))

    async def act(self, request: Request) -> Response:
        session, viewer = await self.session_of(request)
        data = await _body(request)
        since = _since(data)

        def apply():
            with session.lock:
                session.human_action(viewer, data.get("action"), data.get("at"))
                return session_view(session, viewer, None, min(since, len(session.moves)))

        return JSONResponse(await self.in_light(apply))

    async def undo(self, request: Request) -> Response:
        session, viewer = await self.session_of(request)
        data = await _body(request)
        since = _since(data)

        def take_back():
            with session.lock:
                session.undo(viewer, data.get("at"))
                return session_view(session, viewer, None, min(since, len(session.moves)))

        return JSONResponse(await self.in_light(take_back))

    async def rename(self, request: Request) -> Response:
        """A seat's link names its player (docs/serve.md, "Names and chat")."""
        return await self._talk(request, "name", lambda s, v, t, text: s.rename(v, t, text))

    async def chat(self, request: Request) -> Response:
        """A message in the game's chat from a seat's or the host's link."""
        return await self._talk(request, "text", lambda s, v, t, text: s.say(v, t, text))

    async def _talk(self, request: Request, key: str, change) -> Response:
        session, viewer = await self.session_of(request)
        data = await _body(request)
        since = _since(data)
        token = self.token_of(request) or ""

        def apply():
            with session.lock:
                try:
                    change(session, viewer, token, data.get(key))
                except BadText as exc:
                    raise BadRequest(str(exc)) from None
                except TooFast as exc:
                    raise BadRequest(exc.message, 429) from None
                return session_view(session, viewer, None, min(since, len(session.moves)))

        return JSONResponse(await self.in_light(apply))

    async def agent(self, request: Request) -> Response:
        session, viewer = await self.session_of(request)
        data = await _body(request)
        since = _since(data)
        if data.get("stop") is True:

            def stop():
                with session.lock:
                    session.stop_agents(viewer)
                    return session_view(session, viewer, None, min(since, len(session.moves)))

            return JSONResponse(await self.in_light(stop))
        steps = data.get("steps", 1)
        until_human = data.get("until_human", False)
        if not _is_int(steps) or not 1 <= steps <= 20_000:
            raise BadRequest(f"steps: expected a whole number from 1 to 20000, got {steps!r}")
        if not isinstance(until_human, bool):
            raise BadRequest("until_human: expected true or false")
        delay = _number(data, "delay", 0.0, 0.0, MAX_DELAY)
        wait = _number(data, "wait", AGENT_WAIT, 0.0, MAX_WAIT)

        def start():
            with session.lock:
                return session.start_agents(viewer, steps, until_human, delay)

        job = await self.in_light(start)
        await until(session, lambda: job.finished, wait)

        def view():
            with session.lock:
                return session_view(session, viewer, None, min(since, len(session.moves)))

        return JSONResponse(await self.in_light(view))

    async def events(self, request: Request) -> Response:
        """Server-sent events: a notice each time the session changes (docs/serve.md)."""
        session, _viewer = await self.session_of(request)
        duration = MAX_STREAM
        if request.query_params.get("for"):
            duration = min(float(_int_param(request, "for") or 0), MAX_STREAM)
        loop = asyncio.get_running_loop()

        async def stream():
            end = loop.time() + duration
            yield "retry: 1000\n\n"
            last = None
            while not self.app.state.stopping:
                version = session.version
                if version != last:
                    last = version
                    yield f"event: change\ndata: {json.dumps(change_notice(session))}\n\n"
                left = end - loop.time()
                if left <= 0:
                    break
                wait = min(left, KEEPALIVE)
                if not await until(session, lambda v=version: session.version != v, wait):
                    yield ": still here\n\n"

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )

    async def download_log(self, request: Request) -> Response:
        session, _viewer = await self.session_of(request)

        def text():
            with session.lock:
                if not revealed(session):
                    raise Refused(
                        "the log is shown once the game is over (it holds the seed, which "
                        "decides every hidden draw)"
                    )
                return session.log_text()

        body = await self.in_light(text)
        filename = f"{session.game.name}-seed{session.seed}.jsonl"
        return Response(
            body,
            media_type="application/x-ndjson; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="{filename}"'},
        )

    async def open_log(self, request: Request) -> Response:
        data = await _body(request)
        text = _text_field(data, "text")
        name = _text_field(data, "name", "uploaded.jsonl") or "uploaded.jsonl"
        return await self.created(self.sessions.open_log, text, name[:200])

    async def open_position(self, request: Request) -> Response:
        data = await _body(request)
        text = _text_field(data, "text")
        name = _text_field(data, "name", "uploaded.json") or "uploaded.json"
        return await self.created(
            self.sessions.open_position,
            text,
            name[:200],
            data.get("game"),
            data.get("players"),
            data.get("seats"),
        )

    async def on_hansa_error(self, request: Request, exc: HansaError) -> Response:
        text = exc.format(SourceGuard(getattr(exc, "sources", None), self.folders))
        return self.error(text, 400)

    async def on_refused(self, request: Request, exc: Refused) -> Response:
        return self.error(exc.message, 403)

    async def on_bad_request(self, request: Request, exc: BadRequest) -> Response:
        return self.error(exc.message, exc.status)

    async def on_http_error(self, request: Request, exc: HTTPException) -> Response:
        return self.error(str(exc.detail), exc.status_code)

    async def on_memory_error(self, request: Request, exc: MemoryError) -> Response:
        return self.error("the server ran out of memory for this request", 503)

    @contextlib.asynccontextmanager
    async def lifespan(self, app):
        app.state.stopping = False
        yield
        self.stop()

    def stop(self) -> None:
        """Stop the agents and end every update stream (the server is shutting down)."""
        self.app.state.stopping = True
        self.sessions.close()


def create_app(
    catalogue: Catalogue | None = None,
    max_sessions: int | None = None,
    *,
    allowed_hosts: Iterable[str] = (),
    require_tokens: bool = False,
    token: Callable[[], str] | None = None,
    agent_workers: int | None = None,
    store=None,
):
    """The application (wrapped in the Host/Origin/JSON guard).

    `allowed_hosts`: names besides localhost and IP addresses that requests may use for this
    server; `require_tokens`: refuse requests without a session token (a server on a network);
    `token`: how ids and tokens are made (tests pass a deterministic one); `store`: a
    `hansa.web.store.Store` keeping the sessions across restarts (none: in memory only).
    """

    catalogue = catalogue if catalogue is not None else Catalogue("spec")
    extra = {}
    if max_sessions is not None:
        extra["limit"] = max_sessions
    if token is not None:
        extra["token"] = token
    pool = AgentPool(agent_workers) if agent_workers is not None else AgentPool()
    sessions = Sessions(catalogue, pool=pool, store=store, **extra)
    folders = [f for f in (catalogue.spec_dir,) if f is not None and f.is_dir()]

    if bundled_spec_dir() is not None:
        folders.append(bundled_spec_dir())

    endpoints = Endpoints(catalogue, sessions, require_tokens, folders)
    routes = [
        Route("/", endpoints.index),
        Route("/api/games", endpoints.list_games),
        Route("/api/games/{name}/board", endpoints.game_board),
        Route("/api/games/{name}/rules", endpoints.game_rules),
        Route("/api/sessions", endpoints.new_session, methods=["POST"]),
        Route("/api/sessions/{sid}", endpoints.show_session),
        Route("/api/sessions/{sid}/action", endpoints.act, methods=["POST"]),
        Route("/api/sessions/{sid}/agent", endpoints.agent, methods=["POST"]),
        Route("/api/sessions/{sid}/undo", endpoints.undo, methods=["POST"]),
        Route("/api/sessions/{sid}/name", endpoints.rename, methods=["POST"]),
        Route("/api/sessions/{sid}/chat", endpoints.chat, methods=["POST"]),
        Route("/api/sessions/{sid}/events", endpoints.events),
        Route("/api/sessions/{sid}/log", endpoints.download_log),
        Route("/api/logs", endpoints.open_log, methods=["POST"]),
        Route("/api/positions", endpoints.open_position, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={
            HansaError: endpoints.on_hansa_error,
            Refused: endpoints.on_refused,
            BadRequest: endpoints.on_bad_request,
            HTTPException: endpoints.on_http_error,
            MemoryError: endpoints.on_memory_error,
        },
        lifespan=endpoints.lifespan,
    )
    endpoints.app = app
    app.state.stopping = False
    app.state.catalogue = catalogue
    app.state.sessions = sessions
    app.state.stop = endpoints.stop
    guarded = Guard(app, allowed_hosts)
    guarded.state = app.state  # tests and `hansa serve` reach the sessions through the wrapper
    guarded.inner = app
    return guarded


async def until(session: Session, condition: Callable[[], bool], timeout: float) -> bool:
    """Wait on the event loop (holding no thread) until `condition()` holds after a change of
    `session`, at most `timeout` seconds; whether it holds."""
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()

    def wake() -> None:
        try:
            loop.call_soon_threadsafe(woken.set)
        except RuntimeError:  # the loop has closed
            pass

    session.listen(wake)  # before looking, so no change is missed
    try:
        deadline = loop.time() + timeout
        while True:
            woken.clear()
            if condition():
                return True
            left = deadline - loop.time()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(woken.wait(), left)
            except TimeoutError:
                return condition()
    finally:
        session.unlisten(wake)


def _since(data: dict) -> int:
    """The `since` of a request that changes a game, checked before anything changes."""
    since = data.get("since", 0)
    if not _is_int(since) or since < 0:
        raise BadRequest(f"since: expected a whole number from 0, got {since!r}")
    return since


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
