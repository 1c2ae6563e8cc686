"""`hansa serve`'s table: what the page is given to draw the printed game, and taking a decision
back (starlette's TestClient; the page itself is driven in tests/app/web/test_serve_browser.py).

Everything the desks and the board show comes from the module's tables and the spec's board (so a
house rule's new marker or category is named as its spec names it); undo takes back only the
seat's own last decision of the turn being played, while it revealed nothing hidden, and the
stored game forgets it too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

import hansa  # noqa: E402
from hansa.web.app import create_app  # noqa: E402
from hansa.web.sessions import (  # noqa: E402
    Catalogue,
    Sessions,
    action_kind,
    action_target,
    turn_player,
)

ROOT = Path(__file__).resolve().parents[3]
BASE = "http://localhost"  # a Host the server answers to


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return Catalogue(ROOT / "spec")


def seat(view: dict, player: int) -> dict:
    return {"x-hansa-token": view["tokens"]["seats"][str(player)]}


def test_every_action_has_its_kind_and_a_kind_without_ids_takes_none(catalogue):
    for name in ("bigbox-britannia-3p", "bigbox-eastern", "original-hanseatic-2p"):
        module = catalogue.module(name)
        ranges = [(kind.lower(), base, size) for kind, base, size in module.ACTION_RANGES]
        for kind, base, size in ranges:
            for action in (base, base + size - 1) if size else ():
                assert action_kind(module, action) == kind, (name, action)
    britannia = catalogue.module("bigbox-britannia-3p")
    # REMOVE has no ids there and shares its base with ESTABLISH: the action is a city's
    establish = britannia.A_ESTABLISH
    assert action_target(britannia, establish) == {
        "type": "city",
        "index": 0,
        "piece": "t",
        "kind": "establish",
    }
    assert action_target(britannia, britannia.A_COUNTRY_PLACE)["type"] == "point"


def test_the_rules_name_what_the_desks_show_as_the_module_names_it(catalogue):
    rules = catalogue.layout("bigbox-hanseatic-3p-favour")
    module = catalogue.module("bigbox-hanseatic-3p-favour")
    assert [a["name"] for a in rules["abilities"]] == list(module.ABILITY_NAMES)
    assert [a["piece"] for a in rules["abilities"]] == ["tm"[k] for k in module.ABILITY_KIND]
    assert rules["markers"] == dict(zip(module.MARKER_KEYS, module.MARKER_LABELS, strict=True))
    assert rules["favour_tiles"] == list(module.FAVOUR_NAMES)
    # the values a tile changes, as its rule in words names them (`your city pp becomes 4`)
    spec = (ROOT / "spec" / "modules" / "emperors_favour.hansa").read_text(encoding="utf-8")
    named = {x["label"]: x for x in rules["parameters"]}
    for said in re.findall(r"your ([a-z ]+?) becomes", spec):
        assert said in named, said
    keys = [x["key"] for x in rules["parameters"]]
    assert keys == list(module.X_PARAM_NAMES)
    assert [x["default"] for x in rules["parameters"]] == list(module.X_PARAM_DEFAULTS)
    assert catalogue.layout("bigbox-hanseatic-3p")["parameters"] == []
    two = catalogue.layout("original-hanseatic-2p")
    assert len(two["regions"]) == catalogue.module("original-hanseatic-2p").N_REGIONS
    assert all(r["routes"] for r in two["regions"])
    # each region's outline walks between cities a route or a soldier joins, around its routes
    names = catalogue.module("original-hanseatic-2p").CITY_NAMES
    routes = {frozenset(r["cities"]): r["index"] for r in two["layout"]["routes"]}
    for region in two["regions"]:
        walked = {
            routes.get(frozenset((names[a], names[b])))
            for walk in region["outline"]
            for a, b in zip(walk, walk[1:] + walk[:1], strict=True)
        }
        assert walked - {None} == set(region["routes"]), region["label"]
    assert rules["regions"] == []


def test_britannias_countries_permissions_and_permanent_markers_are_on_the_layout(catalogue):
    layout = catalogue.layout("bigbox-britannia-3p")["layout"]
    assert set(layout["country_colours"]) == {"england", "wales"}
    granting = {c["name"]: c["permissions"] for c in layout["cities"] if c["permissions"]}
    module = catalogue.module("bigbox-britannia-3p")
    assert set(granting) == {module.CITY_NAMES[c] for c, _bits in module.PERMISSION_CITIES}
    countries = {r["country"] for r in layout["routes"]}
    assert countries == {"england", "wales"}
    permanent = {r["permanent"] for r in layout["routes"] if r["permanent"]}
    assert permanent == set(module.PERMANENT_NAMES)
    eastern = catalogue.layout("bigbox-eastern")["layout"]
    green = [c["name"] for c in eastern["cities"] if not c["hanseatic"]]
    assert sorted(green) == ["Belgard", "Dresden", "Waren"]


def play_until_undoable(client, created: dict, tries: int = 200) -> tuple[dict, int]:
    """Decisions of the seat to play (the last choice that neither ends the turn nor creates a
    route) until one may be taken back: the view after it and the seat that made it."""
    sid = created["id"]
    view = created
    for _ in range(tries):
        player = view["current_player"]
        mine = seat(created, player)
        legal = client.get(f"/api/sessions/{sid}", headers=mine).json()["legal"]
        choices = [a for a in legal if a["kind"] not in ("end_turn", "create")] or legal
        view = client.post(
            f"/api/sessions/{sid}/action", json={"action": choices[-1]["id"]}, headers=mine
        ).json()
        if view["can_undo"]:
            return view, player
    raise AssertionError("no decision could be taken back")


def test_undo_takes_back_the_own_last_decision_of_the_turn(catalogue, tmp_path):
    from hansa.web.store import Store

    store = Store(tmp_path / "games.sqlite")
    client = TestClient(create_app(catalogue, store=store), base_url=BASE)
    created = client.post(
        "/api/sessions",
        json={"game": "bigbox-hanseatic-3p", "players": 3, "seats": ["human"] * 3, "seed": 3},
    ).json()
    sid = created["id"]
    for p in range(3):  # nothing made yet
        view = client.get(f"/api/sessions/{sid}", headers=seat(created, p)).json()
        assert view["can_undo"] is False
    after, player = play_until_undoable(client, created)
    mine, other = seat(created, player), seat(created, (player + 1) % 3)
    assert client.get(f"/api/sessions/{sid}", headers=other).json()["can_undo"] is False
    length = after["length"]
    last = client.app.state.sessions.get(sid).moves[-1][1]
    # another seat's link may not take it back, nor a stale page
    assert client.post(f"/api/sessions/{sid}/undo", json={}, headers=other).status_code == 400
    stale = client.post(f"/api/sessions/{sid}/undo", json={"at": length - 1}, headers=mine)
    assert stale.status_code == 400
    undone = client.post(f"/api/sessions/{sid}/undo", json={"at": length}, headers=mine).json()
    assert undone["length"] == length - 1
    truth = hansa.load_game("bigbox-hanseatic-3p", 3)
    session = client.app.state.sessions.get(sid)
    state = session.initial.clone()
    for _player, action in session.moves:
        state.apply_action(action)
    assert state.to_json() == session.state.to_json()
    assert undone["state"] == session.state.observation(player)
    assert truth.name == undone["game"]
    # two decisions of one turn are taken back one after the other
    again = client.post(f"/api/sessions/{sid}/action", json={"action": last}, headers=mine).json()
    assert again["can_undo"] and again["length"] == length
    more = [a for a in client.get(f"/api/sessions/{sid}", headers=mine).json()["legal"]]
    more = [a for a in more if a["kind"] not in ("end_turn", "create")]
    assert more and again["current_player"] == player  # seed 3: the turn goes on
    second = client.post(
        f"/api/sessions/{sid}/action", json={"action": more[-1]["id"]}, headers=mine
    ).json()
    assert second["can_undo"]
    for expected in (length, length - 1):
        back = client.post(f"/api/sessions/{sid}/undo", json={}, headers=mine).json()
        assert back["length"] == expected
    # the store forgot it: a server started again plays the game on from there
    reopened = Sessions(catalogue, store=Store(tmp_path / "games.sqlite"))
    assert reopened.get(sid).moves == session.moves


def test_a_decision_that_drew_a_hidden_marker_cannot_be_taken_back(catalogue):
    from hansa.play.simulate import make_agent

    client = TestClient(create_app(catalogue), base_url=BASE)
    created = client.post(
        "/api/sessions",
        json={"game": "bigbox-hanseatic-3p", "players": 3, "seats": ["human"] * 3, "seed": 4},
    ).json()
    sid = created["id"]
    session = client.app.state.sessions.get(sid)
    greedy = make_agent("greedy", 4)
    for _ in range(500):  # the greedy agent's decisions until one draws a face-down marker
        player = session.state.current_player()
        supply = len(session.state.to_dict()["marker_supply"])
        pick = greedy.step(session.state.clone(), session.state.legal_actions())
        view = client.post(
            f"/api/sessions/{sid}/action", json={"action": pick}, headers=seat(created, player)
        ).json()
        if len(session.state.to_dict()["marker_supply"]) < supply:
            break
    else:
        raise AssertionError("no marker was drawn")
    assert view["can_undo"] is False
    for p in range(3):
        mine = client.get(f"/api/sessions/{sid}", headers=seat(created, p)).json()
        assert mine["can_undo"] is False
    length = len(session.moves)
    response = client.post(f"/api/sessions/{sid}/undo", json={}, headers=seat(created, player))
    assert (
        response.status_code == 400
        and "nothing hidden has been revealed" in response.json()["error"]
    )
    assert len(session.moves) == length


@pytest.mark.parametrize("name", ["bigbox-britannia-3p", "bigbox-eastern"])
def test_a_board_rebuilt_from_the_module_keeps_countries_permissions_and_markers(catalogue, name):
    from hansa.web.board import board_layout

    rebuilt = board_layout(catalogue.module(name), {})
    drawn = catalogue.layout(name)["layout"]
    assert rebuilt["layout_from"] == "module" and drawn["layout_from"] == "spec"

    def facts(layout):
        return (
            [(r["country"], r["permanent"]) for r in layout["routes"]],
            [(c["countries"], c["permissions"], c["hanseatic"]) for c in layout["cities"]],
            layout["country_colours"],
        )

    assert facts(rebuilt) == facts(drawn)


def displace_and_answer(client, created: dict, session, greedy) -> tuple[int, int, list]:
    """Greedy decisions, each from its seat's link, until the turn player displaces a piece
    and the displaced player answers it (its replacements, an extra piece from its stock) and
    the turn goes on: (turn player, decisions before the displacement, the answers)."""
    module = session.game.module
    sid = created["id"]

    def decide(action: int) -> dict:
        player = session.state.current_player()
        response = client.post(
            f"/api/sessions/{sid}/action", json={"action": action}, headers=seat(created, player)
        )
        assert response.status_code == 200, response.text
        return response.json()

    for _ in range(600):
        state = session.state
        player = state.current_player()
        displace = [a for a in state.legal_actions() if action_kind(module, a) == "displace"]
        if not displace or turn_player(state) != player:
            decide(greedy.step(state.clone(), state.legal_actions()))
            continue
        before = len(session.moves)
        decide(displace[0])
        answers = []
        while session.state.current_player() != player and turn_player(session.state) == player:
            answers.append(session.state.current_player())
            decide(greedy.step(session.state.clone(), session.state.legal_actions()))
        if answers and turn_player(session.state) == player:
            return player, before, answers
    raise AssertionError("no displacement answered within the turn")


def test_undo_takes_back_the_answers_of_others_within_the_turn(catalogue, tmp_path):
    """A turn player's displacement and the displaced person's replacements (and extra piece
    from the stock) are taken back together by the turn player's Undo; the displaced person
    may take back its own last answer, but not once the turn player has decided again."""
    from hansa.play.simulate import make_agent

    from hansa.web.store import Store

    client = TestClient(create_app(catalogue, store=Store(tmp_path / "g.sqlite")), base_url=BASE)
    body = {"game": "bigbox-hanseatic-3p", "players": 3, "seats": ["human"] * 3, "seed": 4}
    created = client.post("/api/sessions", json=body).json()
    sid = created["id"]
    session = client.app.state.sessions.get(sid)
    player, before, answers = displace_and_answer(client, created, session, make_agent("greedy", 4))
    displaced = answers[0]
    assert set(answers) == {displaced} != {player}
    length = len(session.moves)
    mine = client.get(f"/api/sessions/{sid}", headers=seat(created, player)).json()
    theirs = client.get(f"/api/sessions/{sid}", headers=seat(created, displaced)).json()
    assert mine["can_undo"] and mine["undo_size"] == length - before == 1 + len(answers)
    assert theirs["can_undo"] and theirs["undo_size"] == 1  # its own last answer only
    bystander = 3 - player - displaced
    assert not client.get(f"/api/sessions/{sid}", headers=seat(created, bystander)).json()[
        "can_undo"
    ]
    displacement = session.moves[before:]
    undone = client.post(
        f"/api/sessions/{sid}/undo", json={"at": length}, headers=seat(created, player)
    ).json()
    assert undone["length"] == before and undone["current_player"] == player
    state = session.initial.clone()
    for _p, action in session.moves:
        state.apply_action(action)
    assert state.to_json() == session.state.to_json()
    assert Sessions(catalogue, store=Store(tmp_path / "g.sqlite")).get(sid).moves == session.moves
    # the same again, and then the turn player decides on: the displaced person's Undo is gone
    for p, action in displacement:
        response = client.post(
            f"/api/sessions/{sid}/action", json={"action": action}, headers=seat(created, p)
        )
        assert response.status_code == 200, response.text
    legal = client.get(f"/api/sessions/{sid}", headers=seat(created, player)).json()["legal"]
    onward = [a for a in legal if a["kind"] not in ("end_turn", "create")]
    client.post(
        f"/api/sessions/{sid}/action",
        json={"action": onward[-1]["id"]},
        headers=seat(created, player),
    )
    assert turn_player(session.state) == player  # seed 4: the turn goes on
    theirs = client.get(f"/api/sessions/{sid}", headers=seat(created, displaced)).json()
    assert not theirs["can_undo"]
    refused = client.post(f"/api/sessions/{sid}/undo", json={}, headers=seat(created, displaced))
    assert refused.status_code == 400 and len(session.moves) == length + 1
    mine = client.get(f"/api/sessions/{sid}", headers=seat(created, player)).json()
    assert mine["undo_size"] == 1


def within_the_turn(session, first: int) -> bool:
    """Every decision from the `first` on was made in the turn that is being played now."""
    position = session.state_at(first)
    owner = turn_player(position)
    for _player, action in session.moves[first:]:
        position.apply_action(action)
        if turn_player(position) != owner:
            return False
    return True


def test_undo_takes_back_an_agents_answers_with_the_humans_decision(catalogue):
    """The human displaces an agent's piece; the agent answers (its replacements) when asked;
    the human's Undo takes back the displacement and the agent's answers, and the agent is asked
    again when the human decides again."""
    from hansa.play.simulate import make_agent

    client = TestClient(create_app(catalogue), base_url=BASE)
    body = {"game": "bigbox-hanseatic-3p", "players": 3, "seats": ["human", "greedy", "greedy"]}
    created = client.post("/api/sessions", json={**body, "seed": 4}).json()
    sid, mine = created["id"], seat(created, 0)
    host = {"x-hansa-token": created["tokens"]["host"]}
    session = client.app.state.sessions.get(sid)
    module, greedy = session.game.module, make_agent("greedy", 4)

    def agents() -> dict:
        view = client.get(f"/api/sessions/{sid}", headers=mine).json()
        while view["waiting_for"] == "agent":
            view = client.post(
                f"/api/sessions/{sid}/agent", json={"until_human": True, "wait": 30}, headers=host
            ).json()
            view = client.get(f"/api/sessions/{sid}", headers=mine).json()
        return view

    for _ in range(300):
        view = agents()
        state = session.state
        displace = [a for a in state.legal_actions() if action_kind(module, a) == "displace"]
        pick = displace[0] if displace and turn_player(state) == 0 else None
        if pick is None:
            pick = greedy.step(state.clone(), state.legal_actions())
        before = len(session.moves)
        client.post(f"/api/sessions/{sid}/action", json={"action": pick}, headers=mine)
        if pick not in displace:
            continue
        view = agents()
        answers = [p for p, _a in session.moves[before + 1 :]]
        if answers and view["your_decision"] and within_the_turn(session, before):
            break
    else:
        raise AssertionError("no agent answered a displacement within the human's turn")
    assert set(answers) - {0} and view["can_undo"]
    assert view["undo_size"] == len(session.moves) - before
    undone = client.post(f"/api/sessions/{sid}/undo", json={}, headers=mine).json()
    assert undone["length"] == before and undone["your_decision"]
    client.post(f"/api/sessions/{sid}/action", json={"action": pick}, headers=mine)
    assert agents()["length"] > before + 1  # the agent answered again
