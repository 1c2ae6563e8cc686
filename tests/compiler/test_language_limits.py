"""The language's limits (docs/rules-language.md, "Limits"): names and texts of bounded length,
expressions of bounded depth, no control characters in names or texts, no route-label separator
in city names. Each is one located error from `check`, and every command that loads the spec
gives the same error, never a traceback (SyntaxError, RecursionError) or a file-system failure."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hansa.compiler.board.checks import check_board
from hansa.compiler.board.json_io import board_from_json, board_to_json
from hansa.compiler.errors import HansaError
from hansa.compiler.project import load_project
from hansa.compiler.syntax.limits import MAX_EXPR_DEPTH, MAX_NAME, MAX_TEXT

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "own_spec"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if ": error: " in line]


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    folder = tmp_path / "spec"
    shutil.copytree(FIXTURE, folder)
    return folder


def house(spec: Path, body: str, game: str = "limit-game") -> Path:
    path = spec / "limit.hansa"
    path.write_text(
        f"rules limit_rules extends bigbox_2021 {{\n    {body}\n}}\n"
        f"game {game} = limit_rules on ring players 3\n",
        encoding="utf-8",
    )
    return path


def assert_one_located_error(capsys, spec: Path, path: Path, fragment: str, game: str) -> None:
    """`check` and `build` say it once, at the file's line; `play` names the file whose game has
    errors; none shows a traceback, and `build` writes nothing."""
    out = spec.parent / "out"
    for argv in (("check", str(spec)), ("build", "--spec", str(spec), "--out", str(out))):
        code, _out, err = run(capsys, *argv)
        assert code == 1, argv
        (line,) = errors(err)
        assert line.startswith(f"{path}:") and fragment in line, (argv, line)
        assert "Traceback" not in err
    assert not out.exists()
    code, _out, err = run(capsys, "play", game, "--spec", str(spec))
    assert code == 1 and f"is declared in {path}" in err and "but has errors" in err
    assert "Traceback" not in err


# ---------------------------------------------------------------- nesting and length
DEEP = {
    "parentheses in a sum": 'score H "deep": 1 PP * ' + "(1 + " * 300 + "1" + ")" * 300,
    "nots in an end condition": "end when " + "not " * 300 + "turn number > 1000",
    "and-joined conditions": "end when " + " and ".join(["turn number > 1000"] * 2000),
    "a long sum": 'score H "sum": 1 PP * (' + " + ".join(["1"] * 2000) + ")",
    "nested sets": "end when " + "count cities where " * 300 + "turn number > 1 " + "> 0 " * 300,
}


@pytest.mark.parametrize("body", DEEP.values(), ids=DEEP.keys())
def test_a_too_deep_expression_is_one_located_error_everywhere(body, spec, capsys):
    path = house(spec, body)
    assert_one_located_error(capsys, spec, path, "nested more than 64 levels deep", "limit-game")


def test_an_expression_at_the_depth_limit_checks_builds_and_plays(spec, capsys):
    """The limit is safe: the deepest chain it allows goes through every stage and Python."""
    terms = MAX_EXPR_DEPTH - 4  # the chain's levels plus the amount around it
    house(spec, 'score H "long": 1 PP * (' + " + ".join(["1"] * terms) + ")")
    code, _out, err = run(capsys, "check", str(spec))
    assert code == 0, err
    code, out, err = run(capsys, "play", "limit-game", "--spec", str(spec))
    assert code == 0, err
    assert "H " in out


# ---------------------------------------------------------------- names and texts
def test_a_name_longer_than_the_limit_is_one_located_error(spec, capsys):
    long_game = "g" + "x" * 249  # 250 characters: `build` used to fail with "File name too long"
    path = house(spec, "end when track_pp >= 15", game=long_game)
    assert_one_located_error(capsys, spec, path, "a name of 250 characters", long_game)


@pytest.mark.parametrize(
    "edit, fragment",
    [
        (lambda b: b.replace("city Erfurt", f'city "{"E" * 65}"'), "quoted name of 65"),
        (lambda b: b.replace('"The Ring"', '"' + "t" * (MAX_TEXT + 1) + '"'), "quoted text"),
        (lambda b: b.replace("aka Yena", "aka " + "Y" * 100), "a name of 100 characters"),
    ],
    ids=["city", "title", "alias"],
)
def test_long_board_names_and_titles_are_refused_at_the_token(edit, fragment, spec, capsys):
    board = spec / "boards" / "ring.hansa"
    board.write_text(edit(board.read_text(encoding="utf-8")), encoding="utf-8")
    code, _out, err = run(capsys, "check", str(spec))
    assert code == 1
    (line,) = errors(err)
    assert line.startswith(f"{board}:") and fragment in line


def test_a_name_at_the_limit_builds_into_files_every_file_system_takes(spec, capsys):
    """64 letters of a non-Latin alphabet: the module name (hashed) and the cache file fit in
    255 bytes, so `build` and `play --spec` work."""
    name = "ж" * MAX_NAME
    house(spec, "end when track_pp >= 15", game=name)
    out = spec.parent / "out"
    code, _o, err = run(capsys, "build", "--spec", str(spec), "--out", str(out))
    assert code == 0, err
    assert all(len(p.name.encode()) < 100 for p in out.iterdir())
    code, _o, err = run(capsys, "play", name, "--spec", str(spec))
    assert code == 0, err


CONTROLS = {
    "board city (escape)": ("boards/ring.hansa", "city Erfurt", 'city "Er\\u001bfurt"', "U+001B"),
    "board title (raw)": ("boards/ring.hansa", '"The Ring"', '"The \x07Ring"', "U+0007"),
    "board side (bidi)": (
        "boards/ring.hansa",
        "players 3..4",
        'side "a\u202eb"\n    players 3..4',
        "U+202E (RIGHT-TO-LEFT OVERRIDE)",
    ),
    "rules title": ("house.hansa", '"A quick game"', '"A \x1b[2Jquick game"', "U+001B"),
    "bonus marker name": (
        "house.hansa",
        "end when track_pp >= 12",
        'bonus "Guild\x1b charter" count 1 when used: gain 1 PP',
        "U+001B",
    ),
    "favour tile name": (
        "house.hansa",
        "end when track_pp >= 12",
        'favour "Fa\x85vour": gain 1 PP',
        "U+0085",
    ),
    "score label": (
        "house.hansa",
        "end when track_pp >= 12",
        'score H "Har\u2028bour": 1 PP per city where coins > 0',
        "U+2028",
    ),
    "a name with a tab": ("boards/ring.hansa", "city Erfurt", 'city "Er\\tfurt"', "U+0009"),
}


@pytest.mark.parametrize("file, old, new, code", CONTROLS.values(), ids=CONTROLS.keys())
def test_control_characters_in_names_and_texts_are_one_located_error(
    file, old, new, code, spec, capsys
):
    path = spec / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    status, out, err = run(capsys, "check", str(spec))
    assert status == 1
    (line,) = errors(err)
    assert line.startswith(f"{path}:") and f"holds {code}" in line
    assert not any(ch in err + out for ch in "\x1b\x07\x85\u2028\u202e")


def test_titles_keep_line_breaks_and_tabs(spec, capsys):
    path = spec / "house.hansa"
    path.write_text(path.read_text().replace('"A quick game"', '"A\\tquick\\ngame"'))
    assert run(capsys, "check", str(spec))[0] == 0


def test_reference_json_boards_obey_the_same_limits():
    project = load_project([ROOT / "spec" / "boards" / "hanseatic_3p.hansa"])
    data = board_to_json(next(iter(project.boards.values())))
    for field, value, fragment in (
        ("board", "a\x1b[2Jb", r"holds U\+001B"),
        ("id", "b" * 65, "65 characters: at most 64"),
        ("side", "s" * (MAX_TEXT + 1), "at most 1000"),
    ):
        with pytest.raises(HansaError, match=fragment):
            board_from_json({**data, field: value}, "board.json")

    old = data["cities"][0]["name"]
    renamed = json.loads(json.dumps(data).replace(json.dumps(old), json.dumps("Ess\u2013en")))
    problems = check_board(board_from_json(renamed, "board.json"))
    assert [d.message for d in problems if "\u2013" in d.message] == [
        "city name 'Ess\u2013en' holds '\u2013' (U+2013), which joins the two cities of a route"
        " in action texts: write '-' instead"
    ]


# ---------------------------------------------------------------- the route-label separator
def test_a_city_name_holding_the_route_label_separator_is_refused(spec, capsys):
    """'A–B' names a route in action texts: a city 'B–C' made two actions share a text (and the
    game's own log failed to replay)."""
    board = spec / "boards" / "ring.hansa"
    text = board.read_text(encoding="utf-8").replace("Itzehoe", '"Itze\u2013hoe"')
    board.write_text(text, encoding="utf-8")
    code, _out, err = run(capsys, "check", str(spec))
    assert code == 1
    (line,) = errors(err)
    assert line.startswith(f"{board}:") and "holds '\u2013' (U+2013)" in line


def test_load_game_reports_a_generated_module_that_cannot_be_loaded(monkeypatch):
    """A module Python cannot compile (one written before these limits held: "too many nested
    parentheses") is one clear error from `load_game`, not a SyntaxError from deep inside it."""
    import importlib

    import hansa

    real = importlib.import_module

    def broken(name, *args):
        if name == "hansa.generated.bigbox_eastern":
            raise SyntaxError("too many nested parentheses")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", broken)
    with pytest.raises(HansaError, match="'bigbox-eastern' cannot be loaded.*hansa build"):
        hansa.load_game("bigbox-eastern")
    assert hansa.load_game("bigbox-hanseatic-3p").num_players() == 3
