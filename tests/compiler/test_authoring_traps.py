"""Authoring traps found from the docs alone (issue 21): each mistake is one error at the author's
line with the right hint, and what the docs promise holds (line breaks end statements, a category
in words replaces another kind only by `replace`, tie-breaks name categories by key, …)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hansa.compiler.errors import HansaError
from hansa.compiler.syntax.parser import parse_text

import hansa
from hansa.cli import main


def check(capsys, folder: Path, text: str) -> tuple[int, list[str]]:
    """`hansa check` on a folder holding `text`; (exit code, the error lines)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "house.hansa").write_text(text, encoding="utf-8")
    code = main(["check", str(folder)])
    _, err = capsys.readouterr()
    return code, [line for line in err.splitlines() if ": error: " in line]


def syntax_errors(text: str) -> list[str]:
    with pytest.raises(HansaError) as info:
        parse_text(text, "t.hansa")
    return [f"{d.span.line}:{d.span.column}: {d.message}" for d in info.value.diagnostics]


# --- a line break ends a statement ----------------------------------------------------------------


def test_a_number_at_the_end_of_a_line_does_not_run_into_the_next_statement(tmp_path, capsys):
    code, errors = check(
        capsys,
        tmp_path / "spec",
        "rules r extends bigbox_2021 {\n"
        "    end when track_pp >= 16\n"
        "    action create_route control_pp 2\n"
        "}\n"
        "game g = r on hanseatic_45p players 4..5\n",
    )
    assert (code, errors) == (0, [])
    game = hansa.compile_game(str(tmp_path / "spec" / "house.hansa"))
    assert game.module.END_TRACK_PP == 16


def test_a_continuation_line_is_indented_under_its_statement() -> None:
    tree = parse_text(
        "rules r extends p {\n"
        "    action displace cost { trader: 1, merchant: 2 }\n"
        "        extras_declinable no\n"
        "    end when track PP >= 3 and\n"
        "    turn number > 2\n"  # the line before ends with an operator: one statement
        "    tiebreak fewest ability actions,\n"
        "    shared\n"  # … or with a comma
        "}\n",
        "t.hansa",
    )
    statements = tree.children[0].children[2:]
    assert [s.data for s in statements] == ["r_action", "r_end", "r_tiebreak"]


def test_a_line_at_the_statements_indentation_starts_a_new_statement() -> None:
    (error,) = syntax_errors(
        "rules r extends p {\n    action displace cost { trader: 1, merchant: 2 }\n"
        "    extras_declinable no\n}\n"
    )
    assert error.startswith("3:5: unexpected 'extras_declinable'")


def test_statements_on_one_line_still_parse() -> None:
    tree = parse_text("rules r extends p { action income end when track_pp >= 16 }", "t.hansa")
    assert [s.data for s in tree.children[0].children[2:]] == ["r_action", "r_end"]


# --- one mistake, one error ----------------------------------------------------------------------


def test_a_missing_brace_after_extends_is_one_error() -> None:
    assert syntax_errors("rules r extends p\n    end when track_pp >= 16\n}\n") == [
        "2:5: unexpected 'end'; expected '{'"
    ]


def test_a_misspelt_keyword_is_one_word_with_a_hint() -> None:
    (error,) = syntax_errors(
        "rules r extends p {\n    forbidd displace when track PP of the victim < your track PP\n}\n"
    )
    assert error.startswith("2:5: unexpected 'forbidd';")
    assert error.endswith("(did you mean 'forbid'?)")


def test_when_use_is_one_error() -> None:
    assert syntax_errors(
        'rules r extends p {\n    bonus "X" count 2 when use: gain 1 PP\n'
        "    end when track_pp >= 9\n}\n"
    ) == ["2:28: unexpected 'use'; expected 'used' (did you mean 'used'?)"]


def test_trading_posts_suggests_posts(tmp_path, capsys):
    code, errors = check(
        capsys,
        tmp_path / "spec",
        "rules r extends bigbox_2021 {\n    forbid place when trading posts > 3\n}\n",
    )
    assert code == 1
    (error,) = errors
    assert ":2:23: error: unknown quantity 'trading posts' (did you mean 'posts'?)" in error


