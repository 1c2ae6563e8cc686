"""An `end when` condition in words that already holds in the setup position would end every game
before its first decision: `hansa check` (and so `hansa build`) refuses it with one located error,
found by compiling the game and evaluating the condition on its real setup positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _spec(
    folder: Path, body: str, games: str = "game short-45p = short on hanseatic_45p players 4..5\n"
) -> Path:
    path = folder / "end.hansa"
    path.write_text(
        f'rules short "Short" extends bigbox_2021 {{\n{body}}}\n{games}', encoding="utf-8"
    )
    return path


@pytest.mark.parametrize(
    ("condition", "players"),
    [("players > 0", 4), ("turn number >= 0", 4), ("turn number <= 1", 4), ("players >= 5", 5)],
)
def test_a_condition_true_at_setup_is_one_located_error(
    tmp_path: Path, capsys, condition: str, players: int
) -> None:
    path = _spec(tmp_path, f"    end when track_pp >= 20 | {condition}\n")
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("error:") == 1, err
    assert "Traceback" not in err
    assert f"{path}:2:31: error: end condition '{condition}' already holds at setup" in err
    assert f"'short-45p', {players} players" in err
    assert "every game would end before its first decision" in err


def test_the_setup_position_is_the_real_one_after_the_setup_rules(tmp_path: Path, capsys) -> None:
    """No text says so: the condition holds only because `at setup:` gave every seat 2 PP."""
    body = "    at setup: gain 2 PP\n    end when some player has track PP >= 2\n"
    path = _spec(tmp_path, body)
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and f"{path}:3:14: error: end condition" in err
    fine = _spec(tmp_path, body.replace(">= 2", ">= 3"))
    assert main(["check", str(fine)]) == 0


def test_a_rule_set_shared_by_two_games_gets_one_error(tmp_path: Path, capsys) -> None:
    games = (
        "game short-45p = short on hanseatic_45p players 4..5\n"
        "game short-3p = short on hanseatic_3p players 3\n"
    )
    path = _spec(tmp_path, "    end when players > 0\n", games)
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("error:") == 1, err


def test_a_condition_false_at_setup_is_accepted_and_plays(tmp_path: Path, capsys) -> None:
    import hansa

    path = _spec(tmp_path, "    end when turn number >= 40\n")
    assert main(["check", str(path)]) == 0
    game = hansa.compile_game(str(path), 4, spec_dir=str(ROOT / "spec"))
    state = game.new_initial_state(0)
    assert not state.is_terminal() and state.legal_actions()


def test_build_refuses_it_and_writes_nothing(tmp_path: Path, capsys) -> None:
    spec = tmp_path / "spec"
    spec.mkdir()
    _spec(spec, "    end when players > 0\n")
    out = tmp_path / "generated"
    assert main(["build", "--spec", str(spec), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "already holds at setup" in err and "Traceback" not in err
    assert not out.exists() or not any(out.iterdir())


def test_the_shipped_spec_still_checks(capsys) -> None:
    assert main(["check", str(ROOT / "spec")]) == 0
