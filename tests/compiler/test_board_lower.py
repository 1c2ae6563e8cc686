"""Board lowering: syntax tree → Board IR with spans; lowering errors at file:line:col."""

from __future__ import annotations

from pathlib import Path

import pytest
from hansa.compiler.board.lower import lower_board
from hansa.compiler.errors import HansaError
from hansa.compiler.nodes.board import Board, City, PostSpace, Route, SpecialPrestige, SpecialSpace
from hansa.compiler.syntax.parser import parse_text, read_source

SPEC_BOARDS = Path(__file__).resolve().parents[2] / "spec" / "boards"

EXAMPLE = r"""# The Hanseatic League, front side
board hanseatic_45p "The \"Hanseatic\" League" {
    side "front side: 4-5 players"
    players 4..5
    original_edition_players 3
    countries england, wales
    east_west Stendal -- Arnheim
    completed_cities 10
    special_prestige Coellen via Coellen -- Warburg { 7 white; 8 orange; 9 pink; 11 black }
    frame 4926 x 3454 "fractions of the scan"
    verification {
        status "verified"
        sources_agreeing "yav"
        notes "a", "b\\c"
    }

    city Arnheim at (0.0924, 0.5315) { square white; round white; square orange; square pink }
    city Coellen { square white coin 1; square pink coin 2; }
    city Göttingen ability actions aka Gottingen, "Gö" at (0.5743, 8.617e-1) { square white }
    city Waren ability actions | bank green at (0.31, 0.22) { }
    city "Isle of Man" country wales, england permission wales aka IsleOfMan { round white }
    city "Quote \" and \u00e9\/" { round black }
    city Stendal { square white }
    city Warburg { square white }

    route Osnabrück -- Bremen: 3 tavern
    route Canterbury -- Calais: house ship house permanent move_2_any_tradesmen country england
    route Stendal -- Arnheim: 2
}
"""


def lower(text: str, file: str = "t.hansa") -> Board:
    tree = parse_text(text, file)
    return lower_board(tree.children[0], file)


def lowering_errors(text: str) -> list[tuple[int, int, str]]:
    with pytest.raises(HansaError) as info:
        lower(text)
    return [(d.span.line, d.span.column, d.message) for d in info.value.diagnostics]


def test_example_lowers_to_the_ir() -> None:
    board = lower(EXAMPLE)
    assert board.id == "hanseatic_45p"
    assert board.title == 'The "Hanseatic" League'
    assert board.side == "front side: 4-5 players"
    assert board.players == (4, 5)
    assert board.original_edition_players == (3,)
    assert board.countries == ("england", "wales")
    assert board.east_west == ("Stendal", "Arnheim")
    assert board.completed_cities == 10
    assert board.special_prestige == SpecialPrestige(
        "Coellen",
        ("Coellen", "Warburg"),
        (
            SpecialSpace(7, "white"),
            SpecialSpace(8, "orange"),
            SpecialSpace(9, "pink"),
            SpecialSpace(11, "black"),
        ),
    )
    assert board.frame == (4926, 3454)
    assert board.frame_note == "fractions of the scan"
    assert board.verification == (
        ("status", "verified"),
        ("sources_agreeing", ("yav",)),  # always a list, as in the reference JSON
        ("notes", ("a", "b\\c")),
    )
    assert board.allow_disconnected is False
    cities = {c.name: c for c in board.cities}
    assert list(cities)[:4] == ["Arnheim", "Coellen", "Göttingen", "Waren"]
    assert cities["Arnheim"] == City(
        "Arnheim",
        (
            PostSpace("square", "white"),
            PostSpace("round", "white"),
            PostSpace("square", "orange"),
            PostSpace("square", "pink"),
        ),
        position=(0.0924, 0.5315),
    )
    assert cities["Coellen"].spaces == (
        PostSpace("square", "white", 1),
        PostSpace("square", "pink", 2),
    )
    assert cities["Göttingen"].abilities == ("actions",)
    assert cities["Göttingen"].aliases == ("Gottingen", "Gö")
    assert cities["Göttingen"].position == (0.5743, 0.8617)
    assert cities["Waren"] == City(
        "Waren", (), abilities=("actions", "bank"), hanseatic=False, position=(0.31, 0.22)
    )
    man = cities["Isle of Man"]
    assert (man.countries, man.permissions, man.aliases) == (
        ("wales", "england"),
        ("wales",),
        ("IsleOfMan",),
    )
    assert 'Quote " and é/' in cities
    assert board.routes == (
        Route(("Osnabrück", "Bremen"), ("any",) * 3, tavern=True),
        Route(
            ("Canterbury", "Calais"),
            ("any", "merchant", "any"),
            permanent_bonus="move_2_any_tradesmen",
            country="england",
        ),
        Route(("Stendal", "Arnheim"), ("any", "any")),
    )
    assert board.routes[1].is_sea and not board.routes[0].is_sea


def test_every_node_keeps_its_span() -> None:
    board = lower(EXAMPLE, "ex.hansa")
    assert (board.span.file, board.span.line, board.span.column) == ("ex.hansa", 2, 1)
    arnheim = board.cities[0]
    assert (arnheim.span.line, arnheim.span.column) == (17, 5)
    assert (arnheim.spaces[1].span.line, arnheim.spaces[1].span.column) == (17, 54)
    assert (board.routes[1].span.line, board.routes[1].span.column) == (27, 5)
    assert board.special_prestige.span.line == 9
    assert board.special_prestige.spaces[3].span.column == 82
    assert board.statement_span("east_west").line == 7
    assert board.statement_span("frame").line == 10
    assert board.statement_span("allow_disconnected") == board.span  # not written: the board's


