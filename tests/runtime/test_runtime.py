"""The runtime around a generated module: illegal actions, malformed state JSON, positions."""

from __future__ import annotations

import copy
import json

import pytest
from hansa.play.agents import RandomAgent, play
from hansa.play.positions import make_position
from hypothesis import given, settings
from hypothesis import strategies as st

import hansa


@pytest.fixture(scope="module")
def game():
    return hansa.load_game("bigbox-hanseatic-45p", players=4)


@pytest.fixture()
def mid_state(game):
    state = game.new_initial_state(4)
    play(state, RandomAgent(4), max_decisions=120)
    return state


@pytest.mark.parametrize("seed", range(6))
def test_illegal_actions_raise_and_change_nothing(game, seed):
    state = game.new_initial_state(seed)
    play(state, RandomAgent(seed), max_decisions=40 * seed)
    before = state.to_json()
    legal = set(state.legal_actions())
    illegal = [a for a in range(game.num_distinct_actions()) if a not in legal][::7]
    for action in illegal + [-1, game.num_distinct_actions(), 10**9]:
        with pytest.raises(hansa.HansaError, match=f"illegal action {action}"):
            state.apply_action(action)
        assert state.to_json() == before
    for action in ("3", 2.0, None, True):
        with pytest.raises(hansa.HansaError, match="illegal action"):
            state.apply_action(action)
        assert state.to_json() == before


def test_illegal_action_message_names_the_action_and_the_decision(game):
    state = game.new_initial_state(0)
    create = next(
        a
        for a in range(game.num_distinct_actions())
        if game.action_to_string(a).startswith("create route")
    )
    with pytest.raises(hansa.HansaError) as info:
        state.apply_action(create)
    text = str(info.value)
    assert game.action_to_string(create) in text
    assert "turn decision of player 0" in text
    with pytest.raises(hansa.HansaError, match="action ids run from 0 to"):
        state.apply_action(-5)


def test_no_action_after_the_end(game):
    state = game.new_initial_state(1)
    play(state, RandomAgent(1))
    with pytest.raises(hansa.HansaError, match="the game is over"):
        state.apply_action(0)


def _broken(mid_state, change):
    data = json.loads(mid_state.to_json())
    change(data)
    return data


@pytest.mark.parametrize(
    "change,field",
    [
        (lambda d: d.pop("turn"), "turn: missing"),
        (lambda d: d.update(format="chess"), "format"),
        (lambda d: d.update(game="other-game"), "game"),
        (lambda d: d.update(players=3), "players"),
        (lambda d: d["turn"].update(player=9), "turn.player"),
        (
            lambda d: d["player_state"][1]["supply"].update(traders=-1),
            "player_state[1].supply.traders",
        ),
        (
            lambda d: d["player_state"][2]["abilities"].update(keys=9),
            "player_state[2].abilities.keys",
        ),
        (
            lambda d: d["player_state"][0].update(colour="red"),
            "player_state[0].colour: unknown field",
        ),
        (
            lambda d: d["routes"][3].update(points=["x9"] * len(d["routes"][3]["points"])),
            "routes[3].points[0]",
        ),
        (lambda d: d["routes"][3].update(cities=["Nowhere", "Bremen"]), "routes[3].cities"),
        (lambda d: d["routes"][0].update(marker="gold"), "routes[0].marker"),
        (lambda d: d["cities"][5].update(name="Atlantis"), "cities[5].name"),
        (lambda d: d["cities"][0].update(posts=[None, "t0", None, None]), "cities[0].posts[1]"),
        (lambda d: d.update(marker_supply=d["marker_supply"][1:]), "marker_supply"),
        (lambda d: d.update(completed_cities=4), "completed_cities"),
        (lambda d: d.update(stack=[{"frame": "teleport", "player": 0}]), "stack[0].frame"),
        (
            lambda d: d["player_state"][0]["stock"].update(
                traders=d["player_state"][0]["stock"]["traders"] + 1
            ),
            "player_state[0]: player 0 has",
        ),
        (lambda d: d.update(east_west=[1]), "east_west"),
    ],
)
def test_malformed_state_json_names_the_field(game, mid_state, change, field):
    data = _broken(mid_state, change)
    with pytest.raises(hansa.HansaError) as info:
        game.state_from_json(json.dumps(data))
    assert field in str(info.value)


