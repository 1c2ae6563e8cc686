"""Turn order rules (issue 33, item 4): `turn_order fewest|most QUANTITY` — seat 0 begins the
game; then the next player is, of the seats yet to play this round, the one with the fewest (most)
of the quantity, ties to the lower seat; the state JSON and the observations say who played this
round and who plays next. Played on the Python backend (the native one: test_places_native.py)."""

from __future__ import annotations

import json

import pytest
from hansa.runtime.errors import HansaError
from scenario_support import Position, act, doc, legal, load
from variant_support import problems, variant


def _with_track(game, *track: int):
    position = Position(game)
    for p, pp in enumerate(track):
        position.player(p, track=pp)
    return position.state()


def _order_of_turns(state, turns: int) -> list[int]:
    seen = []
    for _ in range(turns):
        act(state, "end the turn")
        seen.append(doc(state)["turn"]["player"])
    return seen


def test_the_players_behind_go_first_each_round():
    """spec/house/catch_up_order.hansa: PP 5, 3, 0, 3 — after seat 0, seat 2 (0 PP), then seats 1
    and 3 (3 PP each, the lower seat first); the next round begins with seat 2 again."""
    game = load("catch-up-order-hanseatic-45p", 4)
    state = _with_track(game, 5, 3, 0, 3)
    turn = doc(state)["turn"]
    assert turn["played_this_round"] == [0] and turn["next_player"] == 2
    assert _order_of_turns(state, 4) == [2, 1, 3, 2]
    assert doc(state)["turn"]["played_this_round"] == [2]


def test_the_observation_says_who_plays_next():
    game = load("catch-up-order-hanseatic-45p", 4)
    state = _with_track(game, 5, 3, 0, 3)
    act(state, "end the turn")
    for observer in range(4):
        seen = state.observation(observer)["turn"]
        assert seen["next_player"] == 1 and seen["played_this_round"] == [0, 2]


def test_most_of_a_quantity_and_a_round_played_out():
    """`turn_order most …` and `end when … after round`: the round ends once every seat has
    played, whatever their order."""
    game = variant("turn_order most track PP\nend when turn number >= 2 after round")
    state = _with_track(game, 0, 1, 7, 7)
    assert _order_of_turns(state, 1) == [2]
    income = next(t for t in legal(state) if t.startswith("income"))
    act(state, income)  # the trigger holds after an action of the second turn: the round ends
    assert _order_of_turns(state, 2) == [3, 1] and not state.is_terminal()
    act(state, "end the turn")
    assert state.is_terminal()  # the round of seats 0, 2, 3, 1 is over


def test_the_state_json_round_trips_and_checks_who_played():
    game = load("catch-up-order-hanseatic-45p", 4)
    state = _with_track(game, 5, 3, 0, 3)
    act(state, "end the turn")
    text = state.to_json()
    assert game.state_from_json(text).to_json() == text
    data = json.loads(text)
    for played, message in (([0], "must list the player whose turn it is"), ([0, 2, 2], "twice")):
        data["turn"]["played_this_round"] = played
        with pytest.raises(HansaError, match=message):
            game.state_from_json(json.dumps(data, ensure_ascii=False))


def test_a_turn_order_compares_a_number(tmp_path):
    (found,) = problems("turn_order fewest controller of Lübeck", tmp_path)
    assert "the turn order compares a number" in found
