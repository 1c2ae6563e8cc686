"""The parts of `hansa lsp` below the protocol, in process and fast: positions between the
editor's UTF-16 columns and the compiler's, the quick fix, the files an edit is checked with
first, completion and hover inside rules in words, and the command's own errors."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from hansa.compiler.errors import Span  # noqa: E402
from lsprotocol import types  # noqa: E402

from hansa.cli import main  # noqa: E402
from hansa.lsp import complete, hover, symbols  # noqa: E402
from hansa.lsp.text import from_utf16, lines_of, span_range, to_utf16, word_at  # noqa: E402
from hansa.lsp.workspace import check, closure, diagnostics_by_file, quick_fix  # noqa: E402

SPEC = Path(__file__).resolve().parents[3] / "spec"


@pytest.fixture(scope="module")
def snapshot():
    focus = str(SPEC / "bigbox_2021.hansa")
    return check(SPEC, {}, focus)


def test_columns_count_utf16_units_in_the_editor_and_code_points_in_the_compiler():
    line = 'city "😀 Stadt" at Lübeck'
    assert to_utf16(line, 7) == 8  # the emoji is two UTF-16 units
    assert from_utf16(line, 8) == 7
    assert word_at([line], types.Position(0, 17)).value == "at"
    # a decomposed accent (NFD) in the buffer: the compiler counts the NFC text
    nfd = "route Lu\u0308beck -- Bremen: 3 x"
    column = unicodedata.normalize("NFC", nfd).index("x") + 1
    found = span_range(Span("f", 1, column, 1, column + 1), [nfd])
    assert (found.start.character, found.end.character) == (nfd.index("x"), nfd.index("x") + 1)


def test_the_quick_fix_replaces_exactly_the_misspelt_name(snapshot):
    text = "game g = bigbox_2021 on hanseatic_45 players 4..5\n"
    focus = str(SPEC / "mine.hansa")
    checked = check(SPEC, {focus: text}, focus)
    [found] = diagnostics_by_file(checked, SPEC)[focus]
    assert found.related_information[0].location.uri.endswith("hanseatic_45p.hansa")
    edit = quick_fix(lines_of(text), found)
    assert edit.new_text == "hanseatic_45p"
    assert (edit.range.start.character, edit.range.end.character) == (24, 36)


def test_an_edit_is_checked_first_with_the_files_it_names(snapshot):
    buffers = {str(SPEC / "house" / "short_game.hansa"): "rules x extends original_2009 { }\n"}
    files = closure(snapshot, buffers, next(iter(buffers)))
    names = sorted(Path(f).name for f in files)
    assert names == ["bigbox_2021.hansa", "original_2009.hansa", "short_game.hansa"]
    assert closure(None, buffers, next(iter(buffers))) is None


def test_completion_inside_rules_in_words_offers_quantities_markers_and_abilities(snapshot):
    lines = ["rules x extends bigbox_2021 {", "    after income: receive marker ", "}"]
    found = complete.completions(snapshot, lines, types.Position(1, 37))
    assert {i.label for i in found} >= {"plus_3_actions", "move_tradesmen"}
    lines[1] = "    at setup: develop "
    found = {i.label for i in complete.completions(snapshot, lines, types.Position(1, 22))}
    assert {"book", "an ability"} <= found
    lines[1] = '    score H "Mine": 2 PP per city where '
    found = {i.label for i in complete.completions(snapshot, lines, types.Position(1, 40))}
    assert {"coins", "posts here", "track pp"} <= found and "control_pp" not in found


def test_hover_inside_rules_in_words_reads_the_expression_catalogue(snapshot):
    lines = ["rules x extends bigbox_2021 {", "    at setup: gain 2 PP if seat = 1", "}"]
    file = str(SPEC / "x.hansa")
    assert "(hook)" in hover.hover(snapshot, file, lines, types.Position(1, 5))
    assert "(effect)" in hover.hover(snapshot, file, lines, types.Position(1, 15))
    assert "(quantity" in hover.hover(snapshot, file, lines, types.Position(1, 28))


def test_the_outline_of_a_rule_set_skips_continuation_lines(snapshot):
    lines = lines_of((SPEC / "bigbox_2021.hansa").read_text(encoding="utf-8"))
    [rules] = symbols.document_symbols(lines)
    names = [c.name for c in rules.children]
    assert "action create_route control_pp" in names
    assert not any(n.startswith("establish_trading_post") for n in names)


def test_the_command_refuses_a_bad_debounce_in_one_line(capsys):
    assert main(["lsp", "--debounce", "-1"]) == 1
    error = capsys.readouterr().err
    assert "--debounce" in error and "Traceback" not in error


def test_hover_on_a_marker_ability_or_category_named_in_another_statement(snapshot):
    lines = [
        "rules x extends bigbox_2021 {",
        "    after income: receive marker plus_3_actions",
        "    tiebreak most score network, most ability actions, shared",
        "}",
    ]
    file = str(SPEC / "x.hansa")
    marker = hover.hover(snapshot, file, lines, types.Position(1, 35))
    assert "**bonus plus_3_actions**" in marker and "count: 2" in marker
    assert "**score F network**" in hover.hover(snapshot, file, lines, types.Position(2, 25))
    assert "values: 2, 3, 3, 4, 4, 5" in hover.hover(snapshot, file, lines, types.Position(2, 48))
    found = symbols.symbol_at(
        snapshot, file, ["rules y {", "    end when track_pp >= 3"], types.Position(1, 14)
    )
    assert found.kind == "prelude" and found.span.file.endswith("prelude.hansa")


def test_the_textmate_grammar_highlights_every_keyword_of_the_language():
    import json
    import re

    from hansa.compiler.board.format import keywords

    grammar = json.loads(
        (SPEC.parent / "docs" / "editor" / "hansa.tmLanguage.json").read_text(encoding="utf-8")
    )
    pattern = re.compile(grammar["repository"]["keyword"]["match"])
    assert all(pattern.fullmatch(word) for word in keywords())
    assert not pattern.search("Lübeck") and pattern.search("x extends y")


def test_a_repository_checks_its_spec_folder_and_other_folders_on_their_own():
    from hansa.lsp.workspace import scope_of

    repository = SPEC.parent
    assert scope_of(repository, str(SPEC / "house" / "short_game.hansa")) == SPEC
    fixture = repository / "tests" / "fixtures" / "own_spec" / "house.hansa"
    assert scope_of(repository, str(fixture)) == fixture.parent
    assert scope_of(SPEC, str(SPEC / "games.hansa")) == SPEC
    assert scope_of(SPEC / "house", str(SPEC / "games.hansa")) is None


def test_the_parse_cache_stays_bounded_across_edits(tmp_path):
    focus = str(tmp_path / "mine.hansa")
    cache: dict = {}
    for n in range(60):
        text = f"rules mine extends bigbox_2021 {{\n    end when track_pp >= {n + 1}\n}}\n"
        check(None, {focus: text}, focus, None, cache)
    assert len(cache) <= 33


def test_without_the_editor_extra_the_command_says_what_to_install(monkeypatch, capsys):
    import sys

    for name in [m for m in sys.modules if m == "hansa.lsp" or m.startswith("hansa.lsp.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "lsprotocol", None)
    monkeypatch.setitem(sys.modules, "pygls", None)
    assert main(["lsp"]) == 1
    error = capsys.readouterr().err
    assert "pip install 'hansa[editor]'" in error and "Traceback" not in error


def test_a_handler_that_fails_answers_nothing_and_says_so():
    import asyncio

    from hansa.lsp.server import guarded

    logged = []

    class Server:
        def log_failure(self, what: str) -> None:
            logged.append(what)

    @guarded("hover")
    def broken(ls, params):
        raise KeyError("a bug")

    @guarded("completion")
    async def broken_async(ls, params):
        raise ValueError("another bug")

    assert broken(Server(), None) is None
    assert asyncio.run(broken_async(Server(), None)) is None
    assert logged == ["hover", "completion"]


def test_keywords_offered_are_those_that_continue_the_statement(snapshot):
    def labels(lines, line, column):
        found = complete.completions(snapshot, lines, types.Position(line, column))
        return {i.label for i in found}

    rules = ["rules x extends bigbox_2021 {", "    tiebreak most ", "}"]
    assert {"ability", "score"} <= labels(rules, 1, 18)
    rules[1] = "    action place "
    assert "bonus" not in labels(rules, 1, 17)  # a new statement starts on a new line
    board = ["board b extends hanseatic_45p {", "    change ", "}"]
    assert {"city", "route"} <= labels(board, 1, 11)
    board[1] = "    route Bremen -- Hamburg: 4 "
    assert "tavern" in labels(board, 1, 31) and "city" not in labels(board, 1, 31)
