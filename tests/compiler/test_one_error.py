"""One mistake, one error: a broken declaration is reported once (not again as "unknown" wherever
it is used), an unclosed block says where it opened, "did you mean" ignores accents, state JSON
names the right city, and no diagnostic can write control characters to the terminal."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hansa.compiler.errors import did_you_mean
from hansa.compiler.syntax.parser import parse_text
from hansa.runtime.errors import Diagnostic, Span, printable

import hansa
from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "own_spec"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if ": error: " in line]


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    folder = tmp_path / "spec"
    shutil.copytree(FIXTURE, folder)
    shutil.copy(ROOT / "spec" / "bigbox_2021.hansa", folder)
    (folder / "more.hansa").write_text(
        "game quick-ring-3 = quick on ring players 3\n"
        "game big-ring = bigbox_2021 on ring players 4\n"
        'rules quicker "Quicker" extends quick {\n    end when track_pp >= 10\n}\n'
        "game quicker-ring = quicker on ring players 3\n",
        encoding="utf-8",
    )
    return folder


def test_a_board_that_fails_to_lower_is_one_error(spec: Path, capsys) -> None:
    board = spec / "boards" / "ring.hansa"
    board.write_text(board.read_text().replace("square white; round orange", "square whit"))
    code, _, err = run(capsys, "check", str(spec))
    assert code == 1
    (only,) = error_lines(err)
    assert "unknown privilege colour 'whit' (did you mean 'white'?)" in only
    assert "unknown board" not in err
    code, _, err = run(capsys, "play", "big-ring", "--spec", str(spec), "--players", "4")
    assert code == 1
    assert len(error_lines(err)) == 1 and "unknown" not in err.replace("unknown privilege", "")


def test_a_rule_set_that_fails_to_parse_is_one_error(spec: Path, capsys) -> None:
    house = spec / "house.hansa"
    house.write_text(
        house.read_text().replace("end when track_pp >= 12\n}", "end when track_pp >= 12\n")
    )
    code, _, err = run(capsys, "check", str(spec))
    assert code == 1
    (only,) = error_lines(err)
    assert "unknown rule set" not in err
    assert "(the block opened with '{' at 1:48 is not closed)" in only
    code, _, err = run(capsys, "play", "quicker-ring", "--spec", str(spec))
    assert code == 1
    assert error_lines(err) == [only] and "unknown rule set" not in err


def test_an_unclosed_block_says_where_it_opened() -> None:
    text = (
        'board b "B" {\n    city A { square white }\n    city B { round pink\n'
        "    route A -- B: 2\n}\n"
    )
    with pytest.raises(hansa.HansaError) as info:
        parse_text(text, "t.hansa")
    assert info.value.message.endswith("(the block opened with '{' at 3:12 is not closed)")
    with pytest.raises(hansa.HansaError) as info:
        parse_text('board b "B" {\n    city A { square white }\n', "t.hansa")
    assert info.value.message.endswith("(the block opened with '{' at 1:13 is not closed)")
    # a mistake inside a block that is closed says nothing about blocks
    with pytest.raises(hansa.HansaError) as info:
        parse_text('board b "B" {\n    cty A { square white }\n}\n', "t.hansa")
    assert "block opened" not in info.value.message


def test_did_you_mean_ignores_accents() -> None:
    assert did_you_mean("Lodz", ["Łódź", "Lübeck", "Lüneburg"]) == " (did you mean 'Łódź'?)"
    assert did_you_mean("Luebeck", ["Łódź", "Lübeck"]) == " (did you mean 'Lübeck'?)"
    assert did_you_mean("GOTTINGEN", ["Göttingen"]) == " (did you mean 'Göttingen'?)"
    assert did_you_mean("Paris", ["Łódź"]) == ""


def test_an_unknown_city_on_a_board_suggests_the_accented_one(tmp_path: Path, capsys) -> None:
    path = tmp_path / "b.hansa"
    path.write_text(
        'board b "B" {\n    east_west Łódź -- Kraków\n    completed_cities 2\n'
        "    city Łódź { square white }\n    city Kraków { round pink }\n"
        "    route Lodz -- Kraków: 2 tavern\n}\n",
        encoding="utf-8",
    )
    code, _, err = run(capsys, "check", str(path))
    assert code == 1
    assert "'Lodz'" in err and "(did you mean 'Łódź'?)" in err


def test_state_json_names_the_right_city_and_lists_them_all() -> None:
    game = hansa.load_game("bigbox-hanseatic-3p")
    data = game.new_initial_state(0).to_dict()
    city = next(i for i, c in enumerate(data["cities"]) if c["name"] == "Lübeck")
    data["cities"][city]["name"] = "Lubeck"
    with pytest.raises(hansa.HansaError) as info:
        game.state_from_json(data)
    assert "got 'Lubeck' (did you mean 'Lübeck'?); expected one of 'Arnheim'" in info.value.message
    assert "'Warburg'" in info.value.message  # every city, not the first twelve
    data = game.new_initial_state(0).to_dict()
    data["routes"][0]["cities"] = ["Arnheim", "Duisberg"]
    with pytest.raises(hansa.HansaError) as info:
        game.state_from_json(data)
    message = info.value.message
    assert "'Duisberg' is no city of this board (did you mean 'Duisburg'?)" in message
    assert "cities: Arnheim, Bremen," in message and message.endswith("Warburg)")


def test_control_characters_in_diagnostics_are_escaped(tmp_path: Path, capsys) -> None:
    path = tmp_path / "b.hansa"
    path.write_text(
        'board b "B" {\n    east_west A -- B\n    completed_cities 2\n'
        "    city A { square white }\n    city B { round pink }\n"
        '    route A -- "\x1b[2J\u2028x": 2 tavern\n}\n',
        encoding="utf-8",
    )
    code, out, err = run(capsys, "check", str(path))
    assert code == 1
    assert "\x1b" not in err + out and "\u2028" not in err + out
    assert "\\x1b[2J\\u2028x" in err
    assert printable("a\x1b[31mb\tc\x85") == "a\\x1b[31mb\tc\\x85"
    shown = Diagnostic("bad \x07", Span("f", 1, 3, 1, 4), source_line="x \x1by").format()
    assert shown.splitlines() == ["f:1:3: error: bad \\x07", "    x \\x1by", "      ^~~~"]
