"""`hansa serve`: the JSON API (starlette's TestClient), the board layout, the command itself.

Every endpoint is exercised with good and bad input; bad input must get a clear JSON error with
status 4xx and leave the game unchanged, and never an exception (the TestClient re-raises any).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from clock_support import HANG_GUARD
from clock_support import deadline as hang_deadline
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from hansa.play.simulate import make_agents, play_game  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

import hansa  # noqa: E402
from hansa.cli import main  # noqa: E402
from hansa.web.app import create_app  # noqa: E402
from hansa.web.board import board_layout  # noqa: E402
from hansa.web.redact import Redactor  # noqa: E402
from hansa.web.sessions import Catalogue, agent_names  # noqa: E402

GAME = "bigbox-hanseatic-3p"
BASE = "http://localhost"  # the test client's Host must be one the server answers to
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return Catalogue(ROOT / "spec")


@pytest.fixture(scope="module")
def client(catalogue) -> TestClient:
    return TestClient(create_app(catalogue), base_url=BASE)


def new_game(client, seats=("human", "greedy", "greedy"), seed=3, game=GAME, players=3) -> dict:
    response = client.post(
        "/api/sessions", json={"game": game, "players": players, "seed": seed, "seats": list(seats)}
    )
    assert response.status_code == 201, response.text
    return response.json()


def seat(view: dict, player: int) -> dict:
    """The headers of a request made with seat `player`'s link."""
    return {"x-hansa-token": view["tokens"]["seats"][str(player)]}


def host(view: dict) -> dict:
    return {"x-hansa-token": view["tokens"]["host"]}


def finish_with_agents(client, view: dict) -> dict:
    """Let the agents play until a human's decision or the end (asking again while they think),
    asked with the first human seat's link (the host's when only agents play)."""
    seats = view["tokens"]["seats"]
    headers = seat(view, int(min(seats, key=int))) if seats else host(view)
    while True:
        response = client.post(
            f"/api/sessions/{view['id']}/agent", json={"until_human": True}, headers=headers
        )
        assert response.status_code == 200, response.text
        after = response.json()
        if not after["agents"]["running"]:
            return after


# ---- catalogue and board
def test_catalogue_lists_built_and_spec_games_and_every_agent(client):
    data = client.get("/api/games").json()
    names = {g["name"] for g in data["games"]}
    assert set(hansa.available_games()) <= names
    assert "short-hanseatic-45p" in names  # the house rule of spec/house/
    entry = next(g for g in data["games"] if g["name"] == GAME)
    assert entry["players"] == [3] and entry["board"] == "hanseatic_3p"
    assert data["seats"][0] == "human" and {"greedy", "random"} <= set(data["seats"])
    assert data["seats"] == agent_names()
    assert data["problems"] == []


def test_catalogue_of_a_folder_without_spec_offers_the_built_games(tmp_path):
    catalogue = Catalogue(tmp_path)
    assert {e.source for e in catalogue.entries.values()} == {"built"}
    assert set(catalogue.entries) == set(hansa.available_games())


def test_catalogue_reports_spec_errors_and_keeps_the_built_games(tmp_path):
    (tmp_path / "broken.hansa").write_text("board oops {\n  city\n}\n", encoding="utf-8")
    catalogue = Catalogue(tmp_path)
    assert catalogue.problems and "broken.hansa:" in catalogue.problems[0]
    assert GAME in catalogue.entries


def test_a_spec_with_errors_keeps_the_built_games_and_reports_the_new_one(tmp_path):
    import shutil

    spec = tmp_path / "spec"
    shutil.copytree(ROOT / "spec", spec)
    (spec / "house" / "mine.hansa").write_text(
        "game mine-45p = no_such_rules on hanseatic_45p players 4..5\n", encoding="utf-8"
    )
    catalogue = Catalogue(spec)
    assert any("no_such_rules" in problem for problem in catalogue.problems)
    assert catalogue.entries[GAME].source == "built"
    client = TestClient(create_app(catalogue), base_url=BASE)
    assert new_game(client)["game"] == GAME
    if "mine-45p" in catalogue.entries:  # listed, but it cannot be compiled: the spec's error
        response = client.post(
            "/api/sessions",
            json={"game": "mine-45p", "players": 4, "seats": ["human"] * 4},
        )
        assert response.status_code == 400 and "no_such_rules" in response.json()["error"]


