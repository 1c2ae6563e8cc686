"""A state read from JSON must be one the rules can produce: pending frames fit the rule set (the
Book's move count, a used marker of the right type and size), a finished game meets an end
condition, every number is bounded; hostile JSON (huge numbers, deep nesting) is one clear error
in `state_from_json`, `hansa score` and `hansa replay`, never a traceback."""

from __future__ import annotations

import json

import pytest
from scenario_support import Position, legal, load

from hansa.cli import main

BIGBOX = "bigbox-hanseatic-45p"
ORIGINAL = "original-hanseatic-45p"


@pytest.fixture(scope="module")
def bigbox():
    return load(BIGBOX, 4)


@pytest.fixture(scope="module")
def original():
    return load(ORIGINAL, 4)


def move_frame(whose: str = "own", left: int = 2, **more) -> dict:
    frame = {"frame": "move", "player": 0, "whose": whose, "left": left, "holding": []}
    frame.update(phase="pick", picked=[], unchanged=True)
    frame.update(more)
    return frame


def with_stack(game, *frames: dict, used: tuple[str, ...] = ()) -> Position:
    pos = Position(game).route("Hamburg", "Lübeck", "t0", "t1", None)
    pos.route("Bremen", "Hamburg", "t2", "t3", None, None).player(0, used=list(used))
    pos.stack = list(frames)
    return pos


def refused(pos: Position, field: str, words: str) -> None:
    with pytest.raises(Exception) as info:
        pos.state()
    assert type(info.value).__name__ == "HansaError"
    text = str(info.value)
    assert f"stack[0].{field}" in text or field in text, text
    assert words in text, text


# ---------------------------------------------------------------- move frames
def test_a_move_of_own_pieces_picks_at_most_the_book_value(bigbox):
    """The Book at level 0 allows 2 pieces: a frame with 107 left used to load, and the player
    could then pick up 43 pieces."""
    state = with_stack(bigbox, move_frame(left=2)).state()
    assert any(text.startswith("pick up") for text in legal(state))
    refused(with_stack(bigbox, move_frame(left=107)), "left", "the Book allows 2")
    picked = [{"route": ["Hamburg", "Lübeck"], "point": 1, "piece": "t0"}]
    refused(
        with_stack(bigbox, move_frame(left=2, picked=picked, phase="pick")),
        "left",
        "the Book allows 2",
    )


def test_a_move_of_others_pieces_needs_a_used_move_marker_that_allows_it(bigbox):
    """`whose: any` fits no Big Box marker (Move 3 moves opponents' pieces); `opponents` needs
    the player's used Move-3 marker, and at most 3 pieces."""
    refused(with_stack(bigbox, move_frame("any", 3)), "whose", "no used move marker")
    refused(with_stack(bigbox, move_frame("opponents", 3)), "whose", "no used move marker")
    used = ("move_tradesmen",)
    state = with_stack(bigbox, move_frame("opponents", 3), used=used).state()
    assert any(text.startswith("pick up") for text in legal(state))
    refused(
        with_stack(bigbox, move_frame("opponents", 4), used=used),
        "left",
        "the marker allows 3",
    )


def holding_position(game, holding: list[str], left: int) -> Position:
    """Player 0 picked the trader on Hamburg-Lübeck's first point and holds `holding`; the
    general stock gives up the pieces held (Position counts only pieces on the board)."""
    picked = [{"route": ["Hamburg", "Lübeck"], "point": 0, "piece": "t0"}]
    frame = move_frame(left=left, picked=picked, holding=holding, phase="drop")
    pos = with_stack(game, frame).route("Hamburg", "Lübeck", None, "t1", None)
    data = pos.to_dict()
    data["player_state"][0]["stock"]["traders"] -= len(holding)
    pos.to_dict = lambda: data
    return pos


def test_held_pieces_are_the_last_ones_picked(bigbox):
    """Pieces are dropped in the order picked, so those held are the last ones picked."""
    state = holding_position(bigbox, ["t0"], 1).state()
    assert any(text.startswith("put the held piece") for text in legal(state))
    refused(holding_position(bigbox, ["t0", "t0"], 0), "holding", "the last ones picked")


# ---------------------------------------------------------------- other marker frames
def test_remove_develop_and_exchange_frames_need_their_used_marker(original):
    remove = {
        "frame": "remove",
        "player": 0,
        "whose": "opponents",
        "to": "personal_supply",
        "left": 3,
        "removed": 0,
    }
    refused(with_stack(original, remove), "whose", "no used remove marker")
    state = with_stack(original, remove, used=("remove_tradesmen",)).state()
    assert any("remove" in text for text in legal(state))
    refused(
        with_stack(original, {**remove, "left": 2, "removed": 2}, used=("remove_tradesmen",)),
        "left",
        "the marker allows 3",
    )
    refused(
        with_stack(original, {**remove, "to": "stock"}, used=("remove_tradesmen",)),
        "whose",
        "no used remove marker",
    )
    develop = {"frame": "develop", "player": 0, "ability": "any"}
    refused(with_stack(original, develop), "ability", "no used develop marker")
    assert with_stack(original, develop, used=("develop_ability",)).state()
    exchange = {"frame": "exchange", "player": 0, "must_own_one": True}  # 2009: no ownership
    pos = with_stack(original, exchange, used=("exchange_trading_posts",))
    pos.city("Hamburg", "t1", "t2")
    refused(pos, "must_own_one", "no used exchange marker")


