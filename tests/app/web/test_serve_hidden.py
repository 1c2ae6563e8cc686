"""`hansa serve` keeps hidden information hidden: a seat's responses never depend on what it cannot
see (the face-down marker order, the other players' mission cards, the seed).

The property, for every built game (each hides at least the marker order): two servers hold a
session of the same game with the same id and tokens, differing only in what one seat (the
viewer) cannot see; the same requests, made at every decision of a whole game, get byte-identical
answers for that seat, until the game is over. The twin's hidden information is drawn again from
the viewer's side at every decision (`resample_hidden`: the other players' cards and the marker
order), keeping only the markers that decision draws, so both games go the same way in public.
At every decision the view and the answer to the viewer's own decision are compared (the bytes
the endpoints send, from the functions they call); every STRIDE-th decision every endpoint is
asked through HTTP (the ASGI application in-process, httpx's ASGI transport), for the seat and a
spectator, and a twin rebuilt from a fresh shuffle of the whole game is compared too, also at an
earlier decision.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import random
from pathlib import Path

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx2")

from hansa.play.greedy import GreedyAgent  # noqa: E402
from starlette.responses import JSONResponse  # noqa: E402

import hansa  # noqa: E402
from hansa.web.access import SEAT, SPECTATOR, Viewer  # noqa: E402
from hansa.web.app import create_app  # noqa: E402
from hansa.web.sessions import HUMAN, Catalogue, Session  # noqa: E402
from hansa.web.views import session_view  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GAMES = sorted(hansa.available_games())
STRIDE = 20  # every STRIDE-th decision through HTTP and every endpoint; a fresh twin every 2nd


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return Catalogue(None)  # the built games (no spec folder to compile)


class Server:
    """One application and an in-process client for it."""

    def __init__(self, catalogue: Catalogue) -> None:
        counter = itertools.count(1)
        # the same ids and tokens in every server: n-th token made = the same text
        self.app = create_app(catalogue, token=lambda: f"{next(counter):016x}{'t' * 16}")
        transport = httpx.ASGITransport(app=self.app)
        self.client = httpx.AsyncClient(transport=transport, base_url="http://localhost")

    async def request(self, method: str, url: str, token: str | None = None, body=None):
        headers = {"x-hansa-token": token} if token else {}
        response = await self.client.request(method, url, json=body, headers=headers)
        return response.status_code, response.content

    async def close(self) -> None:
        await self.client.aclose()


def run(coroutine) -> None:
    """Run a test's requests in one event loop task (anyio keeps its worker threads for it)."""
    asyncio.run(coroutine)


def greedy_game(game, state) -> list[int]:
    """The decisions of a whole game of greedy agents from `state` (one agent per seat)."""
    state = state.clone()
    agents = [GreedyAgent(seed=p) for p in range(game.num_players())]
    moves = []
    while not state.is_terminal():
        action = agents[state.current_player()].step(state, state.legal_actions())
        state.apply_action(action)
        moves.append(action)
    return moves


def supply_sizes(state, moves: list[int]) -> list[int]:
    """The number of face-down markers before each of `moves` and after the last."""
    state = state.clone()
    sizes = [state.observation(0)["marker_supply_size"]]
    for action in moves:
        state.apply_action(action)
        sizes.append(state.observation(0)["marker_supply_size"])
    return sizes


def twin_of(game, state, viewer: int, keep: int, rng: random.Random):
    """`state` with what `viewer` cannot see drawn again: the other players' secret cards dealt
    anew, the face-down markers after the first `keep` shuffled (after a marker display's
    face-up ones and `keep` more: a marker taken from the display turns the next one up)."""
    other = state.clone()
    other.resample_hidden(rng, viewer)
    if keep <= 0:  # the decision draws nothing (or puts drawn markers back: `draw N keep 1`)
        return other
    data = other.to_dict()
    supply = state.to_dict()["marker_supply"]
    keep += len(state.to_dict().get("marker_display", []))
    rest = supply[keep:]
    rng.shuffle(rest)
    data["marker_supply"] = supply[:keep] + rest
    return game.state_from_json(data)


def add_twin(server: Server, original: Session, initial, moves: list[int]) -> Session:
    """A session like `original` (id, tokens, seats) from another initial position."""
    twin = Session(
        id=original.id,
        game=original.game,
        mode=original.mode,
        seed=original.seed + 1,  # a seed that never made it: the seed must not be shown
        seats=list(original.seats),
        initial=initial,
        tokens=dict(original.tokens),
    )
    for action in moves:
        twin._apply(twin.state.current_player(), action)
    return server.app.state.sessions.add(twin)


def tokens_by_viewer(session: Session) -> dict[Viewer, str]:
    return {viewer: token for token, viewer in session.tokens.items()}