def test_spans_do_not_affect_equality() -> None:
    compact = lower('board b "B" { city A { square white } city C { round pink } route A -- C: 2 }')
    spread = lower(
        '\n\nboard b "B" {\n  city A {\n square white\n }\n  city C { round pink }\n'
        "  route A -- C: 2\n}\n"
    )
    assert compact == spread


def test_unicode_is_normalised_so_names_compare_equal() -> None:
    decomposed = "Lu\u0308beck"  # u + combining diaeresis, as some editors write it
    board = lower(f'board b "B" {{ city "{decomposed}" {{ square white }} }}')
    assert board.cities[0].name == "Lübeck"


def test_defaults_when_statements_are_left_out() -> None:
    board = lower("board b { allow_disconnected city A { square white } }")
    assert board.title == ""
    assert board.completed_cities == 10
    assert board.players == () and board.east_west is None and board.special_prestige is None
    assert board.allow_disconnected is True


@pytest.mark.parametrize(
    ("snippet", "line", "column", "message"),
    [
        (
            "city A { square whte }",
            2,
            21,
            "unknown privilege colour 'whte' (did you mean 'white'?); "
            "expected one of: white, orange, pink, black",
        ),
        (
            "city A { squre white }",
            2,
            14,
            "unknown space shape 'squre' (did you mean 'square'?); expected one of: square, round",
        ),
        (
            "city A { square white coin 3 }",
            2,
            32,
            "bad number for coin: 3 (must be between 1 and 2)",
        ),
        (
            "city A { square white coin 0 }",
            2,
            32,
            "bad number for coin: 0 (must be between 1 and 2)",
        ),
        (
            "route A -- B: house sheep",
            2,
            25,
            "unknown point type 'sheep' (did you mean 'ship'?); expected one of: house, ship",
        ),
        (
            "route A -- B: house ship permanent move_two",
            2,
            40,
            "unknown permanent bonus 'move_two'; expected one of: move_2_any_tradesmen, "
            "develop_privilege, post_in_green_city, place_2_tradesmen_from_route, "
            "place_2_tradesmen_in_wales_or_scotland",
        ),
        ("players 5..4", 2, 13, "bad range for players: 5..4 runs backwards"),
        ("players 0", 2, 13, "bad number for players: 0 (must be between 1 and 8)"),
        ("players 2..99999", 2, 16, "bad number for players: 99999 (must be between 1 and 8)"),
        ("completed_cities 0", 2, 22, "bad number for completed_cities: 0 (must be at least 1)"),
        ("frame 0 x 10", 2, 11, "bad number for frame width: 0 (must be at least 1)"),
        ("route A -- B: 100", 2, 19, "bad number for route points: 100 (must be between 0 and 99)"),
        (
            "completed_cities " + "9" * 5000,
            2,
            22,
            "bad number for completed_cities: too many digits",
        ),
        (
            "city A at (1e999, 0) { }",
            2,
            16,
            "bad number for a position: 1e999 is not a finite number",
        ),
        ("players 3\n    players 4", 3, 5, "duplicate 'players' statement (first at line 2)"),
        (
            'side "a"\n    east_west A -- B\n    side "b"',
            4,
            5,
            "duplicate 'side' statement (first at line 2)",
        ),
        ("city A at (0, 0) at (1, 1) { }", 2, 22, "city 'A' has a second 'at' clause"),
        ("city A green green { }", 2, 18, "city 'A' has a second 'green' clause"),
        ("route A -- B: 3 tavern tavern", 2, 28, "route A -- B has a second 'tavern' clause"),
        (
            'verification { status "a" status "b" }',
            2,
            31,
            "verification key 'status' is given twice",
        ),
        ('city "" { }', 2, 10, "empty city name"),
        (r'city "a\qb" { }', 2, 12, "bad escape in string: invalid \\escape"),
        (
            r'city "\ud800" { }',
            2,
            10,
            "string holds a lone surrogate (\\uD800–\\uDFFF), which is not a character",
        ),
    ],
)
def test_lowering_errors_have_message_and_location(
    snippet: str, line: int, column: int, message: str
) -> None:
    text = f'board b "B" {{\n    {snippet}\n}}\n'
    assert lowering_errors(text) == [(line, column, message)]


def test_all_lowering_errors_of_a_board_are_reported_together() -> None:
    text = (
        'board b "B" {\n'
        "    city A { square whte; round blak }\n"
        "    route A -- B: 2 permanent nothing\n"
        "    players 9\n"
        "}\n"
    )
    errors = lowering_errors(text)
    assert [(line, column) for line, column, _ in errors] == [(2, 21), (2, 33), (3, 31), (4, 13)]


def test_escapes_decode_properly() -> None:
    board = lower(r'board b "q\"uote \\ back \u00fc \ud83d\ude00 \/" { }')
    assert board.title == 'q"uote \\ back ü \U0001f600 /'


@pytest.mark.parametrize("path", sorted(SPEC_BOARDS.glob("*.hansa")), ids=lambda p: p.stem)
def test_spec_boards_lower_with_a_span_on_every_item(path: Path) -> None:
    file = str(path)
    tree = parse_text(read_source(path), file)
    [board] = [lower_board(d, file) for d in tree.children]
    assert board.id == path.stem
    items = [*board.cities, *board.routes, *(s for c in board.cities for s in c.spaces)]
    assert items
    for item in items:
        assert item.span.file == file and item.span.line > 0 and item.span.column > 0


def test_lower_board_wants_a_board_tree() -> None:
    tree = parse_text('board b "B" { }')
    with pytest.raises(ValueError):
        lower_board(tree, "t.hansa")