def test_board_layout_places_every_city_space_route_and_point(client, catalogue):
    data = client.get(f"/api/games/{GAME}/board").json()
    layout = data["layout"]
    ns = vars(catalogue.module(GAME))
    assert layout["layout_from"] == "spec"
    assert [c["name"] for c in layout["cities"]] == list(ns["CITY_NAMES"])
    space_ids = sorted(s["id"] for c in layout["cities"] for s in c["spaces"])
    assert space_ids == list(range(ns["N_SPACES"]))
    point_ids = sorted(p["id"] for r in layout["routes"] for p in r["points"])
    assert point_ids == list(range(ns["N_POINTS"]))
    x0, y0, w, h = layout["view_box"]
    for city in layout["cities"]:
        for space in city["spaces"]:
            assert x0 <= space["at"][0] <= x0 + w and y0 <= space["at"][1] <= y0 + h
    # a route's points run from its first city to its second: the first point is nearer it
    by_name = {c["name"]: c["centre"] for c in layout["cities"]}
    for route in layout["routes"]:
        a, b = (by_name[n] for n in route["cities"])
        first, last = route["points"][0]["at"], route["points"][-1]["at"]
        dist = lambda p, q: (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2  # noqa: E731
        assert dist(first, a) <= dist(last, a) and dist(last, b) <= dist(first, b)
    assert data["score_keys"] == list(ns["SCORE_KEYS"])
    assert layout["special_prestige"] is None or layout["special_prestige"]["spaces"]


def test_board_layout_without_the_spec_board_is_rebuilt_from_the_module(catalogue):
    module = catalogue.module(GAME)
    layout = board_layout(module, {})
    assert layout["layout_from"] == "module"
    assert len(layout["routes"]) == vars(module)["N_ROUTES"]
    assert "spring layout" in layout["note"]


def test_every_game_has_a_board_layout(client, catalogue):
    for name in catalogue.entries:
        response = client.get(f"/api/games/{name}/board")
        assert response.status_code == 200, (name, response.text)


# ---- playing
def test_a_human_decision_is_the_engines_decision(client, catalogue):
    view = new_game(client)
    game = catalogue.game(GAME, 3)
    state = game.new_initial_state(3)
    assert [a["id"] for a in view["legal"]] == state.legal_actions()
    assert view["state"] == state.observation(0)  # the seat's view, built on the server
    assert view["waiting_for"] == "human" and view["current_player"] == 0
    place = next(a for a in view["legal"] if a["target"] and a["target"]["type"] == "point")
    assert place["name"] == state.action_to_string(place["id"])
    response = client.post(
        f"/api/sessions/{view['id']}/action", json={"action": place["id"]}, headers=seat(view, 0)
    )
    assert response.status_code == 200
    after = response.json()
    state.apply_action(place["id"])
    assert after["state"] == state.observation(0)
    assert after["history"][-1] == {
        "n": 1,
        "player": 0,
        "action": place["id"],
        "name": place["name"],
        "target": place["target"],
    }


def test_an_illegal_action_is_refused_and_changes_nothing(client):
    view = new_game(client)
    sid = view["id"]
    legal = {a["id"] for a in view["legal"]}
    illegal = next(a for a in range(2000) if a not in legal)
    for action in (illegal, -1, 10**30, "3", 2.5, True, None, [1]):
        response = client.post(
            f"/api/sessions/{sid}/action", json={"action": action}, headers=seat(view, 0)
        )
        assert response.status_code == 400, (action, response.text)
        assert "illegal action" in response.json()["error"]
    assert client.get(f"/api/sessions/{sid}").json() == client.get(f"/api/sessions/{sid}").json()
    again = client.get(f"/api/sessions/{sid}", headers=seat(view, 0)).json()
    assert again["state"] == view["state"] and again["length"] == 0


def test_a_bad_field_beside_a_legal_action_changes_nothing(client):
    view = new_game(client)
    sid, action = view["id"], view["legal"][-1]["id"]
    for extra in ({"since": -1}, {"since": "x"}, {"at": 5}):
        response = client.post(
            f"/api/sessions/{sid}/action", json={"action": action, **extra}, headers=seat(view, 0)
        )
        assert response.status_code == 400, extra
    assert client.get(f"/api/sessions/{sid}").json()["length"] == 0


def test_a_stale_page_cannot_apply_a_decision_twice(client):
    view = new_game(client)
    sid, action = view["id"], view["legal"][-1]["id"]
    mine = seat(view, 0)
    body = {"action": action, "at": 0}
    assert client.post(f"/api/sessions/{sid}/action", json=body, headers=mine).is_success
    response = client.post(f"/api/sessions/{sid}/action", json=body, headers=mine)
    assert response.status_code == 400 and "moved on" in response.json()["error"]


def test_a_human_cannot_decide_for_an_agents_seat_and_vice_versa(client):
    view = new_game(client, seats=("greedy", "human", "human"))
    sid = view["id"]
    assert view["waiting_for"] == "agent" and view["legal"] == []  # not this seat's decision
    response = client.post(f"/api/sessions/{sid}/action", json={"action": 0}, headers=seat(view, 1))
    assert response.status_code == 400 and "greedy plays that seat" in response.json()["error"]
    view = new_game(client)
    response = client.post(
        f"/api/sessions/{view['id']}/agent", json={"steps": 1}, headers=host(view)
    )
    assert response.status_code == 400 and "a human plays it" in response.json()["error"]


def test_agents_play_the_same_game_as_hansa_play(client, catalogue):
    view = new_game(client, seats=("greedy", "random", "greedy"), seed=11)
    final = finish_with_agents(client, view)
    record, state = play_game(
        catalogue.game(GAME, 3), make_agents(["greedy", "random", "greedy"], 11), 11
    )
    assert final["terminal"] and final["length"] == record.decisions
    assert final["scores"]["totals"] == record.returns
    assert final["scores"]["winners"] == record.winners
    assert final["end_trigger"] == record.end_trigger and final["turns"] == record.turns
    assert final["state"] == state.to_dict() and final["seed"] == 11  # over: all revealed
    response = client.post(
        f"/api/sessions/{view['id']}/agent", json={"steps": 1}, headers=host(view)
    )
    assert response.status_code == 400 and "over" in response.json()["error"]


def test_a_house_rule_from_the_spec_is_played_to_the_end_by_a_human_seat(client, catalogue):
    """The human seat picks among the offered actions (seeded); greedy agents play the others."""
    import random

    house = "short-hanseatic-45p"
    assert catalogue.entries[house].source == "spec"
    view = new_game(client, seats=("human", "greedy", "greedy", "greedy"), game=house, players=4)
    sid, rng, human = view["id"], random.Random(1), 0
    created = view
    while not view["terminal"]:
        if view["waiting_for"] == "agent":
            view = finish_with_agents(client, created)
            continue
        choice = rng.choice(view["legal"])["id"]
        response = client.post(
            f"/api/sessions/{sid}/action",
            json={"action": choice, "since": view["length"]},
            headers=seat(created, 0),
        )
        assert response.status_code == 200, response.text
        view, human = response.json(), human + 1
        assert human < 3000
    assert view["end_trigger"] != "unfinished" and len(view["scores"]["totals"]) == 4
    track = max(p["track"] for p in view["state"]["player_state"])
    assert track >= 15 or view["end_trigger"] != "track_pp"  # the house rule's limit


def test_agents_step_one_at_a_time(client):
    created = new_game(client, seats=("greedy", "greedy", "greedy"))
    sid = created["id"]
    for n in range(1, 4):
        view = client.post(f"/api/sessions/{sid}/agent", json={"steps": 1}, headers=host(created))
        assert view.json()["length"] == n
    body = {"steps": 5, "since": 3}
    view = client.post(f"/api/sessions/{sid}/agent", json=body, headers=host(created)).json()
    assert view["length"] == 8 and [e["n"] for e in view["history"]] == [4, 5, 6, 7, 8]


def test_any_earlier_position_can_be_shown(client, catalogue):
    view = new_game(client, seats=("greedy",) * 3, seed=4)
    final = finish_with_agents(client, view)
    moves = [e["action"] for e in client.get(f"/api/sessions/{view['id']}").json()["history"]]
    assert len(moves) == final["length"]
    state = catalogue.game(GAME, 3).new_initial_state(4)
    for k in (0, 1, 63, 64, 65, 200, len(moves) - 1):
        position = catalogue.game(GAME, 3).new_initial_state(4)
        for a in moves[:k]:
            position.apply_action(a)
        shown = client.get(f"/api/sessions/{view['id']}?at={k}").json()
        assert shown["state"] == position.to_dict() and shown["at"] == k
        assert shown["legal"] == []  # only the latest position is played on
    del state


def test_the_score_breakdown_is_shown_at_any_point(client, catalogue):
    """In a game without secret score categories the whole scoring is public at any point."""
    created = new_game(client, seats=("greedy",) * 3, seed=2)
    sid = created["id"]
    view = client.post(f"/api/sessions/{sid}/agent", json={"steps": 120}, headers=host(created))
    view = view.json()
    state = client.app.state.sessions.get(sid).state
    assert view["scores"]["breakdown"] == state.score_breakdown() and view["scores"]["hidden"] == []
    assert view["scores"]["winners"] == state.winners() and view["scores"]["final"] is False


# ---- logs
def test_the_log_of_a_page_game_is_accepted_by_hansa_replay(client, tmp_path, capsys):
    created = new_game(client, seats=("human", "greedy", "greedy"), seed=5)
    sid, mine = created["id"], seat(created, 0)
    view = created
    while not view["terminal"]:
        if view["waiting_for"] == "human":
            assert client.get(f"/api/sessions/{sid}/log", headers=mine).status_code == 403
            pick = view["legal"][len(view["legal"]) // 2]["id"]
            body = {"action": pick, "since": view["length"]}
            view = client.post(f"/api/sessions/{sid}/action", json=body, headers=mine).json()
        else:
            view = finish_with_agents(client, created)
    response = client.get(f"/api/sessions/{sid}/log", headers=mine)
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    path = tmp_path / "page.jsonl"
    path.write_text(response.text, encoding="utf-8")
    header = json.loads(response.text.splitlines()[0])
    assert header["agents"] == ["human", "greedy", "greedy"] and header["seed"] == 5
    assert main(["replay", str(path)]) == 0, capsys.readouterr().err
    assert "ok," in capsys.readouterr().out


def test_a_finished_page_game_log_replays_with_its_final_scores(client, tmp_path, capsys):
    view = new_game(client, seats=("greedy",) * 3, seed=8)
    finish_with_agents(client, view)
    path = tmp_path / "done.jsonl"
    path.write_text(client.get(f"/api/sessions/{view['id']}/log").text, encoding="utf-8")
    assert main(["replay", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["finished"] is True and result["verified"] is True


def play_log(tmp_path, seed=6) -> Path:
    path = tmp_path / "cli.jsonl"
    assert main(["play", GAME, "--seed", str(seed), "--log", str(path)]) == 0
    return path


def test_a_cli_log_opens_for_stepping_through(client, tmp_path, capsys, catalogue):
    path = play_log(tmp_path)
    capsys.readouterr()
    text = path.read_text(encoding="utf-8")
    response = client.post("/api/logs", json={"name": "cli.jsonl", "text": text})
    assert response.status_code == 201, response.text
    view = response.json()
    decisions = [json.loads(line) for line in text.splitlines()[1:-1]]
    assert view["mode"] == "replay" and view["at"] == 0 and view["length"] == len(decisions)
    assert [e["name"] for e in view["history"]] == [d["name"] for d in decisions]
    assert [e["action"] for e in view["history"]] == [d["action"] for d in decisions]
    assert view["seats"] == ["greedy"] * 3 and view["legal"] == []
    state = catalogue.game(GAME, 3).new_initial_state(6)
    for d in decisions[:10]:
        state.apply_action(d["action"])
    # a log the user opened shows everything
    assert client.get(f"/api/sessions/{view['id']}?at=10").json()["state"] == state.to_dict()
    last = client.get(f"/api/sessions/{view['id']}").json()
    assert last["terminal"] and last["state"] == json.loads(text.splitlines()[-1])["final_state"]
    response = client.post(
        f"/api/sessions/{view['id']}/agent", json={"steps": 1}, headers=host(view)
    )
    assert response.status_code == 400 and "cannot be played on" in response.json()["error"]


def cli_error(capsys, argv) -> str:
    capsys.readouterr()
    assert main(argv) == 1
    return capsys.readouterr().err.strip()


@pytest.mark.parametrize(
    "mangle",
    [
        lambda lines: lines[:-1],  # no footer
        lambda lines: [lines[0], "{not json", *lines[1:]],
        lambda lines: [lines[0], lines[1].replace('"action": ', '"action": 9999'), *lines[2:]],
        lambda lines: lines[1:],  # no header
        lambda lines: [],
        lambda lines: [*lines[:-1], lines[-1].replace('"finished": true', '"finished": false')],
    ],
)
def test_a_malformed_log_is_refused_with_the_cli_message(client, tmp_path, capsys, mangle):
    lines = play_log(tmp_path).read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(mangle(lines)) + "\n", encoding="utf-8")
    expected = cli_error(capsys, ["replay", str(bad)])
    before = len(client.app.state.sessions.items)
    text = bad.read_text(encoding="utf-8")
    response = client.post("/api/logs", json={"name": str(bad), "text": text})
    assert response.status_code == 400
    # the same message, but no answer names a path of the server's disk (test_serve_safety.py)
    assert response.json()["error"] == Redactor([ROOT / "spec"])(expected)
    assert len(client.app.state.sessions.items) == before


# ---- positions
def test_a_state_json_opens_and_plays_on(client, catalogue):
    game = catalogue.game(GAME, 3)
    state = game.new_initial_state(9)
    for _ in range(30):
        state.apply_action(state.legal_actions()[-1])
    response = client.post(
        "/api/positions",
        json={"name": "pos.json", "text": state.to_json(), "seats": ["greedy"] * 3},
    )
    assert response.status_code == 201, response.text
    view = response.json()
    assert view["mode"] == "position" and view["state"]["routes"] == state.to_dict()["routes"]
    assert "marker_supply" not in view["state"]  # still hidden: the game goes on
    assert view["can_download_log"] is False
    final = finish_with_agents(client, view)
    assert final["terminal"]
    response = client.get(f"/api/sessions/{view['id']}/log")
    assert response.status_code == 400 and "no log" in response.json()["error"]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "[1, 2]",
        '{"format": "hansa-state"}',
        '{"game": "nope", "players": 3}',
        '{"game": "bigbox-hanseatic-3p", "players": 4}',
        '{"game": "bigbox-hanseatic-3p", "players": 3, "format": "hansa-state", "version": 1}',
        '{"a": 1}\n{"b": 2}',
    ],
)
def test_a_malformed_state_is_refused_with_the_cli_message(client, tmp_path, capsys, text):
    path = tmp_path / "state.json"
    path.write_text(text, encoding="utf-8")
    expected = cli_error(capsys, ["score", str(path), "--spec", str(ROOT / "spec")])
    response = client.post("/api/positions", json={"name": str(path), "text": text})
    assert response.status_code == 400
    # the same message, but no answer names a path of the server's disk (test_serve_safety.py)
    assert response.json()["error"] == Redactor([ROOT / "spec"])(expected)


# ---- sessions
def test_at_most_max_sessions_games_are_kept(catalogue):
    client = TestClient(create_app(catalogue, max_sessions=3), base_url=BASE)
    ids = [new_game(client)["id"] for _ in range(4)]
    assert client.get(f"/api/sessions/{ids[0]}").status_code == 404
    assert "no such game session" in client.get(f"/api/sessions/{ids[0]}").json()["error"]
    for sid in ids[1:]:
        assert client.get(f"/api/sessions/{sid}").status_code == 200


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "app.js" in page.text
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/static/../app.py").status_code == 404


# ---- garbage at every endpoint
GARBAGE_BODIES = [
    b"",
    b"not json",
    b"[]",
    b"[1, 2, 3]",
    b"null",
    b"42",
    b'"text"',
    b"\xff\xfe\x00",
    b"[" * 5000 + b"]" * 5000,
    b'{"game": null, "players": null, "seed": null, "seats": null}',
    b'{"game": 1, "players": "3", "seed": -1, "seats": "human"}',
    b'{"game": "bigbox-hanseatic-3p", "players": 3, "seed": 1e400, "seats": [1, 2, 3]}',
    b'{"game": "bigbox-hanseatic-3p", "players": 99, "seats": []}',
    b'{"game": "bigbox-hanseatic-3p", "players": true, "seats": ["human"]}',
    b'{"game": "bigbox-hanseatic-3p", "players": 3, "seed": 18446744073709551617, '
    b'"seats": ["human", "human", "robot"]}',
    b'{"action": {"a": 1}, "at": "x", "since": -5, "steps": 0, "until_human": "yes"}',
    b'{"steps": 10000000}',
    b'{"steps": 1, "since": 99999}',
    b'{"text": 5, "name": []}',
    b'{"text": "\\u0000\\u0000", "name": "x"}',
    b'{"text": "{}", "name": "x", "game": "bigbox-hanseatic-3p", "players": 3, "seats": 5}',
]
GARBAGE_QUERIES = ["", "?at=-1", "?at=abc", "?at=99999999999999999999", "?since=-3", "?at=1.5"]


def endpoints(sid: str) -> list[tuple[str, str]]:
    return [
        ("POST", "/api/sessions"),
        ("POST", f"/api/sessions/{sid}/action"),
        ("POST", f"/api/sessions/{sid}/agent"),
        ("POST", "/api/logs"),
        ("POST", "/api/positions"),
        ("POST", "/api/sessions/nope/action"),
        ("POST", "/api/sessions/nope/agent"),
        ("GET", f"/api/sessions/{sid}"),
        ("GET", f"/api/sessions/{sid}/log"),
        ("GET", f"/api/sessions/{sid}/events"),
        ("GET", "/api/sessions/nope"),
        ("GET", "/api/sessions/nope/log"),
        ("GET", "/api/games/nope/board"),
        ("GET", "/api/games/%00/board"),
        ("GET", "/api/nothing"),
        ("DELETE", "/api/games"),
        ("PUT", f"/api/sessions/{sid}"),
    ]


def test_garbage_at_every_endpoint_gets_a_clear_error_and_changes_nothing(client):
    view = new_game(client)
    sid = view["id"]
    for method, url in endpoints(sid):
        for body in GARBAGE_BODIES:
            for query in GARBAGE_QUERIES[:2] if method == "POST" else GARBAGE_QUERIES:
                if url.endswith("/events"):
                    query += "&for=0" if query else "?for=0"  # the stream ends at once
                response = client.request(
                    method, url + query, content=body, headers={"content-type": "application/json"}
                )
                assert response.status_code < 500, (method, url, body[:60], response.text)
                if response.status_code >= 400:
                    assert response.json()["error"], (method, url, body[:60])
    after = client.get(f"/api/sessions/{sid}", headers=seat(view, 0)).json()
    assert after["state"] == view["state"] and after["length"] == 0


def test_an_oversized_body_is_refused(client):
    headers = {"content-length": str(10**12), "content-type": "application/json"}
    response = client.post("/api/logs", content=b" " * 10, headers=headers)
    assert response.status_code == 413 and "too large" in response.json()["error"]


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = ["game", "players", "seed", "seats", "action", "at", "since", "steps", "until_human"]
FIELDS += ["text", "name"]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.dictionaries(st.sampled_from(FIELDS), JSON_VALUES, max_size=6), st.integers(0, 4))
def test_random_json_fields_never_crash_the_server(client, data, which):
    view = client.app.state.sessions
    sid = next(reversed(view.items)) if view.items else "none"
    url = [
        "/api/sessions",
        f"/api/sessions/{sid}/action",
        f"/api/sessions/{sid}/agent",
        "/api/logs",
        "/api/positions",
    ][which]
    if which == 2:
        data.pop("until_human", None)  # a whole game per example would be slow, not wrong
        data["steps"] = 1
    response = client.post(url, json=data)
    assert response.status_code < 500, response.text


