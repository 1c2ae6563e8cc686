"""Emperor's Favour (Big Box rule book p. 11): tiles face up, one taken at the start of a turn
instead of the turn's actions by flipping 2 unused bonus markers; each tile's effect in play."""

from __future__ import annotations

import random

import pytest
from scenario_support import Position, act, doc, legal, markers, refuse, route_points
from test_variants import variant

import hansa

TAKE = "take favour tile {!r} (flip 2 unused markers; no actions)"


@pytest.fixture(scope="module")
def favour():
    return hansa.load_game("bigbox-hanseatic-45p-favour", players=4)


def with_favour(position: Position, face_up=None, held=None, this_turn="may_take"):
    """The position's state with the favour display and tiles held set."""
    data = position.to_dict()
    game = position.game
    n = len(data["player_state"])
    data["favour"] = {
        "face_up": list(face_up if face_up is not None else game.module.FAVOUR_NAMES),
        "held": held or [[] for _ in range(n)],
        "this_turn": this_turn,
    }
    return game.state_from_json(data)


def test_setup_shows_as_many_random_tiles_as_players():
    """p. 11: "Select random tiles equal to the number of players and place them face up"."""
    game = hansa.load_game("bigbox-hanseatic-3p-favour", players=3)
    shown = {tuple(doc(game.new_initial_state(seed))["favour"]["face_up"]) for seed in range(12)}
    assert all(len(tiles) == 3 for tiles in shown) and len(shown) > 1
    assert all(set(tiles) <= set(game.module.FAVOUR_NAMES) for tiles in shown)
    start = doc(game.new_initial_state(0))
    assert start["favour"]["held"] == [[], [], []]
    assert start["favour"]["this_turn"] == "may_take"


def test_taking_a_tile_gives_up_the_actions_and_flips_two_markers(favour):
    """p. 11: at the start of the turn, give up all actions and flip 2 unused markers (they still
    score: they stay in the used pile); the tile leaves the display; the turn passes on."""
    pos = Position(favour).player(0, unused=["plus_3_actions", "move_tradesmen", "develop_ability"])
    state = with_favour(pos.to_move(0))
    before = state.score_breakdown()[0]["C"]
    act(state, TAKE.format("City PP"))
    after = doc(state)
    assert after["turn"]["player"] == 1
    assert after["favour"]["held"][0] == ["City PP"]
    assert "City PP" not in after["favour"]["face_up"]
    unused, used = markers(state, 0)
    assert unused == ["move_tradesmen"] and sorted(used) == ["develop_ability", "plus_3_actions"]
    assert state.score_breakdown()[0]["C"] == before  # flipped markers still score
    assert after["player_state"][0]["parameters"]["city_pp"] == 4


def test_no_tile_with_fewer_than_two_unused_markers_or_after_acting(favour):
    """p. 11: a tile needs 2 unused markers and is taken only at the start of the turn."""
    one = with_favour(Position(favour).player(0, unused=["plus_3_actions"]).to_move(0))
    assert not [a for a in legal(one) if a.startswith("take favour")]
    two = with_favour(
        Position(favour).player(0, unused=["plus_3_actions", "move_tradesmen"]).to_move(0)
    )
    assert TAKE.format("More actions") in legal(two)
    act(two, "income: 1 traders, 0 merchants")
    assert not [a for a in legal(two) if a.startswith("take favour")]
    assert doc(two)["favour"]["this_turn"] == "acted"
    marker = with_favour(
        Position(favour).player(0, unused=["plus_3_actions", "move_tradesmen"]).to_move(0)
    )
    act(marker, next(a for a in legal(marker) if "plus_3_actions" in a))
    assert not [a for a in legal(marker) if a.startswith("take favour")]


def test_one_tile_per_turn(favour):
    """p. 11: "You may only acquire 1 Emperor's Favour tile per turn"; the turn ends with it."""
    pos = Position(favour).player(
        0, unused=["plus_3_actions", "move_tradesmen", "develop_ability", "plus_4_actions"]
    )
    state = with_favour(pos.to_move(0, actions_left=2))
    act(state, TAKE.format("More actions"))
    assert doc(state)["turn"]["player"] == 1
    with pytest.raises(hansa.HansaError):
        with_favour(pos.to_move(0, actions_left=2), this_turn="taken")


