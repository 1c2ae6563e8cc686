"""A board whose East-West connection or special-prestige route names a city it does not have,
with a game on it, is one located error from every command that loads it (it used to be a
`KeyError: 'Nowhere'` traceback from check, build, play, list, render and diff)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "own_spec"

EDITS = {
    "east_west end": ("east_west Aachen -- Fulda", "east_west Aachen -- Nowhere"),
    "east_west start": ("east_west Aachen -- Fulda", "east_west Nowhere -- Fulda"),
    "special via": ("via Erfurt -- Fulda", "via Erfurt -- Nowhere"),
    "special via start": ("via Erfurt -- Fulda", "via Nowhere -- Erfurt"),
    "special city": ("special_prestige Erfurt via", "special_prestige Nowhere via"),
}


@pytest.mark.parametrize("old, new", EDITS.values(), ids=EDITS.keys())
def test_an_unknown_city_in_the_board_statements_is_one_located_error(old, new, tmp_path, capsys):
    spec = tmp_path / "spec"
    shutil.copytree(FIXTURE, spec)
    board = spec / "boards" / "ring.hansa"
    text = board.read_text(encoding="utf-8")
    assert old in text
    board.write_text(text.replace(old, new), encoding="utf-8")
    line = text[: text.index(old)].count("\n") + 1
    for argv, located in (
        (["check", str(spec)], True),
        (["build", "--spec", str(spec), "--out", str(tmp_path / "out")], True),
        (["render", str(board), "-o", str(tmp_path / "ring.svg")], True),
        (["diff", str(board), str(FIXTURE / "boards" / "ring.hansa")], True),
        (["play", "quick-ring", "--spec", str(spec)], True),
        (["list", "--spec", str(spec)], False),
    ):
        code = main(argv)
        out, err = capsys.readouterr()
        assert "Traceback" not in err and "KeyError" not in err, argv
        if located:
            assert code in (1, 2), argv
            errors = [e for e in err.splitlines() if ": error: " in e]
            assert errors and all(e.startswith(f"{board}:{line}:") for e in errors), (argv, err)
            assert "Nowhere" in errors[0]
        else:
            assert code == 0 and "run `hansa check" in out + err, (argv, out, err)
    assert not (tmp_path / "out").exists() and not (tmp_path / "ring.svg").exists()
