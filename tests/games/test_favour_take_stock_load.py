"""Loading a state with a pending take-from-stock choice: the frame must be one a rule of the game
can leave (TAKE_STOCK_SOURCES, generated from the spec). With Emperor's Favour (p. 11) that is the
holder of the tile triggered by another player's Income, offered a trader or a merchant, one
piece; a frame of anyone else, of other kinds or of more pieces is refused with one error naming
the field, and the state it came from is left as it was."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from scenario_support import act, doc
from test_favour import STOCK_TILE, holder_position

import hansa

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def favour():
    return hansa.load_game("bigbox-hanseatic-45p-favour", players=4)


def _pending(favour) -> tuple[hansa.runtime.state.BaseState, dict]:
    """Player 2 holds the stock tile and decides after player 0's Income."""
    state = holder_position(favour)
    act(state, "income: 1 traders, 0 merchants")
    assert doc(state)["stack"] == [
        {"frame": "take_from_stock", "player": 2, "left": 1, "kinds": ["trader", "merchant"]}
    ]
    return state, state.to_dict()


def _refused(game, data: dict, field: str, words: str) -> None:
    with pytest.raises(hansa.HansaError) as info:
        game.state_from_json(data)
    message = str(info.value)
    assert f"stack[0].{field}: " in message and words in message, message
    assert message.count("state JSON") == 1


def test_the_holders_frame_loads(favour) -> None:
    state, data = _pending(favour)
    again = favour.state_from_json(data)
    assert again.to_json() == state.to_json() and again.current_player() == 2


def test_a_frame_of_a_player_without_the_tile_is_refused(favour) -> None:
    state, data = _pending(favour)
    before = state.to_json()
    wrong = copy.deepcopy(data)
    wrong["stack"][0]["player"] = 1  # holds no tile
    _refused(favour, wrong, "player", "no tile they hold has a trigger that gives it")
    nobody = copy.deepcopy(data)
    nobody["favour"]["held"][2] = []  # the tile back in the box: nobody holds it
    _refused(favour, nobody, "player", "player 2 cannot have this choice")
    other_tile = copy.deepcopy(data)
    other_tile["favour"]["held"][2] = ["City PP"]
    other_tile["favour"]["face_up"] = [t for t in data["favour"]["face_up"] if t != "City PP"]
    _refused(favour, other_tile, "player", "player 2 cannot have this choice")
    assert state.to_json() == before  # nothing of the source state changed


def test_the_turn_players_own_tile_gives_no_frame(favour) -> None:
    """The tile reacts to *another* player's Income: the acting holder gets no choice."""
    _state, data = _pending(favour)
    data["favour"]["held"] = [[STOCK_TILE], [], [], []]
    data["stack"][0]["player"] = 0
    _refused(favour, data, "player", "in player 0's turn")


def test_impossible_kinds_or_pieces_are_refused(favour) -> None:
    _state, data = _pending(favour)
    traders = copy.deepcopy(data)
    traders["stack"][0]["kinds"] = ["trader"]  # the tile offers either kind
    _refused(favour, traders, "kinds", "a choice of trader/merchant here")
    more = copy.deepcopy(data)
    more["stack"][0]["left"] = 2  # the tile gives 1 piece
    _refused(favour, more, "left", "2 pieces left, but the rule gives at most 1")


def _house(tmp_path: Path, body: str) -> hansa.Game:
    path = tmp_path / "house.hansa"
    path.write_text(
        f'rules house "House" extends bigbox_2021 {{\n{body}}}\n'
        "game house-45p = house on hanseatic_45p players 4..5\n",
        encoding="utf-8",
    )
    return hansa.compile_game(str(path), 4, spec_dir=str(ROOT / "spec"))


def _with_frame(game: hansa.Game, player: int, left: int, kinds: list[str]) -> dict:
    data = game.new_initial_state(0).to_dict()
    data["stack"] = [{"frame": "take_from_stock", "player": player, "left": left, "kinds": kinds}]
    return data


def test_a_rule_without_a_trigger_gives_the_choice_to_the_turn_player_only(tmp_path) -> None:
    """The table comes from the spec: a turn-start rule's choice is the turn player's."""
    game = _house(tmp_path, "    at turn start: you may take 2 traders from the stock\n")
    turn = game.new_initial_state(0).to_dict()["turn"]["player"]
    state = game.state_from_json(_with_frame(game, turn, 2, ["trader"]))
    assert state.current_player() == turn
    _refused(game, _with_frame(game, (turn + 1) % 4, 1, ["trader"]), "player", "cannot have")
    _refused(game, _with_frame(game, turn, 3, ["trader"]), "left", "at most 2")
    _refused(game, _with_frame(game, turn, 1, ["merchant"]), "kinds", "a choice of trader")


def test_a_computed_number_of_pieces_is_not_bounded(tmp_path) -> None:
    game = _house(
        tmp_path, "    at turn start: you may take (level of book) pieces from the stock\n"
    )
    turn = game.new_initial_state(0).to_dict()["turn"]["player"]
    state = game.state_from_json(_with_frame(game, turn, 5, ["trader", "merchant"]))
    assert state.current_player() == turn
