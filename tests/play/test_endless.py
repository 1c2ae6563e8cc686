"""A game that cannot end is found by `hansa check`: seeded greedy and greedy-and-random playouts,
bounded in decisions, and a warning at the rule whose removal lets the game end (else at the
game's line); a game found to end is remembered, so a second check plays nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hansa.compiler.project import load_project
from hansa.play import endless

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "own_spec"


@pytest.fixture
def spec(tmp_path: Path, monkeypatch) -> Path:
    folder = tmp_path / "spec"
    shutil.copytree(FIXTURE, folder)
    monkeypatch.setenv("HANSA_CACHE", str(tmp_path / "cache"))
    return folder


def house(folder: Path, body: str, name: str = "stall") -> Path:
    path = folder / f"{name}.hansa"
    path.write_text(
        f'rules {name} "A house rule" extends bigbox_2021 {{\n{body}}}\n'
        f"game {name}-ring = {name} on ring players 3\n",
        encoding="utf-8",
    )
    return path


def warnings(capsys, *argv: str) -> tuple[int, list[str], str]:
    code = main(["check", *argv])
    _, err = capsys.readouterr()
    return code, [line for line in err.splitlines() if ": warning: " in line], err


def test_a_forbid_that_stops_all_scoring_is_found_at_its_line(spec: Path, capsys) -> None:
    path = house(spec, "    forbid create_route when turn number >= 1\n")
    code, found, err = warnings(capsys, str(spec))
    assert code == 0  # a warning: the playouts are evidence, not proof
    (only,) = found
    assert only.startswith(f"{path}:2:5: warning: game 'stall-ring' may never end")
    assert f"{endless.PLAYOUT_DECISIONS} decisions" in only and "track PP 0, 0, 0" in only
    assert "without this rule the greedy playout ends" in only
    code, found, _ = warnings(capsys, str(spec), "--strict")
    assert code == 1 and len(found) == 1


def test_a_price_no_one_can_pay_is_found_among_several_rules(spec: Path, capsys) -> None:
    path = house(
        spec,
        "    after income: gain 1 PP if turn number > 1000\n"
        "    forbid place when your track PP >= 0 and turn number > 2\n"
        "    forbid move when turn number > 2\n",
    )
    _, found, _ = warnings(capsys, str(spec))
    (only,) = found
    assert only.startswith(f"{path}:3:5: warning: game 'stall-ring' may never end")


def test_an_endless_game_with_no_single_rule_to_blame_is_found_at_the_game(spec: Path) -> None:
    path = house(
        spec,
        "    forbid create_route when turn number >= 1\n    forbid place when turn number >= 1\n",
    )
    project = load_project([spec])
    (only,) = endless.endless_games(project)
    assert only.span.file == str(path) and only.span.line == 5  # the game's line
    assert only.severity == "warning"


def test_a_game_that_ends_gives_nothing_and_is_played_once(spec: Path, monkeypatch) -> None:
    project = load_project([spec])
    assert endless.endless_games(project) == []

    def no_more_playing(*args, **kwargs):
        raise AssertionError("a game found to end was played again")

    monkeypatch.setattr(endless, "playout", no_more_playing)
    assert endless.endless_games(load_project([spec])) == []


def test_the_playouts_can_be_skipped(spec: Path, capsys) -> None:
    house(spec, "    forbid create_route when turn number >= 1\n")
    code, found, _ = warnings(capsys, str(spec), "--no-playouts")
    assert code == 0 and found == []


def test_a_playout_is_bounded_and_seeded(spec: Path) -> None:
    house(spec, "    forbid create_route when turn number >= 1\n")
    project = load_project([spec])
    game = project.games["stall-ring"]
    rules = project.resolved_rulesets[game.rules]
    _, module = endless._module(game, rules, project.boards["ring"], project.sources)
    runs = [endless.playout(module, 3, 1, "even") for _ in range(2)]
    assert runs[0] == runs[1]
    assert not runs[0].ended and runs[0].decisions == endless.PLAYOUT_DECISIONS