# ---- the command
def test_serve_without_the_web_extra_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn now raises ImportError
    assert main(["serve"]) == 1
    err = capsys.readouterr().err
    assert "pip install -e '.[web]'" in err and "Traceback" not in err


def test_the_core_needs_no_web_framework():
    code = (
        "import sys; sys.modules['starlette'] = None; sys.modules['uvicorn'] = None\n"
        "import hansa, hansa.cli\n"
        "hansa.cli.build_parser()\n"
        "g = hansa.load_game('bigbox-hanseatic-3p'); g.new_initial_state(0)\n"
        "print('ok')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_serve_refuses_a_busy_port_and_a_missing_spec_folder(capsys, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port), "--spec", str(tmp_path)]) == 1
        assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    assert main(["serve", "--spec", str(tmp_path / "missing")]) == 1
    assert "no such folder" in capsys.readouterr().err
    assert main(["serve", "--port", "70000"]) == 1
    assert "--port" in capsys.readouterr().err


def test_hansa_serve_prints_its_url_and_answers_there():
    process = subprocess.Popen(
        [sys.executable, "-m", "hansa", "serve", "--port", "0", "--no-store"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("hansa serve: http://127.0.0.1:"), line + process.stderr.read()
        url = line.split()[2]
        deadline = hang_deadline()
        while True:
            try:
                with urllib.request.urlopen(url + "api/games", timeout=HANG_GUARD) as response:
                    games = json.loads(response.read())
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        assert GAME in {g["name"] for g in games["games"]}
    finally:
        process.terminate()
        process.wait(timeout=HANG_GUARD)
        process.stdout.close()
        process.stderr.close()