def test_an_ability_typo_is_one_error_for_all_its_games(tmp_path, capsys):
    code, errors = check(
        capsys,
        tmp_path / "spec",
        "rules r extends bigbox_2021 {\n    at turn start: develop keyz\n}\n"
        "game g1 = r on hanseatic_45p players 4..5\ngame g2 = r on hanseatic_3p players 3\n"
        "game g3 = r on eastern players 3..5\n",
    )
    assert code == 1 and len(errors) == 1 and "did you mean 'keys'?" in errors[0]


# --- a category in words and the edition's categories ------------------------------------------


def test_a_category_in_words_over_another_kind_needs_replace(tmp_path, capsys):
    code, errors = check(
        capsys,
        tmp_path / "spec",
        'rules r extends bigbox_2021 {\n    score G "Harbour": 2 PP per city you control\n}\n',
    )
    assert code == 1
    (error,) = errors
    assert ":2:11: error: score category G is of kind country_majority in bigbox_2021" in error
    assert "`replace score G …: …`" in error and "(free: H)" in error


def test_replace_score_in_words_keeps_the_category_in_its_place(tmp_path):
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "house.hansa").write_text(
        "rules r extends bigbox_2021 {\n"
        '    replace score E "Cities": 3 PP per city you control\n'
        "    tiebreak most score E, shared\n"
        "}\n"
        "game g = r on hanseatic_45p players 4..5\n",
        encoding="utf-8",
    )
    game = hansa.compile_game(str(spec / "house.hansa"))
    assert game.module.SCORE_KEYS == ("A", "B", "C", "D", "E", "F")
    state = game.new_initial_state(seed=3)
    assert list(state.score_breakdown()[0]) == ["A", "B", "C", "D", "E", "F"]
    assert game.module.TIEBREAK[0] == ("most", "score", 4)


def test_replace_score_in_words_of_a_missing_key_is_an_error(tmp_path, capsys):
    code, errors = check(
        capsys,
        tmp_path / "spec",
        'rules r extends bigbox_2021 {\n    replace score Q "X": 1 PP per city you control\n}\n',
    )
    assert code == 1 and len(errors) == 1
    assert "cannot replace score category Q: bigbox_2021 has no such score category" in errors[0]


def test_a_removed_category_of_the_inherited_tiebreak_is_reported_at_the_remove(tmp_path, capsys):
    code, errors = check(
        capsys,
        tmp_path / "spec",
        "rules r extends bigbox_2021 {\n    remove score F\n}\n"
        "game g = r on hanseatic_45p players 4..5\n",
    )
    assert code == 1
    (error,) = errors
    assert "house.hansa:2:18: error: this leaves the tie-break inherited from bigbox_2021" in error
    assert "comparing score 'network'" in error and "bigbox_2021.hansa:" in error


# --- compile_game, the docs ----------------------------------------------------------------------


def test_compile_game_finds_boards_in_the_files_own_folder(tmp_path, monkeypatch):
    root = Path(__file__).resolve().parents[2]
    folder = tmp_path / "myspec"
    (folder / "boards").mkdir(parents=True)
    board = (root / "spec" / "boards" / "hanseatic_3p.hansa").read_text(encoding="utf-8")
    (folder / "boards" / "mine.hansa").write_text(
        board.replace("board hanseatic_3p", "board mine3"), encoding="utf-8"
    )
    (folder / "rule.hansa").write_text(
        "game gg = bigbox_2021 on mine3 players 3\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)  # no ./spec here
    game = hansa.compile_game("myspec/rule.hansa")
    assert game.new_initial_state(seed=1).legal_actions()


def test_turn_number_is_documented_in_the_state_format():
    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / "state-format.md").read_text(encoding="utf-8")
    assert "| `number` |" in text.split("## `turn`")[1].split("##")[0]


