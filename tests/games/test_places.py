"""Places by name, network quantities and per-player state in rules in words (issue 33, items
1-3): cities and routes named in conditions, quantities and effects, the network quantities read
from compiled tables, counters and flags saved in the state JSON and hidden where private — played
on the Python backend from set-up positions (the native backend: tests/games/test_places_native.py).
"""

from __future__ import annotations

import json

import pytest
from hansa.runtime.errors import HansaError
from scenario_support import Position, act, doc, legal, load, track
from variant_support import variant

# Lübeck to Coellen on the Hanseatic board, one route between each two.
LUBECK_TO_COELLEN = ("Lübeck", "Hamburg", "Bremen", "Minden", "Paderborn", "Warburg", "Coellen")


def with_parameters(game, position: Position, **values_by_player):
    """The position's state with per-player values set (`p0={"name": 1}`)."""
    data = position.to_dict()
    for key, values in values_by_player.items():
        data["player_state"][int(key[1:])].setdefault("parameters", {}).update(values)
    return game.state_from_json(json.dumps(data, ensure_ascii=False))


def parameters(state, p: int) -> dict:
    return doc(state)["player_state"][p]["parameters"]


# --- item 1: places by name -----------------------------------------------------------------------


def test_the_first_player_to_link_two_named_cities_gains_5_pp_and_only_the_first():
    """spec/house/first_link.hansa: posts of player 0 in every city from Lübeck to Coellen."""
    game = load("first-link-hanseatic-45p", 4)
    position = Position(game)
    for city in LUBECK_TO_COELLEN:
        position.city(city, "t0")
    state = position.state()
    before = track(state)
    act(state, "end the turn")
    assert track(state) == [before[0] + 5, *before[1:]]
    assert parameters(state, 0)["linked_lubeck_coellen"] == 1
    act(state, "end the turn")  # player 1 links nothing: no gain, no flag
    assert track(state)[1] == before[1] and parameters(state, 1)["linked_lubeck_coellen"] == 0
    # another player already linked them: player 0 is not the first and gains nothing
    late = with_parameters(game, position, p2={"linked_lubeck_coellen": 1})
    act(late, "end the turn")
    assert track(late)[0] == before[0] and parameters(late, 0)["linked_lubeck_coellen"] == 0


def test_a_gap_in_the_chain_links_nothing():
    game = load("first-link-hanseatic-45p", 4)
    position = Position(game)
    for city in LUBECK_TO_COELLEN:
        position.city(city, "t1" if city == "Minden" else "t0")
    state = position.state()
    act(state, "end the turn")
    assert track(state)[0] == 0 and parameters(state, 0)["linked_lubeck_coellen"] == 0


def test_a_named_city_route_and_controller_in_conditions():
    game = variant(
        "at turn end: gain 1 PP if controller of Lübeck is you,"
        " gain 10 PP if route complete of Hamburg-Lübeck,"
        " gain 100 PP if route holder of Lübeck-Hamburg is you,"
        " gain 1000 PP if your posts in Lübeck >= 2,"
        " gain 10000 PP if free points of Bremen-Hamburg = 4"
    )
    state = Position(game).city("Lübeck", "t0", "t0").route("Hamburg", "Lübeck", "t0", "m0", "t0")
    state = state.state()
    act(state, "end the turn")
    assert track(state)[0] == 1 + 10 + 100 + 1000 + 10000
    mixed = Position(game).city("Lübeck", "t1").route("Hamburg", "Lübeck", "t0", "t1", "t0")
    mixed = mixed.state()
    act(mixed, "end the turn")  # another player's piece on the route: complete by nobody
    assert track(mixed)[0] == 10000


def test_a_route_created_by_name_scores_for_the_controller_of_lubeck():
    """spec/house/hinterland.hansa: +2 PP for creating Hamburg-Lübeck while controlling Lübeck."""
    plain, house = load("bigbox-hanseatic-45p", 4), load("hinterland-hanseatic-45p", 4)
    gains = []
    for game in (plain, house):
        state = Position(game).city("Lübeck", "t0").route("Hamburg", "Lübeck", "t0", "t0", "t0")
        state = state.state()
        act(
            state,
            "create route Hamburg–Lübeck",
            "establish a trading post in Hamburg with a trader",
        )
        gains.append(track(state)[0])
    assert gains[1] == gains[0] + 2
    other = Position(house).city("Lübeck", "t1").route("Hamburg", "Lübeck", "t0", "t0", "t0")
    state = other.state()
    act(state, "create route Hamburg–Lübeck", "establish a trading post in Hamburg with a trader")
    assert track(state)[0] < gains[1]  # player 1 controls Lübeck: no bonus


# --- item 2: network quantities -------------------------------------------------------------------