async def same(a: Server, b: Server, method: str, url: str, token: str | None, body=None) -> int:
    """Both servers answer the request byte for byte the same; its status."""
    first = await a.request(method, url, token, body)
    second = await b.request(method, url, token, body)
    assert first == second, (method, url, body, first[1][:300], second[1][:300])
    return first[0]


async def other_endpoints(a: Server, b: Server, sid: str, token: str, at: int, length: int):
    """The endpoints that change less often than each decision, asked of both servers."""
    base = f"/api/sessions/{sid}"
    await same(a, b, "GET", f"{base}?at={at}&since=0", token)
    assert await same(a, b, "GET", f"{base}/log", token) == 403  # the log holds the seed
    await same(a, b, "GET", f"{base}/events?for=0", token)
    await same(a, b, "POST", f"{base}/agent", token, {"steps": 1})  # a human's decision: refused
    await same(a, b, "POST", f"{base}/action", token, {"action": -1, "since": length})
    await same(a, b, "POST", f"{base}/action", token, {"action": 10**9, "at": length})


def view_bytes(session: Session, viewer: Viewer, since: int) -> bytes:
    """The body `GET /api/sessions/{id}?since=…` answers `viewer` (the endpoint's own calls)."""
    with session.lock:
        return JSONResponse(session_view(session, viewer, None, since)).body


def decide_bytes(session: Session, viewer: Viewer, action: int, at: int) -> bytes:
    """The body `POST …/action` answers (the endpoint's own calls)."""
    with session.lock:
        session.human_action(viewer, action, at)
        return JSONResponse(session_view(session, viewer, None, at)).body


def set_position(twin: Session, original: Session, state) -> None:
    """Make `twin` the session `original` is now, with the position `state` (which differs from
    the original's only in hidden information)."""
    twin.state = state
    twin.moves = list(original.moves)
    twin.snapshots = dict(original.snapshots)  # earlier positions: fresh_twin_agrees checks those
    twin.tracker = copy.copy(original.tracker)
    twin.version = original.version
    twin.open_at = (None, False)
    # undo_size's facts of the earlier positions (the original's: the twin shares its
    # snapshots); those of the position now are worked out from the twin's own
    twin.turn_facts = {n: f for n, f in original.turn_facts.items() if n < len(original.moves)}


@pytest.mark.parametrize("name", GAMES)
def test_a_seats_answers_never_depend_on_what_it_cannot_see(catalogue, name):
    run(whole_game_twins(catalogue, name))


