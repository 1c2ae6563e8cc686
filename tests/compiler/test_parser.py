"""The parser: syntax errors in words at file:line:col, recovery after errors, reading files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from clock_support import cpu_seconds
from hansa.compiler.errors import HansaError
from hansa.compiler.syntax.parser import (
    describe_terminal,
    get_parser,
    parse_text,
    read_source,
    span_of,
    terminal_words,
)
from lark.lexer import PatternRE

GOOD = """\
# a comment
board tiny "Tiny" {   # another comment
    players 3..5
    city Alpha at (0.1, 0.2) { square white coin 1; round pink }
    city "Beta Town" { square orange }
    route Alpha -- "Beta Town": 3 tavern
}
"""


def is_city(item) -> bool:
    return getattr(item, "data", None) == "board_city"


def syntax_errors(text: str) -> list:
    with pytest.raises(HansaError) as info:
        parse_text(text, "t.hansa")
    return info.value.diagnostics


def test_good_text_parses_into_a_board_tree() -> None:
    tree = parse_text(GOOD, "t.hansa")
    assert [d.data for d in tree.children] == ["board"]
    board = tree.children[0]
    cities = [c for c in board.children if getattr(c, "data", None) == "board_city"]
    assert len(cities) == 2
    assert span_of(cities[1], "t.hansa").line == 5
    assert span_of(cities[1], "t.hansa").column == 5


def test_parser_is_built_once() -> None:
    assert get_parser() is get_parser()


def test_every_regex_terminal_has_words() -> None:
    """No `__ANON_3` or lark names in messages: every regex terminal of every grammar has a word."""
    parser = get_parser()
    ignored = set(parser.lexer_conf.ignore)
    words = terminal_words()
    for term in parser.terminals:
        if term.name in ignored or not isinstance(term.pattern, PatternRE):
            continue
        assert term.name in words, f"terminal {term.name} has no words for error messages"
        assert not term.name.startswith("__")
    for term in parser.terminals:
        description = describe_terminal(parser, term.name)
        assert "__" not in description and "ANON" not in description


def test_error_format_has_location_source_line_and_caret() -> None:
    text = 'board b "B" {\n    route A -- B 3\n}\n'
    [error] = syntax_errors(text)
    assert (error.span.line, error.span.column) == (2, 18)
    assert error.message == "unexpected '3'; expected ':'"
    assert error.format() == (
        "t.hansa:2:18: error: unexpected '3'; expected ':'\n"
        "        route A -- B 3\n"
        "                     ^"
    )


def test_expected_names_are_words() -> None:
    [error] = syntax_errors('board b "B" {\n    city A { square white coin x }\n}\n')
    assert error.message == "unexpected 'x'; expected a whole number"
    [error] = syntax_errors('board b "B" {\n    city A at (1, ) { }\n}\n')
    assert error.message == "unexpected ')'; expected a number"
    [error] = syntax_errors("board\n")
    assert error.message == "unexpected end of file; expected a name or a quoted string"
    for message in (error.message,):
        assert not re.search(r"__ANON|[A-Z]{3,}|Token|Unexpected", message)


def test_misspelt_keyword_gets_a_hint() -> None:
    [error] = syntax_errors('board b "B" {\n    cty A { }\n}\n')
    assert (error.span.line, error.span.column) == (2, 5)
    assert error.message.startswith("unexpected 'cty'; expected ")
    assert "'city'" in error.message and "'route'" in error.message and "'}'" in error.message
    assert error.message.endswith("(did you mean 'city'?)")


def test_several_independent_errors_are_all_reported_once() -> None:
    text = (
        'board b "B" {\n'  # 1
        "    cty Foo at (1, 2) { square white }\n"  # 2: misspelt keyword, whole statement skipped
        "    city A { square white coin; round orange }\n"  # 3: coin without a number
        "    route A -- B 3\n"  # 4: missing colon
        "    route A -- C: 3\n"  # 5: fine
        '    city "Isle of Man at (1, 2) { round white }\n'  # 6: unterminated string
        "    city X ability book coin 1 { square white }\n"  # 7: clause out of place
        "    route A -- B: 3 foo\n"  # 8: stray name
        "}\n"
    )
    errors = syntax_errors(text)
    assert [(e.span.line, e.span.column) for e in errors] == [
        (2, 5),
        (3, 31),
        (4, 18),
        (6, 10),
        (7, 25),
        (8, 21),
    ]
    assert errors[3].message == 'unterminated string (a string ends with " on the same line)'
    assert errors[4].message.startswith("unexpected 'coin'; expected 'ability', 'aka', 'at'")


def test_recovery_resumes_at_the_next_statement() -> None:
    # a missing '}' after a city's spaces: the next `city` starts afresh, the board still closes
    text = (
        'board b "B" {\n    city A { square white\n    city B { round pink }\n'
        "    route A -- : 3\n}\n"
    )
    errors = syntax_errors(text)
    assert [(e.span.line, e.span.column) for e in errors] == [(3, 5), (4, 16)]


def test_missing_closing_brace_at_end_of_file() -> None:
    [error] = syntax_errors('board b "B" {\n    city A { square white }\n')
    assert error.span.line == 2
    assert error.message.startswith("unexpected end of file; expected ")
    assert "'}'" in error.message


def test_unexpected_character() -> None:
    [error] = syntax_errors('board b "B" {\n    city A $ { }\n}\n')
    assert (error.span.line, error.span.column) == (2, 12)
    assert error.message.startswith("unexpected character '$'; expected ")


def test_error_count_is_bounded() -> None:
    text = 'board b "B" {\n' + "".join(f"    cty C{i} {{ }}\n" for i in range(100)) + "}\n"
    errors = syntax_errors(text)
    assert len(errors) == 20
    assert [e.span.line for e in errors] == list(range(2, 22))


def test_keywords_can_be_names_when_quoted_and_where_no_keyword_fits() -> None:
    tree = parse_text('board b "B" {\n    city "route" { square white }\n    city green { }\n}\n')
    names = [
        str(c.children[0])
        for c in tree.children[0].children
        if getattr(c, "data", None) == "board_city"
    ]
    assert names == ['"route"', "green"]


def test_unicode_names_and_hyphens() -> None:
    tree = parse_text(
        'board b "B" {\n    city Lübeck { square white }\n    city Berlin-Cölln { }\n}\n'
    )
    names = [
        str(c.children[0])
        for c in tree.children[0].children
        if getattr(c, "data", None) == "board_city"
    ]
    assert names == ["Lübeck", "Berlin-Cölln"]


# ---------------------------------------------------------------------------- reading files


def test_read_source_reports_unreadable_files(tmp_path: Path) -> None:
    cases = {
        "missing.hansa": (None, "no such file"),
        "binary.hansa": (b"\x00\x01\x02board", "binary file, not a spec file"),
        "latin1.hansa": (
            'board b "Lüb" { }'.encode("latin-1"),
            "not UTF-8 text (bad byte at offset",
        ),
        "empty.hansa": (b"", "empty file"),
        "blank.hansa": (b"  \n\t\n", "empty file"),
    }
    for name, (data, message) in cases.items():
        path = tmp_path / name
        if data is not None:
            path.write_bytes(data)
        with pytest.raises(HansaError) as info:
            read_source(path)
        assert info.value.message.startswith(message), name
        assert info.value.span.file == str(path)
        assert info.value.format().startswith(f"{path}: error: {message}")
    with pytest.raises(HansaError, match="is a directory"):
        read_source(tmp_path)


def test_read_source_drops_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.hansa"
    path.write_bytes("\ufeff".encode() + GOOD.encode())
    assert read_source(path) == GOOD


def test_parsing_is_fast() -> None:
    get_parser()
    spec = Path(__file__).resolve().parents[2] / "spec"
    text = (spec / "boards" / "britannia_45p.hansa").read_text()
    start = cpu_seconds()
    parse_text(text, "britannia_45p.hansa")
    assert cpu_seconds() - start < 0.5


def test_grammar_files_can_name_their_terminals() -> None:
    """`//! word: TERMINAL words` lines give a regex terminal its words in messages."""
    from hansa.compiler.syntax.parser import _WORD_LINE

    [match] = _WORD_LINE.finditer("x\n//! word: HEX_COLOUR a colour like #a0b0c0\ny")
    assert match.groups() == ("HEX_COLOUR", "a colour like #a0b0c0")
    assert terminal_words()["INT"] == "a whole number"
    assert describe_terminal(get_parser(), "RBRACE") == "'}'"
    assert describe_terminal(get_parser(), "$END") == "end of file"