def test_each_parameter_tile_in_a_position(favour):
    """p. 11: +1 action every turn; 2 pieces when a trader is displaced; 4 PP per controlled city;
    7 PP per fully developed ability — for the tile's holder only."""
    unused = ["plus_3_actions", "move_tradesmen"]
    for tile, name, value in (
        ("More actions", "extra_actions_per_turn", 1),
        ("Trader compensation", "trader_compensation", 2),
        ("City PP", "city_pp", 4),
        ("Full ability PP", "full_track_pp", 7),
    ):
        state = with_favour(Position(favour).player(0, unused=unused).to_move(0))
        act(state, TAKE.format(tile))
        params = [p["parameters"] for p in doc(state)["player_state"]]
        assert params[0][name] == value and params[1][name] != value
    state = with_favour(Position(favour).player(0, unused=unused).to_move(0))
    act(state, TAKE.format("More actions"))
    while doc(state)["turn"]["player"] != 0:
        act(state, "end the turn")
    assert doc(state)["turn"]["actions_left"] == 3  # Actions 2 + 1
    city = with_favour(Position(favour).player(0, unused=unused).city("Hamburg", "t0").to_move(0))
    before = city.score_breakdown()[0]["E"]
    act(city, TAKE.format("City PP"))
    assert (before, city.score_breakdown()[0]["E"]) == (2, 4)


def test_a_house_rule_adds_a_seventh_tile():
    """A tile is a few spec words: `favour "Merchant's purse": your control PP becomes 2`."""
    game = variant(
        'favour "More actions": your extra actions becomes 1\n'
        'favour "Merchant\'s purse": your control PP becomes 2'
    )
    assert game.module.FAVOUR_NAMES == ("More actions", "Merchant's purse")
    pos = Position(game).player(0, unused=["plus_3_actions", "move_tradesmen"]).to_move(0)
    state = with_favour(pos)
    act(state, TAKE.format("Merchant's purse"))
    assert doc(state)["player_state"][0]["parameters"]["control_pp"] == 2
    rng = random.Random(3)
    state = game.new_initial_state(3)
    for _ in range(300):  # it plays: a legal decision in every position reached
        state.apply_action(rng.choice(state.legal_actions()))


def offered_routes(state) -> set[str]:
    """The routes named by the displaced owner's placement choices."""
    prefix = "place the displaced piece on "
    return {t[len(prefix) :].rsplit(" #", 1)[0] for t in legal(state) if t.startswith(prefix)}


def test_displace_anywhere_tile_lets_the_holder_use_any_free_point(favour):
    """p. 11: "Displaced pieces may be placed on any free points" — the holder's displaced pieces
    are no longer bound to the nearest routes; other players' still are (p. 5)."""
    adjacent = {
        "Dortmund–Duisburg",
        "Hildesheim–Paderborn",
        "Minden–Paderborn",
        "Paderborn–Warburg",
    }
    pos = Position(favour).route("Dortmund", "Paderborn", None, "t1", None).player(0, supply=(5, 0))
    pos.player(1, unused=["plus_3_actions", "move_tradesmen"])
    state = with_favour(pos.to_move(1))
    act(state, TAKE.format("Displace anywhere"))
    assert doc(state)["player_state"][1]["parameters"]["displacement_reach"] == 1
    while doc(state)["turn"]["player"] != 0:
        act(state, "end the turn")
    act(state, "displace trader on Dortmund–Paderborn #2")
    offered = offered_routes(state)
    assert adjacent < offered and "Emden–Groningen" in offered
    act(state, "place the displaced piece on Emden–Groningen #1")
    assert route_points(state, "Emden", "Groningen")[0] == "t1"
    act(state, "take an extra trader")
    assert "Emden–Groningen" in offered_routes(state)  # the extra piece too
    # Without the tile (the same position, no parameter): only the adjacent routes.
    plain = with_favour(pos.to_move(0))
    assert doc(plain)["player_state"][1]["parameters"]["displacement_reach"] == 0
    act(plain, "displace trader on Dortmund–Paderborn #2")
    assert offered_routes(plain) == adjacent
    refuse(favour, plain, "place the displaced piece on Emden–Groningen #1")
