"""Engine scenarios the rule-book tests leave implicit: the decision frames' edge cases."""

from __future__ import annotations

import pytest
from hansa.play.positions import make_position

import hansa


@pytest.fixture(scope="module")
def game():
    return hansa.load_game("bigbox-hanseatic-45p", players=4)


def names(state) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def do(state, text: str) -> None:
    for a in state.legal_actions():
        if state.action_to_string(a) == text:
            state.apply_action(a)
            return
    raise AssertionError(f"{text!r} not legal; legal: {names(state)}")


def test_a_move_may_not_put_everything_back_as_it_was(game):
    """RULES.md §4 Decision no_op_actions = illegal: a piece moved back where it was is no move."""
    state = make_position(
        game, {"routes": [{"cities": ["Hamburg", "Lübeck"], "points": ["t0", None, None]}]}
    )
    do(state, "move own tradesmen")
    do(state, "pick up the piece on Hamburg–Lübeck #1")  # the only piece: dropping comes next
    legal = names(state)
    assert "put the held piece on Hamburg–Lübeck #1" not in legal
    assert "put the held piece on Hamburg–Lübeck #2" in legal


def test_two_own_pieces_may_swap_places_but_not_both_return(game):
    state = make_position(
        game, {"routes": [{"cities": ["Hamburg", "Lübeck"], "points": ["t0", "m0", None]}]}
    )
    do(state, "move own tradesmen")
    do(state, "pick up the piece on Hamburg–Lübeck #1")  # the trader
    do(state, "pick up the piece on Hamburg–Lübeck #2")  # the merchant
    assert "stop picking up" not in names(state)  # Book 2: both picked, dropping starts
    do(state, "put the held piece on Hamburg–Lübeck #1")  # trader back where it was
    assert "put the held piece on Hamburg–Lübeck #2" not in names(state)
    do(state, "put the held piece on Hamburg–Lübeck #3")
    route = next(r for r in state.to_dict()["routes"] if r["cities"] == ["Hamburg", "Lübeck"])
    assert route["points"] == ["t0", None, "m0"]
    # JSON round trip in the middle of a move keeps the no-op rule
    state2 = make_position(
        game, {"routes": [{"cities": ["Hamburg", "Lübeck"], "points": ["t0", "m0", None]}]}
    )
    for text in (
        "move own tradesmen",
        "pick up the piece on Hamburg–Lübeck #1",
        "pick up the piece on Hamburg–Lübeck #2",
        "put the held piece on Hamburg–Lübeck #1",
    ):
        do(state2, text)
    loaded = game.state_from_json(state2.to_json())
    assert loaded.legal_actions() == state2.legal_actions()


def test_the_displacer_chooses_how_to_pay_when_both_kinds_can(game):
    state = make_position(
        game,
        {
            "routes": [{"cities": ["Hamburg", "Lübeck"], "points": ["m1", None, None]}],
            "player_state": {
                0: {"supply": {"traders": 3, "merchants": 2}, "abilities": {"book": 1}}
            },
        },
    )
    do(state, "displace trader on Hamburg–Lübeck #1")  # a merchant: costs 2 more pieces
    assert state.current_player() == 0
    assert names(state) == [
        "pay the displacement cost with 0 merchants",
        "pay the displacement cost with 1 merchants",
        "pay the displacement cost with 2 merchants",
    ]
    do(state, "pay the displacement cost with 1 merchants")
    data = state.to_dict()
    assert data["player_state"][0]["supply"] == {"traders": 1, "merchants": 1}
    assert state.current_player() == 1  # the displaced owner places the merchant next
    assert all(n.startswith("place the displaced piece on") for n in names(state))


def test_extras_come_off_the_board_when_stock_and_supply_are_empty(game):
    state = make_position(
        game,
        {
            "routes": [
                {"cities": ["Hamburg", "Lübeck"], "points": ["t1", None, None]},
                {"cities": ["Emden", "Osnabrück"], "points": ["t1", "t1", None, None]},
            ],
            "cities": [  # where player 1's other traders are
                {"name": "Minden", "posts": ["t1", "t1", "t1", "t1"]},
                {"name": "Osnabrück", "posts": ["t1", "t1", "t1"]},
                {"name": "Bremen", "posts": ["m1", None]},
                {"name": "Hamburg", "posts": ["t1", None, None]},
            ],
            "completed_cities": 2,
            "player_state": {
                0: {"supply": {"traders": 3, "merchants": 0}},
                1: {
                    "supply": {"traders": 0, "merchants": 0},
                    "stock": {"traders": 0, "merchants": 0},
                },
            },
        },
        take_from=("stock",),
    )
    do(state, "displace trader on Hamburg–Lübeck #1")
    place = [n for n in names(state) if n.startswith("place the displaced piece")]
    assert place and all("Hamburg" in n or "Lübeck" in n for n in place)
    do(state, place[0])
    legal = names(state)
    assert "take the extra piece from Emden–Osnabrück #1" in legal
    assert "decline further extra pieces" in legal
    assert not any(n.startswith("take an extra") for n in legal)
    do(state, "take the extra piece from Emden–Osnabrück #1")
    assert all(n.startswith("place the displaced piece") for n in names(state))
