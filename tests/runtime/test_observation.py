"""Observations (`observation`, `information_state_string`, `observation_tensor`) and the public
rule facts (`city_controller`, `controller_if_post`, `controller_if_exchange`, `networks`,
`resample_hidden`) of every built game.

The central property: two positions that differ only in what nobody sees (the order of the face-down
marker supply) look the same to every player, in all three forms; a public difference is seen.
"""

from __future__ import annotations

import random

import hansa.play.greedy
import pytest
from hansa.play.agents import RandomAgent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from play_support import game_cases
from scenario_support import Position, act
from variant_support import variant

import hansa

np = pytest.importorskip("numpy")

GAMES = sorted(hansa.available_games())
CASES = game_cases()


def views(state, player: int):
    return (
        state.observation(player),
        state.information_state_string(player),
        state.observation_tensor(player),
    )


def assert_same_views(a, b) -> None:
    for player in range(a.num_players):
        obs_a, text_a, tensor_a = views(a, player)
        obs_b, text_b, tensor_b = views(b, player)
        assert obs_a == obs_b
        assert text_a == text_b
        assert np.array_equal(tensor_a, tensor_b)


def reordered_supply(game, state, rng: random.Random):
    """The same position with the face-down marker supply in another order (through the JSON;
    a display's face-up markers, the first of the supply, stay where they lie)."""
    data = state.to_dict()
    face_up = len(data.get("marker_display", []))
    shown, supply = data["marker_supply"][:face_up], data["marker_supply"][face_up:]
    for _ in range(20):
        rng.shuffle(supply)
        if shown + supply != state.to_dict()["marker_supply"] or len(set(supply)) < 2:
            break
    data["marker_supply"] = shown + supply
    return game.state_from_json(data)


def played(game, seed: int, decisions: int):
    state = game.new_initial_state(seed)
    agent = RandomAgent(seed)
    for _ in range(decisions):
        if state.is_terminal():
            break
        state.apply_action(agent.step(state, state.legal_actions()))
    return state


@pytest.mark.parametrize("name, players", CASES)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), decisions=st.integers(0, 3000))
def test_hidden_marker_order_is_invisible_to_every_player(name, players, seed, decisions):
    game = hansa.load_game(name, players=players)
    state = played(game, seed, decisions)
    twin = reordered_supply(game, state, random.Random(seed))
    face_down = state.to_dict()["marker_supply"][len(state.to_dict().get("marker_display", [])) :]
    if len(set(face_down)) >= 2:
        assert twin.to_json() != state.to_json()  # the twin really differs (hidden part only)
    assert_same_views(state, twin)
    for observer in range(players):  # a completion drawn for one observer looks the same to it
        resampled = state.clone()
        resampled.resample_hidden(random.Random(seed + 1), observer)
        assert views(resampled, observer)[1] == views(state, observer)[1]
        assert np.array_equal(views(resampled, observer)[2], views(state, observer)[2])
        assert resampled.legal_actions() == state.legal_actions()


MISSION_CASES = [(name, n) for name, n in CASES if "missions" in hansa.load_game(name).info.name]


def with_missions(game, state, cards: list[int]):
    """The same position with other mission cards (through the JSON; cards numbered from 1)."""
    data = state.to_dict()
    for p, card in enumerate(cards):
        data["player_state"][p]["mission"] = card
    return game.state_from_json(data)


@pytest.mark.parametrize("name, players", MISSION_CASES)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), decisions=st.integers(0, 3000), data=st.data())
def test_others_mission_cards_are_invisible(name, players, seed, decisions, data):
    """Two states differing only in the other players' cards look the same to a player (all three
    forms); its own card is seen; resampling redeals only what the observer cannot see."""
    game = hansa.load_game(name, players=players)
    state = played(game, seed, decisions)
    dealt = [p["mission"] for p in state.to_dict()["player_state"]]
    observer = data.draw(st.integers(0, players - 1))
    others = data.draw(st.permutations([c for c in range(1, 10) if c != dealt[observer]]))
    cards = [dealt[observer] if p == observer else others[p] for p in range(players)]
    twin = with_missions(game, state, cards)
    obs, text, tensor = views(state, observer)
    obs_twin, text_twin, tensor_twin = views(twin, observer)
    assert obs == obs_twin and text == text_twin and np.array_equal(tensor, tensor_twin)
    assert obs["own"]["mission"] == dealt[observer]
    assert all("mission" not in entry for entry in obs["player_state"])
    if cards != dealt:
        assert twin.to_json() != state.to_json()
        changed = next(p for p in range(players) if cards[p] != dealt[p])
        assert views(twin, changed)[1] != views(state, changed)[1]  # that player sees its new card
    resampled = state.clone()
    resampled.resample_hidden(random.Random(seed), observer)
    mine = resampled.to_dict()["player_state"][observer]["mission"]
    redealt = [p["mission"] for p in resampled.to_dict()["player_state"]]
    assert mine == dealt[observer] and len(set(redealt)) == players
    assert views(resampled, observer)[1] == text


