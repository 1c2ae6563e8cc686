"""`make_position` balances what the edits move (pieces, bonus markers, the completed-cities
count), takes short post lists, and reports every problem of a position at once."""

from __future__ import annotations

from collections import Counter

import pytest
from hansa.play.positions import make_position

import hansa


@pytest.fixture(scope="module")
def game():
    return hansa.load_game("bigbox-hanseatic-45p", players=4)


def _all_markers(data: dict) -> Counter:
    found = Counter(data["marker_supply"]) + Counter(data["markers_out_of_game"])
    found += Counter(r["marker"] for r in data["routes"] if r["marker"])
    for ps in data["player_state"]:
        found += Counter(ps["markers"]["unused"]) + Counter(ps["markers"]["used"])
    return found


def test_markers_placed_by_hand_leave_the_supply(game) -> None:
    start = game.new_initial_state(0).to_dict()
    state = make_position(
        game,
        {
            "routes": [{"cities": ["Bremen", "Hamburg"], "marker": "plus_4_actions"}],
            "player_state": {
                1: {"markers": {"unused": ["develop_ability"], "used": ["plus_3_actions"]}}
            },
        },
    )
    data = state.to_dict()
    assert _all_markers(data) == _all_markers(start)  # every marker once, none made up
    supply = Counter(start["marker_supply"])
    supply.subtract({"plus_4_actions": 1, "develop_ability": 1, "plus_3_actions": 1})
    assert Counter(data["marker_supply"]) == +supply


def test_a_marker_taken_off_the_board_goes_back_to_the_supply(game) -> None:
    start = game.new_initial_state(0).to_dict()
    state = make_position(game, {"routes": [{"cities": ["Bremen", "Osnabrück"], "marker": None}]})
    data = state.to_dict()
    assert _all_markers(data) == _all_markers(start)
    assert data["marker_supply"][-1] == "additional_trading_post"


def test_completed_cities_follow_the_posts(game) -> None:
    state = make_position(
        game,
        {
            "cities": [
                {"name": "Brunswiek", "posts": ["t0"]},
                {"name": "Bremen", "posts": ["t1", "t2"]},
                {"name": "Hamburg", "posts": ["t0"]},  # 1 of 3 spaces: the rest are empty
            ]
        },
    )
    data = state.to_dict()
    assert data["completed_cities"] == 2
    hamburg = next(c for c in data["cities"] if c["name"] == "Hamburg")
    assert hamburg["posts"] == ["t0", None, None]
    given = make_position(
        game, {"cities": [{"name": "Brunswiek", "posts": ["t0"]}], "completed_cities": 1}
    )
    assert given.to_dict()["completed_cities"] == 1


def test_every_problem_is_reported_at_once(game) -> None:
    with pytest.raises(hansa.HansaError) as info:
        make_position(
            game,
            {
                "routes": [
                    {"cities": ["Bremen", "Hamburg"], "points": ["m0", "m0", "m0", "m0"]},
                    {"cities": ["Hamburg", "Lübeck"], "marker": "move_tradesmen"},
                    {"cities": ["Emden", "Groningen"], "marker": "move_tradesmen"},
                ],
                "cities": [{"name": "Brunswiek", "posts": ["t0", "t1"]}],
                "player_state": {2: {"supply": {"traders": 30}, "stock": {"traders": 0}}},
            },
        )
    messages = [d.message for d in info.value.diagnostics]
    assert "position: player 0 would need 3 more merchants than they own" in messages
    assert "position: 3 'move_tradesmen' bonus markers are placed, but the game has 2" in messages
    assert "position: city Brunswiek has 1 trading-post spaces, but 2 posts are given" in messages
    assert "position: player 2 would need 19 more traders than they own" in messages
    assert len(messages) == 4