def test_a_pending_payment_keeps_the_displaced_piece_and_its_cost(bigbox):
    """Displacing a trader costs 1 (p. 5): a payment of 2 pending on it is no position of play."""

    def position(cost: int) -> Position:
        displaced = {
            "frame": "displaced",
            "player": 1,
            "route": ["Hamburg", "Lübeck"],
            "holding": "trader",
            "extras_left": 1,
        }
        pay = {"frame": "pay_displacement_cost", "player": 0, "cost": cost}
        pos = Position(bigbox).route("Hamburg", "Lübeck", "t0", None, None)
        pos.player(0, supply=(3, 1))
        pos.stack = [displaced, pay]
        data = pos.to_dict()
        data["player_state"][1]["stock"]["traders"] -= 1  # the displaced trader is held
        pos.to_dict = lambda: data
        return pos

    state = position(1).state()
    assert len(legal(state)) == 2  # pay with the trader or with the merchant
    refused(position(2), "stack", "cost and extras")


# ---------------------------------------------------------------- the end of the game
def test_game_over_needs_an_end_condition(bigbox):
    pos = Position(bigbox).player(0, track=12)
    pos.game_over = True
    refused(pos, "turn.game_over", "no end condition")
    pos = Position(bigbox).player(0, track=20)
    pos.game_over = True
    assert pos.state().is_terminal()
    assert Position(bigbox).player(0, track=12).finished().state().is_terminal()
    pos = Position(bigbox).player(0, track=12)
    pos.ending = True
    refused(pos, "turn.game_ends_after_action", "no end condition")


# ---------------------------------------------------------------- numbers and JSON
def test_every_number_is_bounded(bigbox):
    data = Position(bigbox).to_dict()
    data["player_state"][0]["track"] = 10**30
    with pytest.raises(Exception, match=r"track: a number of about 31 digits is above"):
        bigbox.state_from_json(json.dumps(data))
    data["player_state"][0]["track"] = 10**5000  # a dict given directly: no str() of it
    with pytest.raises(Exception, match=r"player_state\[0\]\.track: a number of about 5001"):
        bigbox.state_from_json(data)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"players": ' + "9" * 5000 + "}", "a number of 5000 digits is too large (line 1, column"),
    ],
)
def test_hostile_json_is_one_clear_error(bigbox, text, words):
    with pytest.raises(Exception) as info:
        bigbox.state_from_json(text)
    assert type(info.value).__name__ == "HansaError" and words in str(info.value)


def test_score_and_replay_refuse_hostile_json_with_a_location(tmp_path, capsys):
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000, encoding="utf-8")
    huge = tmp_path / "huge.json"
    huge.write_text('{\n  "game": "bigbox-hanseatic-45p",\n  "track": ' + "7" * 5000 + "\n}\n")
    assert main(["score", str(nested)]) == 1
    assert (
        f"{nested}:1:1: error: not valid JSON for us: nested too deeply" in capsys.readouterr().err
    )
    assert main(["score", str(huge)]) == 1
    assert f"{huge}:3:12: error: a number of 5000 digits is too large" in capsys.readouterr().err
    log = tmp_path / "game.jsonl"
    log.write_text('{"type": "header", "n": ' + "1" * 5000 + "}\n", encoding="utf-8")
    assert main(["replay", str(log)]) == 1
    err = capsys.readouterr().err
    assert "a number of 5000 digits is too large" in err and "Traceback" not in err
    log.write_text("[" * 100_000 + "\n", encoding="utf-8")
    assert main(["replay", str(log)]) == 1
    assert "nested too deeply" in capsys.readouterr().err


def test_board_import_refuses_hostile_json_with_a_location(tmp_path, capsys):
    big = tmp_path / "big.json"
    big.write_text('{\n "schema": ' + "1" * 5000 + "}\n", encoding="utf-8")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000, encoding="utf-8")
    assert main(["import", str(big)]) == 1
    assert f"{big}:2:12: error: a number of 5000 digits is too large" in capsys.readouterr().err
    assert main(["import", str(deep)]) == 1
    assert f"{deep}:1:1: error: not valid JSON for us: nested too deeply" in capsys.readouterr().err
