"""`end when …` takes catalogue triggers and conditions in words side by side, and a game
reports by name which of its end triggers ended it (`state.end_conditions_met()`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hansa.play.simulate import make_agents, play_game

import hansa
from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _spec(tmp_path: Path, end: str) -> Path:
    path = tmp_path / "end.hansa"
    path.write_text(
        'rules short_turns "Short" extends bigbox_2021 {\n'
        f"    end when {end}\n"
        "}\n"
        "game short-turns-45p = short_turns on hanseatic_45p players 4..5\n",
        encoding="utf-8",
    )
    return path


def _compile(tmp_path: Path, end: str):
    return hansa.compile_game(str(_spec(tmp_path, end)), 4, spec_dir=str(ROOT / "spec"))


def test_a_game_ends_when_its_condition_in_words_becomes_true(tmp_path: Path) -> None:
    game = _compile(tmp_path, "turn number >= 12")
    record, state = play_game(game, make_agents(["greedy"] * 4, 3), 3)
    assert state.is_terminal()
    assert record.end_trigger == "turn number >= 12"
    assert state.end_conditions_met() == ["turn number >= 12"]
    assert record.turns <= 12  # it ends as the twelfth turn begins, not later


def test_catalogue_triggers_and_words_mix_in_one_statement(tmp_path: Path) -> None:
    game = _compile(tmp_path, "marker_supply_empty | completed cities >= 2 | turn number >= 300")
    record, state = play_game(game, make_agents(["greedy"] * 4, 5), 5)
    assert state.is_terminal()
    assert "completed cities >= 2" in record.end_trigger.split("+")
    assert state.to_dict()["completed_cities"] >= 2


def test_the_editions_name_their_triggers() -> None:
    game = hansa.load_game("bigbox-hanseatic-45p", 4)
    state = game.new_initial_state(0)
    assert state.end_conditions_met() == []
    record, state = play_game(game, make_agents(["greedy"] * 4, 11), 11)
    final = state.to_dict()
    met = state.end_conditions_met()
    assert ("track_pp" in met) == (max(p["track"] for p in final["player_state"]) >= 20)
    assert ("completed_cities" in met) == (final["completed_cities"] >= 10)
    assert set(record.end_trigger.split("+")) >= set(met)


@pytest.mark.parametrize(
    ("end", "message"),
    [
        ("track_p >= 20", "unknown end trigger 'track_p' (did you mean 'track_pp'?)"),
        ("turn numbr >= 40", "unknown quantity 'turn numbr' (did you mean 'turn number'?)"),
        ("turn number", "an end trigger is a condition; 'turn number' is a number"),
        ("track_pp >= 2 + 3", "a threshold is a number or one word"),
    ],
)
def test_a_wrong_end_condition_is_one_located_error(
    tmp_path: Path, capsys, end: str, message: str
) -> None:
    path = _spec(tmp_path, end)
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("error:") == 1, err
    assert f"{path}:2:" in err and message in err
