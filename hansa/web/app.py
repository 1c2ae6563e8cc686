"""The starlette application behind `hansa serve`: a static page and a small JSON API.

Every endpoint is in docs/serve.md. Bad input of any kind (unknown game or session, malformed
JSON, wrong types, illegal actions, broken logs or states) is answered with status 400 or 404 and
`{"error": message}`, the message being what the command line prints for the same problem; the
game it concerns is left unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hansa.compiler.errors import HansaError

from .sessions import Catalogue, Sessions

STATIC = Path(__file__).parent / "static"
MAX_BODY = 32 * 1024 * 1024  # bytes of one request (a long game log is a few MB)


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
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise BadRequest(f"request body too large (at most {MAX_BODY} bytes)", 413)
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
    try:
        return int(value)
    except ValueError:
        raise BadRequest(f"{key}: expected a whole number, got {value!r}") from None


def _text_field(data: dict, key: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise BadRequest(f"{key}: expected a string")
    return value


def create_app(catalogue: Catalogue | None = None, max_sessions: int | None = None) -> Starlette:
    catalogue = catalogue if catalogue is not None else Catalogue("spec")
    sessions = Sessions(catalogue) if max_sessions is None else Sessions(catalogue, max_sessions)

    def session_of(request: Request):
        try:
            return sessions.get(request.path_params["sid"])
        except KeyError:
            raise BadRequest(
                "no such game session (it may have been dropped: at most "
                f"{sessions.limit} games are kept; start a new one)",
                404,
            ) from None

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def list_games(request: Request) -> Response:
        return JSONResponse(catalogue.listing())

    async def game_board(request: Request) -> Response:
        name = request.path_params["name"]
        return JSONResponse(await run_in_threadpool(catalogue.layout, name))

    async def new_session(request: Request) -> Response:
        data = await _body(request)
        session = await run_in_threadpool(
            sessions.new_game,
            data.get("game"),
            data.get("players"),
            data.get("seed", 0),
            data.get("seats"),
        )
        return JSONResponse(session.view(), status_code=201)

    async def show_session(request: Request) -> Response:
        session = session_of(request)
        at, since = _int_param(request, "at"), _int_param(request, "since")

        def view():
            with session.lock:
                return session.view(at, since or 0)

        return JSONResponse(await run_in_threadpool(view))

    async def act(request: Request) -> Response:
        session = session_of(request)
        data = await _body(request)
        since = _since(data)

        def apply():
            with session.lock:
                session.human_action(data.get("action"), data.get("at"))
                return session.view(None, min(since, len(session.moves)))

        return JSONResponse(await run_in_threadpool(apply))

    async def agent(request: Request) -> Response:
        session = session_of(request)
        data = await _body(request)
        steps = data.get("steps", 1)
        until_human = data.get("until_human", False)
        since = _since(data)
        if not _is_int(steps) or not 1 <= steps <= 20_000:
            raise BadRequest(f"steps: expected a whole number from 1 to 20000, got {steps!r}")
        if not isinstance(until_human, bool):
            raise BadRequest("until_human: expected true or false")

        def run():
            with session.lock:
                session.agent_steps(steps, until_human)
                return session.view(None, min(since, len(session.moves)))

        return JSONResponse(await run_in_threadpool(run))

    async def download_log(request: Request) -> Response:
        session = session_of(request)

        def text():
            with session.lock:
                return session.log_text()

        body = await run_in_threadpool(text)
        filename = f"{session.game.name}-seed{session.seed}.jsonl"
        return Response(
            body,
            media_type="application/x-ndjson; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="{filename}"'},
        )

    async def open_log(request: Request) -> Response:
        data = await _body(request)
        text = _text_field(data, "text")
        name = _text_field(data, "name", "uploaded.jsonl") or "uploaded.jsonl"
        session = await run_in_threadpool(sessions.open_log, text, name[:200])
        return JSONResponse(session.view(0), status_code=201)

    async def open_position(request: Request) -> Response:
        data = await _body(request)
        text = _text_field(data, "text")
        name = _text_field(data, "name", "uploaded.json") or "uploaded.json"
        session = await run_in_threadpool(
            sessions.open_position,
            text,
            name[:200],
            data.get("game"),
            data.get("players"),
            data.get("seats"),
        )
        return JSONResponse(session.view(), status_code=201)

    async def on_hansa_error(request: Request, exc: HansaError) -> Response:
        return _error(exc.format(getattr(exc, "sources", None)), 400)

    async def on_bad_request(request: Request, exc: BadRequest) -> Response:
        return _error(exc.message, exc.status)

    async def on_http_error(request: Request, exc: HTTPException) -> Response:
        return _error(str(exc.detail), exc.status_code)

    routes = [
        Route("/", index),
        Route("/api/games", list_games),
        Route("/api/games/{name}/board", game_board),
        Route("/api/sessions", new_session, methods=["POST"]),
        Route("/api/sessions/{sid}", show_session),
        Route("/api/sessions/{sid}/action", act, methods=["POST"]),
        Route("/api/sessions/{sid}/agent", agent, methods=["POST"]),
        Route("/api/sessions/{sid}/log", download_log),
        Route("/api/logs", open_log, methods=["POST"]),
        Route("/api/positions", open_position, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={
            HansaError: on_hansa_error,
            BadRequest: on_bad_request,
            HTTPException: on_http_error,
        },
    )
    app.state.catalogue = catalogue
    app.state.sessions = sessions
    return app


def _since(data: dict) -> int:
    """The `since` of a request that changes a game, checked before anything changes."""
    since = data.get("since", 0)
    if not _is_int(since) or since < 0:
        raise BadRequest(f"since: expected a whole number from 0, got {since!r}")
    return since


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