async def whole_game_twins(catalogue: Catalogue, name: str) -> None:
    game = catalogue.game(name)
    players = game.num_players()
    a, b = Server(catalogue), Server(catalogue)
    body = {"game": name, "seed": 5, "seats": [HUMAN] * players}
    assert (await a.request("POST", "/api/sessions", body=body))[0] == 201
    original = next(iter(a.app.state.sessions.items.values()))
    twin = add_twin(b, original, original.initial, [])
    moves = greedy_game(game, original.initial)
    viewer = GAMES.index(name) % players  # a different seat in different games
    rng = random.Random(name)
    tokens = tokens_by_viewer(original)
    mine, spectator = tokens[Viewer(SEAT, viewer)], tokens[Viewer(SPECTATOR)]
    sid = original.id
    differed = 0
    sizes = supply_sizes(original.initial, moves)
    me = Viewer(SEAT, viewer)
    for k, action in enumerate(moves):
        # the twin: everything the viewer cannot see drawn again, but the markers this decision
        # draws (so that the answer to it is the same in public)
        state = twin_of(game, original.state, viewer, sizes[k] - sizes[k + 1], rng)
        set_position(twin, original, state)
        since = max(k - 1, 0)
        http = k % STRIDE == 0  # else the endpoint's own functions, called directly (cheaper)
        if http:
            differed += state.to_dict() != original.state.to_dict()
            await same(a, b, "GET", f"/api/sessions/{sid}?since={since}", mine)
            await same(a, b, "GET", f"/api/sessions/{sid}?since={since}", spectator)
            await other_endpoints(a, b, sid, mine, k // 2, k)
            # A replay from a reshuffled start cannot follow `draw N keep 1`: the markers drawn
            # and put back are more than the supply lost, and go back at positions seeded by the
            # state, so the twin would draw others (the per-decision twins above cover it).
            if k % (2 * STRIDE) == 0 and "F_KEEP" not in vars(game.module):
                keep = sizes[0] - sizes[k]  # drawn so far
                await fresh_twin_agrees(catalogue, original, viewer, moves[:k], keep, mine)
        else:
            assert view_bytes(original, me, since) == view_bytes(twin, me, since), k
        last = k == len(moves) - 1  # its answer shows everything: the game is over
        if original.state.current_player() == viewer and not last:
            body = {"action": action, "at": k, "since": k}
            if http:
                assert await same(a, b, "POST", f"/api/sessions/{sid}/action", mine, body) == 200
            else:
                assert decide_bytes(original, me, action, k) == decide_bytes(twin, me, action, k)
        else:  # another seat decides (its own secrets differ in the twin)
            with original.lock:
                original._apply(original.state.current_player(), action)
                original.changed()
    assert original.state.is_terminal()
    assert differed > len(moves) // STRIDE // 2  # the twins did hide something else
    status, text = await a.request("GET", f"/api/sessions/{sid}/log", mine)  # over: all shown
    assert status == 200 and b'"seed": 5' in text
    await a.close()
    await b.close()


async def fresh_twin_agrees(catalogue, original: Session, viewer, moves, keep, token) -> None:
    """At this decision, a twin whose every marker not yet drawn (and every card the viewer
    cannot see) is drawn again shows the viewer the same, now and at an earlier decision."""
    game = original.game
    a, b = Server(catalogue), Server(catalogue)
    rng = random.Random(len(moves))
    add_twin(a, original, original.initial, moves)
    add_twin(b, original, twin_of(game, original.initial, viewer, keep, rng), moves)
    sid = original.id
    await same(a, b, "GET", f"/api/sessions/{sid}?since=0", token)
    await same(a, b, "GET", f"/api/sessions/{sid}?at={len(moves) // 2}", token)
    await a.close()
    await b.close()


def test_a_new_games_answer_does_not_show_its_seed(catalogue):
    """Two seeds that deal the same public setup and the same card to seat 0: the creator's
    answers are byte-identical (the seed, which decides every draw, is not in them)."""
    name = "bigbox-hanseatic-3p-missions"
    game = catalogue.game(name)
    seen = {}
    for seed in range(5000):
        key = game.new_initial_state(seed).information_state_string(0)
        if key in seen:
            first, second = seen[key], seed
            break
        seen[key] = seed
    else:
        pytest.fail("no two seeds with the same setup for seat 0")
    assert game.new_initial_state(first).to_dict() != game.new_initial_state(second).to_dict()

    async def answers():
        out = []
        for seed in (first, second):
            server = Server(catalogue)
            body = {"game": name, "seed": seed, "seats": ["human", "greedy", "greedy"]}
            out.append(await server.request("POST", "/api/sessions", body=body))
            await server.close()
        assert out[0] == out[1] and out[0][0] == 201

    run(answers())


def test_opponents_mission_points_are_hidden_until_the_end(catalogue):
    run(mission_points_hidden(catalogue))


async def mission_points_hidden(catalogue: Catalogue) -> None:
    server = Server(catalogue)
    body = {
        "game": "bigbox-hanseatic-3p-missions",
        "seed": 3,
        "seats": ["human", "greedy", "greedy"],
    }
    await server.request("POST", "/api/sessions", body=body)
    session = next(iter(server.app.state.sessions.items.values()))
    tokens = tokens_by_viewer(session)
    url = f"/api/sessions/{session.id}"

    async def view(viewer: Viewer) -> dict:
        status, text = await server.request("GET", url, tokens[viewer])
        assert status == 200
        return json.loads(text)

    moves = greedy_game(session.game, session.initial)
    for n, action in enumerate(moves):
        session._apply(session.state.current_player(), action)
        if n not in (len(moves) // 2, len(moves) - 2):
            continue
        mine = await view(Viewer(SEAT, 0))
        truth = session.state.score_breakdown()
        scores = mine["scores"]
        assert scores["hidden"] == ["M"] and scores["winners"] is None
        assert scores["breakdown"][0] == truth[0]  # my own mission points
        assert scores["totals"][0] == sum(truth[0].values())
        for p in (1, 2):
            assert scores["breakdown"][p]["M"] is None and scores["totals"][p] is None
            assert scores["known"][p] == sum(truth[p].values()) - truth[p]["M"]
        assert set(mine["state"]["own"]) == {"mission", "mission_cities"}
        assert all("mission" not in ps for ps in mine["state"]["player_state"])
        assert "marker_supply" not in mine["state"] and mine["seed"] is None
        public = await view(Viewer(SPECTATOR))
        assert public["state"]["own"] == {} and public["scores"]["totals"] == [None] * 3
    session.changed()
    final = await view(Viewer(SPECTATOR))
    assert final["terminal"] and final["revealed"] and final["seed"] == 3
    assert final["scores"]["breakdown"] == session.state.score_breakdown()
    assert final["state"] == session.state.to_dict()
    await server.close()
