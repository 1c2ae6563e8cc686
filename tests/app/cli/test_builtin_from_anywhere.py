"""Built-in boards and games from any folder: `render`, `export`, `diff` and `check` find them by
name outside the checkout and with `--spec`, as `hansa list` does; `diff` names files relative to
the spec folder (or as built in) and echoes rules in words as their author wrote them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "tests" / "fixtures" / "own_spec"


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch) -> Path:
    """A folder outside the checkout holding a user's spec folder `mine/`; cwd is the folder."""
    shutil.copytree(FIXTURE, tmp_path / "mine")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("spec", [(), ("--spec", "mine")])
def test_export_finds_a_built_in_board(elsewhere: Path, capsys, spec) -> None:
    code, out, err = run(capsys, "export", "hanseatic_45p", *spec)
    assert code == 0, err
    assert json.loads(out)["id"] == "hanseatic_45p"


@pytest.mark.parametrize("spec", [(), ("--spec", "mine")])
def test_render_finds_a_built_in_board_and_game(elsewhere: Path, capsys, spec) -> None:
    code, out, err = run(capsys, "render", "hanseatic_3p", "-o", "board.svg", *spec)
    assert code == 0, err
    assert (elsewhere / "board.svg").stat().st_size > 0
    code, out, err = run(capsys, "render", "original-hanseatic-2p", "-o", "game.svg", *spec)
    assert code == 0, err
    assert "regions of game original-hanseatic-2p" in out


def test_an_unknown_board_says_where_it_looked(elsewhere: Path, capsys) -> None:
    code, _, err = run(capsys, "export", "hansetic_45p")
    assert code == 1
    assert "did you mean 'hanseatic_45p'?" in err and "built in" in err
    code, _, err = run(capsys, "export", "bigbox-hanseatic-45p", "--spec", "mine")
    assert code == 1
    assert "is a game; its board is 'hanseatic_45p'" in err


@pytest.mark.parametrize("name", ["hanseatic_45p", "bigbox_2021", "bigbox-eastern"])
def test_check_finds_a_built_in_declaration(elsewhere: Path, capsys, name: str) -> None:
    code, out, err = run(capsys, "check", name)
    assert code == 0, err
    assert "0 errors" in out


def test_check_finds_a_name_of_the_spec_folder(elsewhere: Path, capsys) -> None:
    code, out, err = run(capsys, "check", "ring", "--spec", "mine")
    assert code == 0, err
    assert out.startswith("checked 1 file (1 board, 0 rule sets, 0 games)")


def test_diff_shows_paths_relative_and_the_authors_words(elsewhere: Path, capsys) -> None:
    (elsewhere / "mine" / "merchant.hansa").write_text(
        'rules merchant "Merchants pay" extends quick {\n'
        "    after create_route: gain 1 PP if established piece is a merchant\n}\n",
        encoding="utf-8",
    )
    code, out, err = run(capsys, "diff", "quick", "merchant", "--spec", "mine")
    assert code == 1, err
    assert "(mine/house.hansa)" in out and "(mine/merchant.hansa)" in out
    assert "B: mine/merchant.hansa:2" in out
    assert "if established piece is a merchant" in out and "= merchant" not in out
    assert str(elsewhere) not in out
    code, out, err = run(capsys, "diff", "hanseatic_45p", "hanseatic_3p")
    assert code == 1, err
    assert "(built-in:boards/hanseatic_45p.hansa)" in out
    assert "A: built-in:boards/hanseatic_45p.hansa:7" in out
    assert str(ROOT) not in out
