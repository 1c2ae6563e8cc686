"""The canonical formatter: text that parses back to the same board, names quoted only when needed,
comments kept, other declarations untouched, idempotent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hansa.compiler.board.format import (
    format_board,
    format_source,
    keywords,
    name,
    quote,
)
from hansa.compiler.board.json_io import (
    board_from_json,
    board_to_json,
    sorted_cities,
    sorted_routes,
)
from hansa.compiler.board.lower import lower_board
from hansa.compiler.errors import HansaError
from hansa.compiler.nodes.board import Board, City, PostSpace, Route
from hansa.compiler.syntax.parser import parse_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_board_json import boards

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "boards"
BOARD_IDS = ["hanseatic_3p", "hanseatic_45p", "eastern", "britannia_3p", "britannia_45p"]


def parse_board(text: str, file: str = "t.hansa") -> Board:
    tree = parse_text(text, file)
    (decl,) = [d for d in tree.children if d.data == "board"]
    return lower_board(decl, file)


def tiny(cities=(), routes=(), **fields) -> Board:
    cities = cities or (City("A", (PostSpace("square", "white"),)), City("B", ()))
    routes = routes or (Route(("A", "B"), ("any", "any")),)
    return Board(id="tiny", title="Tiny", cities=tuple(cities), routes=tuple(routes), **fields)


# --------------------------------------------------------------------------- names


def test_keywords_come_from_the_grammar() -> None:
    words = keywords()
    for word in ("board", "city", "route", "tavern", "permanent", "green", "aka", "at", "via"):
        assert word in words
    assert "rules" in words and "extends" in words  # the rules grammar's words count too
    assert "Lübeck" not in words and "white" not in words  # colours are names, not keywords


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("Lübeck", "Lübeck"),
        ("Berlin-Cölln", "Berlin-Cölln"),
        ("bigbox-hanseatic-45p", "bigbox-hanseatic-45p"),
        ("Isle of Man", '"Isle of Man"'),
        ("route", '"route"'),
        ("x", '"x"'),
        ("3rd", '"3rd"'),
        ("a--b", '"a--b"'),
        ("-a", '"-a"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("back\\slash", '"back\\\\slash"'),
        ("two\nlines", '"two\\nlines"'),
        ("", '""'),
    ],
)
def test_names_quoted_only_when_needed(text: str, written: str) -> None:
    assert name(text) == written


def test_awkward_names_round_trip_through_the_parser() -> None:
    awkward = ["route", "Isle of Man", 'say "hi"', "back\\slash", "slash/here", "ünï cödé", "a#b"]
    cities = tuple(City(n, (PostSpace("round", "black", 2),), aliases=("city",)) for n in awkward)
    routes = tuple(
        Route((a, b), ("any", "merchant")) for a, b in zip(awkward, awkward[1:], strict=False)
    )
    board = tiny(cities, routes, side='the "odd" side\n', countries=("green",))
    text = format_board(board)
    again = parse_board(text)
    assert set(again.cities) == set(board.cities) and set(again.routes) == set(board.routes)
    assert again == Board(
        **{
            **board.__dict__,
            "cities": tuple(sorted_cities(board)),
            "routes": tuple(sorted_routes(board)),
        }
    )


def test_quote_escapes_control_characters() -> None:
    assert quote("a\x01b") == '"a\\u0001b"'
    assert parse_board(format_board(tiny(side="a\tb\n"))).side == "a\tb\n"
    with pytest.raises(HansaError, match="board side holds U\\+0001"):
        parse_board(format_board(tiny(side="a\x01b")))


# --------------------------------------------------------------------------- statements


def test_canonical_statement_layout() -> None:
    board = tiny(
        cities=(
            City(
                "Waren",
                (),
                abilities=("actions", "bank"),
                hanseatic=False,
                countries=("scotland", "wales"),
                permissions=("wales",),
                aliases=("Varen",),
                position=(0.185, 1.0),
            ),
            City("Anklam", (PostSpace("square", "white", 1), PostSpace("round", "pink"))),
        ),
        routes=(
            Route(("Waren", "Anklam"), ("any",) * 3, tavern=True, country="wales"),
            Route(("Waren", "Anklam"), ("merchant", "any"), permanent_bonus="develop_privilege"),
        ),
        players=(3,),
        original_edition_players=(2, 3),
        allow_disconnected=True,
    )
    assert format_board(board) == (
        'board tiny "Tiny" {\n'
        "    players 3\n"
        "    original_edition_players 2..3\n"
        "    completed_cities 10\n"
        "    allow_disconnected\n"
        "\n"
        "    city Anklam { square white coin 1; round pink }\n"
        "    city Waren ability actions | bank green country scotland, wales permission wales"
        " aka Varen at (0.185, 1.0) { }\n"
        "\n"
        "    route Anklam -- Waren: 3 tavern country wales\n"
        "    route Waren -- Anklam: ship house permanent develop_privilege\n"
        "}\n"
    )


def test_player_counts_that_are_not_a_range_are_refused() -> None:
    with pytest.raises(HansaError, match="not consecutive"):
        format_board(tiny(players=(3, 5)))


# --------------------------------------------------------------------------- reference boards


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_import_parse_export_gives_the_reference(board_id: str) -> None:
    data = json.loads((FIXTURES / f"{board_id}.json").read_text(encoding="utf-8"))
    text = format_board(board_from_json(data, f"{board_id}.json"))
    exported = board_to_json(parse_board(text, f"{board_id}.hansa"))
    for ours, theirs in zip(exported["cities"], data["cities"], strict=True):
        assert ours.pop("position") == pytest.approx(theirs.pop("position"), abs=1e-6)
    assert exported == data


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_spec_board_files_are_canonical(board_id: str) -> None:
    path = ROOT / "spec" / "boards" / f"{board_id}.hansa"
    text = path.read_text(encoding="utf-8")
    assert format_source(text, str(path)).text == text
    board = parse_board(text, str(path))
    assert text.endswith(format_board(board))
    assert text.startswith("# ")  # the header comment


# --------------------------------------------------------------------------- properties


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards())
def test_random_boards_parse_back_equal(board: Board) -> None:
    text = format_board(board)
    again = parse_board(text)
    assert again == board
    assert format_board(again) == text


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards())
def test_formatting_a_file_is_idempotent(board: Board) -> None:
    messy = format_board(board).replace("\n    ", "\n\t  ").replace(" -- ", "--")
    once = format_source("# head\n" + messy, "m.hansa").text
    assert once == "# head\n" + format_board(board)
    assert format_source(once, "m.hansa").text == once


# --------------------------------------------------------------------------- whole files

MESSY = """\
# Leading comment block: kept as it is.
# Second line.