def test_state_json_syntax_errors(game):
    with pytest.raises(hansa.HansaError, match="not valid JSON"):
        game.state_from_json("{nope")
    with pytest.raises(hansa.HansaError, match="JSON object"):
        game.state_from_json("[1, 2]")


def test_round_trip_of_a_dict_and_equality(game, mid_state):
    data = mid_state.to_dict()
    again = game.state_from_json(copy.deepcopy(data))
    assert again == mid_state and again.to_dict() == data


def test_make_position_balances_pieces_and_scores(game):
    state = make_position(
        game,
        {
            "routes": [{"cities": ["Lübeck", "Hamburg"], "points": ["t0", "m0", None]}],
            "cities": [
                {"name": "Hamburg", "posts": ["t1", "t0", None]},
                {"name": "Lübeck", "posts": ["t0", None]},
            ],
            "player_state": {0: {"abilities": {"keys": 2}}},
        },
    )
    data = state.to_dict()
    route = next(r for r in data["routes"] if set(r["cities"]) == {"Lübeck", "Hamburg"})
    assert route == {"cities": ["Hamburg", "Lübeck"], "points": [None, "m0", "t0"], "marker": None}
    # p0 started with 5 traders and 1 merchant in supply, 6 traders in stock: the stock pays first
    # (3 posts/route traders), developing Keys twice put 2 traders in the supply.
    assert data["player_state"][0]["stock"] == {"traders": 3, "merchants": 0}
    assert data["player_state"][0]["supply"] == {"traders": 7, "merchants": 0}
    scores = state.score_breakdown()
    # Hamburg: one post each, the rightmost (t0) wins the tie; Lübeck is p0's: E = 2 x 2 PP.
    assert scores[0]["E"] == 4 and scores[1]["E"] == 0
    # Network: Hamburg and Lübeck are linked, 2 posts x Keys value 2 (1, 2, 2: developed twice).
    assert scores[0]["F"] == 4 and scores[1]["F"] == 1


def test_make_position_refuses_too_many_pieces(game):
    with pytest.raises(hansa.HansaError, match="player 0 would need"):
        make_position(
            game,
            {
                "routes": [{"cities": ["Lübeck", "Hamburg"], "points": ["m0"] * 3}],
                "cities": [{"name": "Hamburg", "posts": ["m0", "m0", None]}],
            },
        )


def _leaves(data):
    """Every (container, key) leaf of a state dict, for random edits."""
    out = []

    def walk(node):
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            if isinstance(value, (dict, list)) and value:
                walk(value)
            else:
                out.append((node, key))

    walk(data)
    return out


REPLACEMENTS = [None, 0, 1, -1, 3, 99, True, "t0", "m1", "t9", "", "x", [], {}, "pick", "drop"]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 300),
    edits=st.lists(
        st.tuples(st.integers(0, 10**6), st.sampled_from(REPLACEMENTS)), min_size=1, max_size=3
    ),
)
def test_edited_state_json_loads_into_a_playable_state_or_fails_cleanly(seed, steps, edits):
    game = hansa.load_game("original-hanseatic-23p", players=3)
    state = game.new_initial_state(seed)
    play(state, RandomAgent(seed), max_decisions=steps)
    data = json.loads(state.to_json())
    for where, value in edits:
        leaves = _leaves(data)
        container, key = leaves[where % len(leaves)]
        container[key] = value
    try:
        loaded = game.state_from_json(json.dumps(data))
    except hansa.HansaError:
        return
    # A state that loads is one play can continue from: every legal action applies.
    text = loaded.to_json()
    assert game.state_from_json(text).to_json() == text
    for action in loaded.legal_actions()[:25]:
        branch = loaded.clone()
        branch.apply_action(action)
        branch.to_json()
    play(loaded, RandomAgent(seed), max_decisions=200)
