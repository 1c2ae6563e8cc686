"""Names are NFC-normalised everywhere: a board, rule set or game name typed with a decomposed
accent ('u' + U+0308) is the same name as one typed with the composed 'ü', in any combination."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from hansa.compiler.project import load_project
from hansa.compiler.rules.resolve import resolve

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
COMPOSED = unicodedata.normalize("NFC", "Lübeck_45p")
DECOMPOSED = unicodedata.normalize("NFD", "Lübeck_45p")
assert COMPOSED != DECOMPOSED


def write_spec(tmp_path: Path, board_name: str, rules_name: str, game_text: str) -> Path:
    spec = tmp_path / "spec"
    (spec / "boards").mkdir(parents=True)
    board = (ROOT / "spec/boards/hanseatic_45p.hansa").read_text(encoding="utf-8")
    board = re.sub(r"^board hanseatic_45p", f"board {board_name}", board, flags=re.M)
    (spec / "boards" / "board.hansa").write_text(board, encoding="utf-8")
    (spec / "bigbox_2021.hansa").write_text(
        (ROOT / "spec/bigbox_2021.hansa").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (spec / "house.hansa").write_text(
        f'rules {rules_name} "Häuser" extends bigbox_2021 {{ }}\n{game_text}', encoding="utf-8"
    )
    return spec


@pytest.mark.parametrize(
    ("board_name", "game_board"), [(COMPOSED, DECOMPOSED), (DECOMPOSED, COMPOSED)]
)
def test_a_game_finds_its_board_whichever_form_each_side_uses(tmp_path, board_name, game_board):
    """Used to fail: unknown board 'Lübeck_45p' (did you mean 'Lübeck_45p'?)."""
    rules = unicodedata.normalize("NFD", "Regeln_für_uns")
    game = f"game spiel-ü = Regeln_für_uns on {game_board} players 4\n"
    spec = write_spec(tmp_path, board_name, rules, game)
    project = load_project([spec])
    assert [d.message for d in project.diagnostics if d.severity == "error"] == []
    assert list(project.boards) == [COMPOSED]
    assert "Regeln_für_uns" in project.rulesets  # the composed key, though typed decomposed
    (declared,) = project.games.values()
    assert declared.board == COMPOSED and declared.rules == "Regeln_für_uns"
    assert resolve(declared.rules, project.rulesets).title == "Häuser"


def test_check_accepts_a_decomposed_spelling_and_points_at_real_errors_after_it(tmp_path, capsys):
    game = f"game g = bigbox_2021 on {DECOMPOSED} players 9\n"
    spec = write_spec(tmp_path, COMPOSED, "h", game)
    assert main(["check", str(spec)]) == 1
    err = capsys.readouterr().err
    assert "unknown board" not in err
    assert "9 players" in err
    # the caret sits under the player count in the line as displayed (NFC)
    lines = err.splitlines()
    shown = next(i for i, line in enumerate(lines) if line.strip().startswith("game g"))
    caret_column = lines[shown + 1].index("^")
    assert lines[shown][caret_column:].startswith("9")