@pytest.mark.parametrize("name, players", CASES)
def test_a_public_difference_is_seen(name, players):
    game = hansa.load_game(name, players=players)
    state = played(game, 5, 200)
    data = state.to_dict()
    data["player_state"][0]["track"] += 1
    other = game.state_from_json(data)
    for player in range(players):
        obs, text, tensor = views(other, player)
        assert obs != state.observation(player)
        assert text != state.information_state_string(player)
        assert not np.array_equal(tensor, state.observation_tensor(player))


@pytest.mark.parametrize("name, players", CASES)
def test_tensor_layout_covers_the_tensor(name, players):
    game = hansa.load_game(name, players=players)
    layout = game.observation_tensor_layout()
    (size,) = game.observation_tensor_shape()
    offset = 0
    for block in layout:
        assert block["offset"] == offset
        offset += int(np.prod(block["shape"]))
    assert offset == size
    assert len({b["name"] for b in layout}) == len(layout)
    state = played(game, 3, 400)
    tensor = state.observation_tensor(1)
    assert tensor.shape == (size,) and tensor.dtype == np.float32


def block(game, tensor, name):
    for entry in game.observation_tensor_layout():
        if entry["name"] == name:
            size = int(np.prod(entry["shape"]))
            return tensor[entry["offset"] : entry["offset"] + size].reshape(entry["shape"])
    raise KeyError(name)


def test_tensor_encodes_pieces_relative_to_the_observer():
    """A trader of player 2 on Hamburg–Lübeck #1 is owner 0 for player 2, owner 1 for player 1, and
    a merchant of player 0 is owner 2 for player 2; supply and track rows rotate the same way."""
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = Position(game).route("Hamburg", "Lübeck", "t2", "m0", None).player(2, track=7).state()
    module = game.module
    route = module.ROUTE_CITIES.index(
        (module.CITY_NAMES.index("Hamburg"), module.CITY_NAMES.index("Lübeck"))
    )
    first, second, third = module.ROUTE_POINTS[route]
    for observer, trader_owner, merchant_owner in ((2, 0, 2), (1, 1, 3), (0, 2, 0)):
        tensor = state.observation_tensor(observer)
        points = block(game, tensor, "points")
        assert points[first].tolist() == [
            [float(o == trader_owner) for o in range(4)],
            [0.0] * 4,
        ]
        assert points[second][1][merchant_owner] == 1.0 and points[second].sum() == 1.0
        assert points[third].sum() == 0.0
        assert points.sum() == 2.0
        assert block(game, tensor, "track")[(2 - observer) % 4] == 7.0
        supply = block(game, tensor, "supply")
        for p in range(4):
            assert supply[(p - observer) % 4].tolist() == list(state.personal_supply(p))
        assert block(game, tensor, "turn_player")[(0 - observer) % 4] == 1.0
        assert block(game, tensor, "decision")[0] == 1.0  # the turn decision


def test_observation_keeps_the_public_state_and_hides_the_order():
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = played(game, 11, 500)
    full = state.to_dict()
    seen = state.observation(3)
    assert "marker_supply" not in seen
    assert seen["marker_supply_size"] == len(full["marker_supply"])
    assert sum(seen["marker_supply_counts"].values()) == len(full["marker_supply"])
    assert seen["observer"] == 3 and seen["current_player"] == state.current_player()
    assert seen["own"] == {}
    for key in ("routes", "cities", "player_state", "stack", "turn", "special_prestige"):
        assert seen[key] == full[key]
    with pytest.raises(hansa.HansaError, match="observer must be a player from 0 to 3"):
        state.observation(4)