def test_distance_and_adjacency_come_from_the_board():
    game = variant(
        'score H "Far": 1 PP * distance to Coellen of Lübeck\n'
        'score I "Near": 1 PP * count cities where adjacent to Hamburg\n'
        'score J "Ring": 1 PP * count cities where distance to Lübeck = 2'
    )
    scores = Position(game).state().score_breakdown()[0]
    assert scores["H"] == len(LUBECK_TO_COELLEN) - 1  # six routes
    assert scores["I"] == 4  # Bremen, Lübeck, Lüneburg, Stade
    assert scores["J"] == 3  # Bremen, Lüneburg, Stade


def test_the_longest_chain_counts_controlled_cities_joined_by_routes():
    game = load("hinterland-hanseatic-45p", 4)
    position = (
        Position(game)
        .city("Lübeck", "t0")
        .city("Hamburg", "t0")
        .city("Stade", "t0")
        .city("Coellen", "t0")  # alone
        .city("Bremen", "t1")  # within two routes of Lübeck, but player 1's
    )
    zero, one = position.state().score_breakdown()[:2]
    assert zero["I"] == 3 and one["I"] == 1
    assert zero["H"] == 3 and one["H"] == 1  # controlled cities within two routes of Lübeck


# --- item 3: per-player counters and flags --------------------------------------------------------


def test_once_per_game_a_merchant_is_displaced():
    """spec/house/merchant_once.hansa: the flag is set by the first merchant displaced; a second
    merchant's displacement is no longer legal; traders still are."""
    game = load("merchant-once-hanseatic-45p", 4)
    position = (
        Position(game)
        .route("Hamburg", "Lübeck", "m1")
        .route("Bremen", "Hamburg", "m2", "t2")
        .player(0, supply=(8, 1))
    )
    state = position.state()
    options = [t for t in legal(state) if t.startswith("displace")]
    assert any("Hamburg–Lübeck" in t for t in options)
    first = next(t for t in options if "Hamburg–Lübeck" in t and "merchant" in t)
    act(state, first)
    assert parameters(state, 0)["displaced_a_merchant"] == 1
    flagged = with_parameters(game, position, p0={"displaced_a_merchant": 1})
    options = [t for t in legal(flagged) if t.startswith("displace")]
    assert options and all("Bremen–Hamburg #2" in t for t in options)  # only the trader


def test_a_tally_counts_routes_created_and_scores_at_the_end():
    game = load("merchant-once-hanseatic-45p", 4)
    position = Position(game).route("Hamburg", "Lübeck", "t0", "t0", "t0")
    state = with_parameters(game, position, p0={"routes_created": 5})
    act(state, "create route Hamburg–Lübeck", "establish a trading post in Hamburg with a trader")
    assert parameters(state, 0)["routes_created"] == 6
    assert state.score_breakdown()[0]["H"] == 2  # 6 routes / 3


def test_a_counter_is_saved_in_the_state_json_and_kept_within_its_bounds():
    game = variant("counter tally\nat turn end: your tally becomes your tally * 7 + 1")
    state = game.new_initial_state(0)
    for _ in range(4 * 4):  # four rounds: 1, 8, 57, 400
        act(state, "end the turn")
    values = [parameters(state, p)["tally"] for p in range(4)]
    assert values == [400, 400, 400, 400]
    text = state.to_json()
    assert game.state_from_json(text).to_json() == text
    act(state, "end the turn")
    assert parameters(state, 0)["tally"] == 1_000  # 2,801 saturates at the bound


def test_a_private_value_is_seen_by_its_own_player_only():
    game = variant(
        "counter secret private yes\ncounter shown\n"
        "at turn end: your secret becomes your secret + 1, your shown becomes your shown + 2"
    )
    state = game.new_initial_state(0)
    act(state, "end the turn")
    own = state.observation(0)
    other = state.observation(1)
    assert own["own"]["private"] == {"secret": 1}
    assert "secret" not in own["player_state"][0]["parameters"]
    assert own["player_state"][0]["parameters"]["shown"] == 2
    assert other["own"]["private"] == {"secret": 0}  # its own, not player 0's
    assert all("secret" not in entry["parameters"] for entry in other["player_state"])
    assert other["player_state"][0]["parameters"]["shown"] == 2
    assert parameters(state, 0)["secret"] == 1  # the state itself keeps it


def test_the_state_json_reads_a_counter_and_a_flag_within_their_ranges():
    game = load("merchant-once-hanseatic-45p", 4)
    position = Position(game)
    for values in ({"displaced_a_merchant": 2}, {"routes_created": -1}, {"routes_created": 1001}):
        with pytest.raises(HansaError, match="parameters"):
            with_parameters(game, position, p1=values)
    state = with_parameters(game, position, p1={"displaced_a_merchant": 1, "routes_created": 1000})
    assert parameters(state, 1) == {**parameters(state, 1), "routes_created": 1000}