board   demo "Demo" { players 3..3   # trailing on the header line
  # above Zwolle: moves with Zwolle
  city Zwolle {square white coin 2}
  city Alpha at (0.5,0.25) {round pink}  # beside Alpha
  completed_cities 2
  # above the route
  route Zwolle -- Alpha : 2 tavern
  route "Alpha" -- "Beta#1": ship house   # "quoted # inside"
  city "Beta#1" { }
  # closing remark
}   # after the board

game demo-game = bigbox_2021 on demo players 3
"""

MESSY_FORMATTED = """\
# Leading comment block: kept as it is.
# Second line.

board demo "Demo" {
    players 3  # trailing on the header line
    completed_cities 2

    city Alpha at (0.5, 0.25) { round pink }  # beside Alpha
    city "Beta#1" { }
    # above Zwolle: moves with Zwolle
    city Zwolle { square white coin 2 }

    route Alpha -- "Beta#1": ship house  # "quoted # inside"
    # above the route
    route Alpha -- Zwolle: 2 tavern
    # closing remark
}   # after the board

game demo-game = bigbox_2021 on demo players 3
"""


def test_format_source_keeps_comments_and_other_declarations() -> None:
    result = format_source(MESSY, "messy.hansa")
    assert result.boards == 1
    assert result.text == MESSY_FORMATTED
    assert format_source(result.text, "messy.hansa").text == result.text
    assert board_to_json(parse_board(result.text)) == board_to_json(parse_board(MESSY))


def test_comments_stay_with_header_statements() -> None:
    text = (
        'board b "B" {  # about the board\n'
        "    city X { }\n"
        "    # the red banners\n"
        "    east_west X -- Y  # west first\n"
        "    verification {\n"
        '        status "ok"  # beside the first entry\n'
        '        against "scan"  # inside the block\n'
        "    }\n"
        "    city Y { }\n"
        "}\n"
    )
    assert format_source(text, "b.hansa").text == (
        'board b "B" {  # about the board\n'
        "    # inside the block\n"
        "    # the red banners\n"
        "    east_west X -- Y  # west first\n"
        "    completed_cities 10\n"
        "    verification {  # beside the first entry\n"
        '        status "ok"\n'
        '        against "scan"\n'
        "    }\n"
        "\n"
        "    city X { }\n"
        "    city Y { }\n"
        "}\n"
    )


def test_a_repeated_city_does_not_repeat_its_comment() -> None:
    text = 'board b "B" {\n    # once\n    city X { }\n    city X { }  # beside\n}\n'
    out = format_source(text, "b.hansa").text
    assert out.count("# once") == 1 and out.count("# beside") == 1


def test_file_without_boards_is_left_byte_for_byte() -> None:
    text = "game g = r on b players 3\n\n\n"
    result = format_source(text, "g.hansa")
    assert result.boards == 0 and result.text == text


def test_two_boards_on_one_line_are_split() -> None:
    text = 'board a "A" { city X { } } board b "B" { city Y { } }'
    result = format_source(text, "two.hansa").text
    assert result == (
        'board a "A" {\n    completed_cities 10\n\n    city X { }\n}\n'
        'board b "B" {\n    completed_cities 10\n\n    city Y { }\n}\n'
    )


def test_format_source_refuses_what_it_cannot_read() -> None:
    with pytest.raises(HansaError) as info:
        format_source('board a "A" {\n    city X { squre white }\n}\n', "bad.hansa")
    assert "bad.hansa:2:" in info.value.format()
    with pytest.raises(HansaError):
        format_source('board a "A" {\n    city X {\n', "broken.hansa")


STRING_OR_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*')


def comments_in(text: str) -> list[str]:
    return [m.group() for m in STRING_OR_COMMENT.finditer(text) if m.group().startswith("#")]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards(), st.data())
def test_comments_are_never_dropped(board: Board, data: st.DataObject) -> None:
    lines = format_board(board).splitlines()
    comments: list[str] = []
    out: list[str] = []
    for index, line in enumerate(lines):
        if data.draw(st.booleans(), label=f"above line {index}"):
            comments.append(f"# above {index}")
            out.append(comments[-1])
        if data.draw(st.booleans(), label=f"beside line {index}"):
            comments.append(f"# beside {index}")
            line += "  " + comments[-1]
        out.append(line)
    text = "\n".join(out) + "\n"
    once = format_source(text, "c.hansa").text
    assert sorted(comments_in(once)) == sorted(comments)
    assert parse_board(once) == board
    assert format_source(once, "c.hansa").text == once


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BOARD_IDS), st.randoms(use_true_random=False))
def test_shuffled_spec_files_format_back_to_the_spec(board_id: str, random) -> None:
    """Statements in any order, with odd spacing, format to exactly the committed spec file."""
    path = ROOT / "spec" / "boards" / f"{board_id}.hansa"
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("board "))
    block_end = lines.index("    }", start)  # the end of the verification block
    header, body = lines[: start + 1], lines[start + 1 : -1]
    verification_start = next(i for i, line in enumerate(body) if "verification {" in line)
    block = " ".join(body[verification_start : block_end - start])
    statements = body[:verification_start] + [block] + body[block_end - start :]
    statements = [s for s in statements if s.strip()]
    random.shuffle(statements)
    statements = [
        s.strip().replace(" -- ", random.choice([" -- ", "--", "  --\t"])) for s in statements
    ]
    messy = "\n".join(header + statements + ["}"]) + "\n\n\n"
    assert format_source(messy, str(path)).text == text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BOARD_IDS), st.data())
def test_mutated_spec_text_formats_stably_or_fails_cleanly(board_id: str, data) -> None:
    """Random edits: fmt either refuses with a located HansaError or gives a fixed point that
    means the same board."""
    text = (ROOT / "spec" / "boards" / f"{board_id}.hansa").read_text(encoding="utf-8")
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        at = data.draw(st.integers(0, len(text)), label="at")
        piece = data.draw(
            st.sampled_from(["#", "# c\n", "\n", " ", '"', ";", "}", "{", "city", "ship ", "x"])
            | st.text(max_size=3),
            label="insert",
        )
        cut = data.draw(st.integers(0, 3), label="delete")
        text = text[:at] + piece + text[at + cut :]
    try:
        once = format_source(text, "m.hansa").text
    except HansaError as exc:
        assert all(d.span is not None and d.span.file == "m.hansa" for d in exc.diagnostics)
        return
    assert format_source(once, "m.hansa").text == once
    assert sorted(comments_in(once)) == sorted(comments_in(text))
    before = [board_to_json(lower_board(d, "m.hansa")) for d in parse_text(text).children]
    after = [board_to_json(lower_board(d, "m.hansa")) for d in parse_text(once).children]
    assert after == before
