"""The authoring mistakes of issue 33, one test each: one mistake gives one error, at the right
place, and every suggestion works when typed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hansa.compiler.project import load_project, sorted_unique
from hansa.runtime.errors import Diagnostic, Span

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "own_spec"


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    folder = tmp_path / "spec"
    shutil.copytree(FIXTURE, folder)
    return folder


def errors(folder: Path) -> list[str]:
    return [d.format().splitlines()[0] for d in load_project([folder]).errors]


def house(folder: Path, body: str, extends: str = "bigbox_2021") -> Path:
    path = folder / "mine.hansa"
    path.write_text(f'rules mine "Mine" extends {extends} {{\n{body}\n}}\n', encoding="utf-8")
    return path


def edit_board(folder: Path, old: str, new: str) -> Path:
    board = folder / "boards" / "ring.hansa"
    text = board.read_text(encoding="utf-8")
    assert old in text
    board.write_text(text.replace(old, new), encoding="utf-8")
    return board


def test_a_route_to_an_unknown_city_is_one_error_however_often_it_is_named(spec: Path) -> None:
    edit_board(spec, "route Erfurt -- Fulda: 3", "route Erfurt -- Fuldaa: 3")
    (only,) = errors(spec)  # not also "the special-prestige route … is not a route"
    assert "route Erfurt -- Fuldaa names unknown city 'Fuldaa' (did you mean 'Fulda'?)" in only


def test_a_renamed_city_is_one_error_at_its_first_use(spec: Path) -> None:
    edit_board(spec, "city Fulda ability book", "city Fuldo ability book")
    (only,) = errors(spec)  # the renamed city: east_west, special_prestige and routes name it
    assert "'Fulda'" in only and "also named at line" in only


def test_a_board_missing_its_closing_brace_is_one_error(spec: Path) -> None:
    board = spec / "boards" / "ring.hansa"
    text = board.read_text(encoding="utf-8").rstrip().removesuffix("}")
    board.write_text(text + "game bigbox-ring = bigbox_2021 on ring players 3\n", encoding="utf-8")
    (only,) = errors(spec)
    assert "unexpected 'game'" in only and "is not closed" in only
    assert "did you mean" not in only and "…" not in only and "whole number" not in only


def test_a_route_with_one_hyphen_is_one_error_that_does_not_contradict_itself(spec: Path) -> None:
    edit_board(spec, "route Bonn -- Celle: 3", "route Bonn - Celle: 3")
    (only,) = errors(spec)
    assert only.endswith("unexpected '-'; expected '--'")


def test_a_set_in_parentheses_is_one_error_saying_how_to_count_it(spec: Path) -> None:
    house(spec, "    after create_route: gain 1 PP if (cities you control) > 2")
    (only,) = errors(spec)
    assert ":2:50: error: unexpected 'control' after 'you'" in only
    assert "`count cities you control`" in only
    house(spec, "    after create_route: gain 1 PP if 2 < count cities you control")
    assert errors(spec) == []


def test_cities_you_control_at_the_end_of_a_line_is_reported_there(spec: Path) -> None:
    house(spec, "    after create_route: gain 1 PP if 2 < cities you control")
    (only,) = errors(spec)
    assert ":2:53: error: unexpected 'control' after 'you'" in only
    assert "goes" not in only


def test_a_name_of_several_words_is_suggested_in_quotes(spec: Path) -> None:
    house(spec, "    after create_route: receive marker Guild charter", "guild_charter")
    (only,) = errors(spec)
    assert 'a name of several words is written in double quotes ("Guild charter")' in only
    house(spec, '    after create_route: receive marker "Royal charter"', "guild_charter")
    (only,) = errors(spec)
    assert "unknown bonus marker 'Royal charter' (did you mean \"Guild charter\"?)" in only
    house(spec, '    after create_route: receive marker "Guild charter"', "guild_charter")
    assert errors(spec) == []  # the suggestion, typed as shown


@pytest.mark.parametrize("name", ["plus_3_actions", "Plus_3_Actions", "PLUS_3_ACTIONS"])
def test_receive_marker_is_not_case_sensitive(spec: Path, name: str) -> None:
    house(spec, f"    after create_route: receive marker {name}")
    (spec / "game.hansa").write_text("game mine-ring = mine on ring players 3\n", encoding="utf-8")
    assert errors(spec) == []


def test_track_points_suggests_track_pp(spec: Path) -> None:
    house(spec, "    after create_route: gain 1 PP if track points > 2")
    (only,) = errors(spec)
    assert "unknown quantity 'track points' (did you mean 'track PP'?)" in only
    house(spec, "    after create_route: gain 1 PP if track PP > 2")
    assert errors(spec) == []


def test_a_hook_is_named_as_written_with_where_the_effect_fits(spec: Path) -> None:
    house(spec, "    at turn end: gain 1 action")
    (only,) = errors(spec)
    assert "cannot be done at turn end; it can be done at turn start," in only
    said = only.split(": error: ")[1]
    assert "hook" not in said and "turn_end" not in said and "after create_route" in said


def test_an_unknown_statement_lists_every_statement_that_fits(spec: Path) -> None:
    house(spec, "    sometimes jump")
    (only,) = errors(spec)
    assert "unexpected 'sometimes'; expected " in only
    assert "…" not in only and "'forbid'" in only and "'tiebreak'" in only and "'}'" in only


def test_a_huge_player_range_is_one_error(spec: Path, capsys) -> None:
    (spec / "big.hansa").write_text(
        "game big = bigbox_2021 on ring players 4..1000000\n", encoding="utf-8"
    )
    code = main(["check", str(spec), "--no-playouts"])
    _, err = capsys.readouterr()
    found = [line for line in err.splitlines() if ": error: " in line]
    assert code == 1
    assert found == [
        f"{spec}/big.hansa:1:40: error: game big: 6..1,000,000 players; Hansa"
        " Teutonica is for 2 to 5"
    ]


def test_diagnostics_of_one_cause_are_capped() -> None:
    span = Span("f.hansa", 3, 5, 3, 9)
    many = [Diagnostic(f"seat {n} has {n + 4} traders", span) for n in range(1000)]
    other = Diagnostic("something else", span)
    (first, second) = sorted_unique([*many, other])
    assert first.message == "seat 0 has 4 traders (and 999 more like it)"
    assert second is other


def test_a_keyword_in_the_middle_of_a_line_does_not_start_a_second_statement(spec: Path) -> None:
    house(
        spec,
        "    after create_route: gain 2 bonus if cities completed now > 0,\n"
        "        gain 1 PP if established piece is a merchant",
    )
    (only,) = errors(spec)
    assert ":2:32: error: unexpected 'bonus': a statement starts on a line of its own" in only
    assert "'if'" in only and "'forbid'" not in only