def test_city_controller_follows_the_games_control_rule():
    """A 1-1 tie in Hamburg: the Big Box gives it to the rightmost post (player 0), the house
    rule `control_tie nobody` to nobody; a second post of player 1 decides it in both."""
    bigbox = hansa.load_game("bigbox-hanseatic-45p", players=4)
    nobody = variant("action create_route control_tie nobody")
    for game, tied in ((bigbox, 0), (nobody, -1)):
        state = Position(game).city("Hamburg", "t1", "t0", None).state()
        hamburg = game.module.CITY_NAMES.index("Hamburg")
        before = state.to_json()
        assert state.city_controller(hamburg) == tied
        assert state.controller_if_post(hamburg, 1) == 1
        assert state.controller_if_post(hamburg, 1, additional=True) == 1
        assert state.controller_if_post(hamburg, 2) == (2 if tied == 0 else -1)  # 1-1-1
        space = game.module.CITY_SPACES[hamburg][0]
        assert state.controller_if_exchange(space) == (1 if tied == 0 else -1)
        assert state.to_json() == before  # previews leave the position as it was
        with pytest.raises(hansa.HansaError, match="no post to its right"):
            state.controller_if_exchange(game.module.CITY_SPACES[hamburg][1])


def test_controller_if_post_matches_establishing_the_post():
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    pos = Position(game).route("Hamburg", "Lübeck", "t2", "t2", "t2")
    state = pos.city("Hamburg", "t1").player(2, privilege=3).to_move(2).state()
    hamburg = game.module.CITY_NAMES.index("Hamburg")
    preview = state.controller_if_post(hamburg, 2)
    act(state, "create route Hamburg–Lübeck")
    act(state, "establish a trading post in Hamburg with a trader")
    assert state.city_controller(hamburg) == preview == 2


def test_networks_group_linked_cities():
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    names = game.module.CITY_NAMES
    state = (
        Position(game)
        .city("Hamburg", "t0")
        .city("Lübeck", "t0", "t1")
        .city("Coellen", "t0")
        .state()
    )
    assert state.networks(0) == [
        tuple(sorted((names.index("Hamburg"), names.index("Lübeck")))),
        (names.index("Coellen"),),
    ]
    assert state.networks(1) == [(names.index("Lübeck"),)]
    assert state.networks(2) == []


def test_resample_hidden_keeps_the_markers_and_is_seeded():
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(4)
    orders = []
    for seed in (1, 1, 2):
        copy = state.clone()
        copy.resample_hidden(random.Random(seed))
        orders.append(copy.to_dict()["marker_supply"])
    assert orders[0] == orders[1] != orders[2]
    assert sorted(orders[2]) == sorted(state.to_dict()["marker_supply"])


def test_greedy_reads_only_public_methods_of_the_state():
    """play/greedy.py reads a position only through the state's public methods (no flat fields,
    no copy of a rule): every `state.<name>` it writes is a public method of a generated State (a
    game with the neutral pawn or board features has a few more)."""
    import ast
    from pathlib import Path

    source = Path(hansa.play.greedy.__file__).read_text(encoding="utf-8")
    state_classes = [hansa.load_game(name).module.State for name in hansa.available_games()]
    used = {
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "state"
    }
    assert used, "greedy reads the state somewhere"
    for name in used:
        assert not name.startswith("_"), name
        assert any(callable(getattr(cls, name, None)) for cls in state_classes), (
            f"state.{name} is a method of no game's State"
        )


def test_docs_show_the_generated_tensor_layout():
    """docs/game-api.md's layout table is the one `observation_tensor_layout` generates."""
    from pathlib import Path

    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "game-api.md").read_text("utf-8")
    for entry in game.observation_tensor_layout():
        shape = " × ".join(str(d) for d in entry["shape"])
        row = f"| `{entry['name']}` | {entry['offset']} | {shape} | {entry['meaning']} |"
        assert row in docs, row
    assert f"({game.observation_tensor_shape()[0]:,} floats" in docs
