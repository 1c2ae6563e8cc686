"""Triggered favour tiles reacting to a bonus marker's use (`favour "NAME" when another player
uses a bonus marker: EFFECTS`), the same mechanism as the tiles reacting to the turn's actions:
each holder's effects run once the marker is used, clockwise from its user; a choice they leave
waits below the marker's own decisions."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from scenario_support import Position, act, doc, legal, markers, supply, track
from test_favour import TRADER, with_favour
from variant_support import variant

import hansa
from hansa.cli import main

TILES = (
    'favour "Marker toll" when another player uses a bonus marker: gain 1 PP\n'
    'favour "Own marker" when you use a bonus marker: you may take 1 trader from the stock\n'
    'favour "Any marker" when any player uses a bonus marker: gain 2 PP'
)


@pytest.fixture(scope="module")
def game():
    return variant(TILES)


def _position(game, held, unused=("plus_3_actions",)):
    pos = Position(game).player(0, unused=list(unused))
    return with_favour(pos.to_move(0, actions_left=2), face_up=[], held=held)


def test_another_players_marker_use_triggers_the_holders_tile(game) -> None:
    state = _position(game, [[], ["Marker toll"], ["Any marker"], []])
    before = track(state)
    act(state, "use bonus marker plus_3_actions")
    assert [a - b for a, b in zip(track(state), before, strict=True)] == [0, 1, 2, 0]
    assert markers(state, 0) == ([], ["plus_3_actions"])
    assert doc(state)["turn"]["actions_left"] == 5 and state.current_player() == 0


def test_the_holders_own_use_triggers_you_and_any_but_not_another(game) -> None:
    state = _position(game, [["Marker toll", "Own marker", "Any marker"], [], [], []])
    before, supply_before = track(state), supply(state, 0)
    act(state, "use bonus marker plus_3_actions")
    assert track(state)[0] == before[0] + 2  # "Any marker" only; "Marker toll" is for others
    assert doc(state)["stack"] == [
        {"frame": "take_from_stock", "player": 0, "left": 1, "kinds": ["trader"]}
    ]
    act(state, TRADER)
    assert supply(state, 0) == (supply_before[0] + 1, supply_before[1])
    assert doc(state)["turn"]["actions_left"] == 5


def test_actions_do_not_trigger_a_marker_tile(game) -> None:
    state = _position(game, [[], ["Marker toll"], ["Any marker"], []])
    before = track(state)
    act(state, "income: 1 traders, 0 merchants")
    assert track(state) == before


def test_a_markers_own_decisions_come_before_the_holders(game) -> None:
    """A marker with a decision (develop an ability) finishes first; then the holder decides."""
    state = _position(game, [["Own marker"], [], [], []], unused=("develop_ability",))
    act(state, "use bonus marker develop_ability")
    assert [f["frame"] for f in doc(state)["stack"]] == ["take_from_stock", "develop"]
    develop = next(a for a in legal(state) if a.startswith("develop"))
    act(state, develop)
    assert doc(state)["stack"][0]["frame"] == "take_from_stock" and state.current_player() == 0
    assert game.state_from_json(state.to_json()).to_json() == state.to_json()


def test_random_play_with_marker_tiles_round_trips(game) -> None:
    rng = random.Random(3)
    state = game.new_initial_state(3)
    for step in range(1200):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
        if step % 20 == 0:
            assert game.state_from_json(state.to_json()).to_json() == state.to_json()


def test_the_trigger_prints_as_written_and_a_wrong_article_is_one_error(tmp_path: Path, capsys):
    from hansa.compiler.nodes.expr import trigger_text

    assert trigger_text("another:use_marker") == " when another player uses a bonus marker"
    assert trigger_text("you:use_marker") == " when you use a bonus marker"
    path = tmp_path / "bad.hansa"
    path.write_text(
        'rules bad "Bad" extends bigbox_2021 {\n'
        '    favour "Toll" when another player uses the bonus marker: gain 1 PP\n'
        "}\ngame bad-45p = bad on hanseatic_45p players 4..5\n",
        encoding="utf-8",
    )
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("error:") == 1
    assert f"{path}:2:44: error: write `another player uses a bonus marker`" in err
    with pytest.raises(hansa.HansaError):
        hansa.compile_game(str(path), 4)