def test_turn_number_is_in_the_json_of_a_game_that_reads_it(tmp_path):
    (tmp_path / "house.hansa").write_text(
        "rules r extends bigbox_2021 {\n    end when turn number >= 40\n}\n"
        "game g = r on hanseatic_45p players 4..5\n",
        encoding="utf-8",
    )
    game = hansa.compile_game(str(tmp_path / "house.hansa"), players=4)
    state = game.new_initial_state(seed=2)
    assert json.loads(state.to_json())["turn"]["number"] == 1


# --- at setup: receive marker ---------------------------------------------------------------------


def test_every_seat_receiving_a_marker_needs_one_per_seat(tmp_path, capsys):
    code, errors = check(
        capsys,
        tmp_path / "spec",
        "rules r extends bigbox_2021 {\n    at setup: receive marker develop_ability\n}\n"
        "game g = r on hanseatic_45p players 4..5\n",
    )
    assert code == 1
    (error,) = errors
    assert ":2:15: error: at setup every seat receives marker develop_ability" in error
    assert "5 players need 5 and the supply holds 2" in error
    assert "`bonus develop_ability count 5`" in error


def test_a_marker_for_every_seat_is_given_to_every_seat(tmp_path):
    (tmp_path / "house.hansa").write_text(
        "rules r extends bigbox_2021 {\n"
        "    bonus develop_ability count 5\n"
        "    at setup: receive marker develop_ability\n"
        "}\n"
        "game g = r on hanseatic_45p players 4..5\n",
        encoding="utf-8",
    )
    game = hansa.compile_game(str(tmp_path / "house.hansa"), players=5)
    state = json.loads(game.new_initial_state(seed=4).to_json())
    assert [p["markers"]["unused"] for p in state["player_state"]] == [["develop_ability"]] * 5


# --- a game that can never end --------------------------------------------------------------------


def test_a_game_without_create_route_can_never_end(tmp_path, capsys):
    code, errors = check(
        capsys,
        tmp_path / "spec",
        "rules r extends bigbox_2021 {\n    remove action create_route\n}\n"
        "game g = r on hanseatic_3p players 3\n",
    )
    assert code == 1
    (error,) = errors
    assert ":4:1: error: game 'g' can never end: without Create Route" in error


def test_without_create_route_an_end_condition_in_words_can_end_it(tmp_path, capsys):
    code, errors = check(
        capsys,
        tmp_path / "spec",
        "rules r extends bigbox_2021 {\n    remove action create_route\n"
        "    end when turn number >= 30\n}\ngame g = r on hanseatic_3p players 3\n",
    )
    assert (code, errors) == (0, [])


def test_a_stall_found_by_a_seeded_playout_is_a_warning_with_the_seed(tmp_path, capsys):
    folder = tmp_path / "spec"
    folder.mkdir()
    (folder / "house.hansa").write_text(
        "rules r extends bigbox_2021 {\n    remove action move\n}\n"
        "game g = r on hanseatic_3p players 3\n",
        encoding="utf-8",
    )
    code = main(["check", str(folder)])
    _, err = capsys.readouterr()
    assert code == 0
    (warning,) = [line for line in err.splitlines() if ": warning: " in line]
    assert ":4:1: warning: game 'g' may never end: a random playout (3 players, seed 0)" in warning
    assert "only 'end the turn' is ever legal" in warning
    # the stall is real: replaying the playout reaches the position again and again
    game = hansa.compile_game(str(folder / "house.hansa"), players=3)
    rng, state = random.Random(0), game.new_initial_state(seed=0)
    for _ in range(2000):
        state.apply_action(rng.choice(state.legal_actions()))
    assert not state.is_terminal()
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["end the turn"]


def test_a_forbid_that_leaves_play_going_gives_no_warning(tmp_path, capsys):
    folder = tmp_path / "spec"
    folder.mkdir()
    (folder / "house.hansa").write_text(
        "rules r extends bigbox_2021 {\n    forbid displace when seat = 1\n}\n"
        "game g = r on hanseatic_3p players 3\n",
        encoding="utf-8",
    )
    code = main(["check", str(folder)])
    out, err = capsys.readouterr()
    assert code == 0 and "0 errors, 0 warnings" in out + err
