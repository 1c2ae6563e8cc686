"""Board checks: every check has a failing example asserting its message, severity and line:col."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hansa.compiler.board.checks import check_board
from hansa.compiler.board.lower import lower_board
from hansa.compiler.nodes.board import Board, City, PostSpace, Route
from hansa.compiler.syntax.parser import parse_text, read_source

SPEC_BOARDS = Path(__file__).resolve().parents[2] / "spec" / "boards"

# A small board that passes every check; each test below breaks one thing in it.
HEADER = """\
board small "Small" {
    players 3..5
    countries england, wales
    east_west Alpha -- Delta
    completed_cities 3
    special_prestige Alpha via Alpha -- Beta { 7 white; 8 orange; 9 pink; 11 black }
"""
CITIES = """\
    city Alpha ability book country england { square white coin 1; round pink }
    city Beta country england permission wales { square white }
    city Gamma country wales { square orange; square black }
    city Delta country wales { round white }
"""
ROUTES = """\
    route Alpha -- Beta: 3 tavern country england
    route Beta -- Gamma: house ship house permanent develop_privilege country wales
    route Gamma -- Delta: 2 country wales
}
"""


def check(text: str) -> list[tuple[int, int, str, str]]:
    tree = parse_text(text, "b.hansa")
    board = lower_board(tree.children[0], "b.hansa")
    return [(d.span.line, d.span.column, d.severity, d.message) for d in check_board(board)]


def check_with(header: str = HEADER, cities: str = CITIES, routes: str = ROUTES) -> list:
    return check(header + cities + routes)


def test_the_small_board_is_clean() -> None:
    assert check_with() == []


@pytest.mark.parametrize("path", sorted(SPEC_BOARDS.glob("*.hansa")), ids=lambda p: p.stem)
def test_the_printed_boards_are_clean(path: Path) -> None:
    tree = parse_text(read_source(path), str(path))
    for declaration in tree.children:
        assert check_board(lower_board(declaration, str(path))) == []


def test_route_names_an_unknown_city() -> None:
    routes = ROUTES.replace("route Gamma -- Delta", "route Gamma -- Detla")
    assert check_with(routes=routes) == [
        (13, 5, "error", "route Gamma -- Detla names unknown city 'Detla' (did you mean 'Delta'?)")
    ]


def test_duplicate_city() -> None:
    cities = CITIES + "    city Beta { square pink }\n"
    assert check_with(cities=cities) == [
        (11, 5, "error", "duplicate city 'Beta' (first declared at line 8)")
    ]


def test_duplicate_route_in_either_direction() -> None:
    routes = ROUTES.replace(
        "    route Beta -- Gamma", "    route Beta -- Alpha: 2\n    route Beta -- Gamma"
    )
    assert check_with(routes=routes) == [
        (12, 5, "error", "duplicate route Beta -- Alpha (first declared at line 11)")
    ]


def test_self_loop() -> None:
    routes = "    route Beta -- Beta: 2\n" + ROUTES
    assert check_with(routes=routes) == [
        (11, 5, "error", "route Beta -- Beta connects city 'Beta' with itself")
    ]


def test_disconnected_graph_is_an_error() -> None:
    cities = CITIES + "    city Eps { square white }\n    city Zeta { square white }\n"
    routes = "    route Eps -- Zeta: 2\n" + ROUTES
    assert check_with(cities=cities, routes=routes) == [
        (
            11,
            5,
            "error",
            "the route graph is not connected: cities Eps, Zeta cannot reach 'Alpha'",
        )
    ]


def test_city_no_route_reaches_is_an_error() -> None:
    cities = CITIES + "    city Eps { square white }\n"
    assert check_with(cities=cities) == [(11, 5, "error", "no route reaches city 'Eps'")]


def test_allow_disconnected_turns_connectivity_into_warnings() -> None:
    header = HEADER.replace("players 3..5", "players 3..5\n    allow_disconnected")
    cities = CITIES + "    city Eps { square white }\n    city Zeta { square white }\n"
    cities += "    city Eta { square white }\n"
    routes = "    route Eps -- Zeta: 2\n" + ROUTES
    assert check_with(header, cities, routes) == [
        (
            12,
            5,
            "warning",
            "the route graph is not connected: cities Eps, Zeta cannot reach 'Alpha'",
        ),
        (14, 5, "warning", "no route reaches city 'Eta'"),
    ]


def test_east_west_cities_must_exist() -> None:
    header = HEADER.replace("east_west Alpha -- Delta", "east_west Alpha -- Omega")
    assert check_with(header) == [
        (4, 5, "error", "East-West city 'Omega' is not a city of this board")
    ]


def test_east_west_cities_must_differ() -> None:
    header = HEADER.replace("east_west Alpha -- Delta", "east_west Alpha -- Alpha")
    assert check_with(header) == [
        (4, 5, "error", "the East-West connection needs two different cities, not 'Alpha' twice")
    ]


def test_east_west_cities_must_be_connected() -> None:
    header = HEADER.replace("players 3..5", "players 3..5\n    allow_disconnected")
    routes = ROUTES.replace("    route Gamma -- Delta: 2 country wales\n", "")
    assert check_with(header, routes=routes) == [
        (5, 5, "error", "no chain of routes connects the East-West cities 'Alpha' and 'Delta'"),
        (11, 5, "warning", "no route reaches city 'Delta'"),
    ]


def test_special_prestige_city_must_exist() -> None:
    header = HEADER.replace("special_prestige Alpha via", "special_prestige Alhpa via")
    assert check_with(header) == [
        (
            6,
            5,
            "error",
            "special-prestige city 'Alhpa' is not a city of this board (did you mean 'Alpha'?)",
        ),
        (6, 5, "error", "the special-prestige route Alpha -- Beta does not touch 'Alhpa'"),
    ]


def test_special_prestige_route_must_exist_and_touch_the_city() -> None:
    header = HEADER.replace("via Alpha -- Beta", "via Beta -- Gamma")
    assert check_with(header) == [
        (6, 5, "error", "the special-prestige route Beta -- Gamma does not touch 'Alpha'")
    ]
    header = HEADER.replace("via Alpha -- Beta", "via Alpha -- Gamma")
    assert check_with(header) == [
        (6, 5, "error", "the special-prestige route Alpha -- Gamma is not a route of this board")
    ]


def test_points_per_route() -> None:
    routes = ROUTES.replace("route Gamma -- Delta: 2", "route Gamma -- Delta: 5")
    assert check_with(routes=routes) == [
        (13, 5, "error", "route Gamma -- Delta has 5 points; a route has 2 to 4")
    ]
    routes = ROUTES.replace("route Gamma -- Delta: 2", "route Gamma -- Delta: ship")
    assert check_with(routes=routes) == [
        (13, 5, "error", "route Gamma -- Delta has 1 points; a route has 2 to 4")
    ]


def test_spaces_per_hanseatic_city() -> None:
    cities = CITIES.replace(
        "city Delta country wales { round white }", "city Delta country wales { }"
    )
    assert check_with(cities=cities) == [
        (10, 5, "error", "city 'Delta' has 0 trading-post spaces; a Hanseatic city has 1 to 8")
    ]
    nine = "; ".join(["square white"] * 9)
    cities = CITIES.replace("{ round white }", "{ " + nine + " }")
    assert check_with(cities=cities)[0][3] == (
        "city 'Delta' has 9 trading-post spaces; a Hanseatic city has 1 to 8"
    )


def test_green_city_has_no_spaces() -> None:
    cities = CITIES.replace("city Delta country wales {", "city Delta green country wales {")
    assert check_with(cities=cities) == [
        (
            10,
            5,
            "error",
            "green city 'Delta' has 1 trading-post spaces; a green (non-Hanseatic) city has none: "
            "write { }",
        )
    ]
    cities = CITIES.replace("city Delta country wales { round white }", "city Delta green { }")
    assert check_with(cities=cities) == []


def test_permanent_bonus_only_on_sea_routes() -> None:
    routes = ROUTES.replace(
        "route Gamma -- Delta: 2", "route Gamma -- Delta: 2 permanent post_in_green_city"
    )
    assert check_with(routes=routes) == [
        (
            13,
            5,
            "error",
            "route Gamma -- Delta is a land route but has permanent bonus 'post_in_green_city'; "
            "only sea routes (with a ship point) carry one",
        )
    ]


def test_ship_points_disagreeing_with_a_stated_route_kind() -> None:
    """Boards from JSON state `kind`: ship points only on sea routes, sea routes have one."""
    board = _small_board()
    land_with_ship = replace(board.routes[1], sea=False)
    sea_without_ship = replace(board.routes[0], sea=True)
    board = replace(board, routes=(sea_without_ship, land_with_ship, board.routes[2]))
    messages = [d.message for d in check_board(board)]
    assert messages == [
        "route Alpha -- Beta is marked as a sea route but has no ship point",
        "route Beta -- Gamma is marked as a land route but has 1 ship points "
        "(a route with a ship point is a sea route)",
        "route Beta -- Gamma is a land route but has permanent bonus 'develop_privilege'; "
        "only sea routes (with a ship point) carry one",
    ]


def test_countries_and_permissions_name_declared_countries() -> None:
    cities = CITIES.replace("permission wales", "permission scotland").replace(
        "city Gamma country wales", "city Gamma country walse"
    )
    routes = ROUTES.replace(
        "route Gamma -- Delta: 2 country wales", "route Gamma -- Delta: 2 country france"
    )
    assert check_with(cities=cities, routes=routes) == [
        (8, 5, "error", "the permission of city 'Beta' names undeclared country 'scotland'"),
        (9, 5, "error", "city 'Gamma' names undeclared country 'walse' (did you mean 'wales'?)"),
        (13, 5, "error", "route Gamma -- Delta names undeclared country 'france'"),
    ]


def test_countries_without_a_countries_statement() -> None:
    header = HEADER.replace("    countries england, wales\n", "")
    result = check_with(header)
    assert result[0] == (
        6,
        5,
        "error",
        "city 'Alpha' names undeclared country 'england' (the board declares no `countries`)",
    )


def test_ability_names_are_known() -> None:
    cities = CITIES.replace("ability book", "ability bok | keys | privlege")
    assert check_with(cities=cities) == [
        (
            7,
            5,
            "error",
            "unknown ability 'bok' in city 'Alpha' (did you mean 'book'?); "
            "known: keys, actions, privilege, book, bank",
        ),
        (
            7,
            5,
            "error",
            "unknown ability 'privlege' in city 'Alpha' (did you mean 'privilege'?); "
            "known: keys, actions, privilege, book, bank",
        ),
    ]


def test_completed_cities_not_more_than_the_cities() -> None:
    header = HEADER.replace("completed_cities 3", "completed_cities 5")
    assert check_with(header) == [
        (5, 5, "error", "completed_cities is 5, but the board has only 4 cities")
    ]


def test_no_tavern_is_a_warning_only() -> None:
    routes = ROUTES.replace(" tavern", "")
    assert check_with(routes=routes) == [
        (1, 1, "warning", "no route has a tavern, so no start bonus marker can be placed")
    ]
    # any number of taverns is the edition's business
    routes = ROUTES.replace(": 2 country", ": 2 tavern country")
    assert check_with(routes=routes) == []


def test_aliases_must_be_unambiguous() -> None:
    cities = CITIES.replace("city Beta country", "city Beta aka Gamma, B country").replace(
        "city Delta country", "city Delta aka B country"
    )
    assert check_with(cities=cities) == [
        (8, 5, "error", "alias 'Gamma' of city 'Beta' is the name of another city"),
        (10, 5, "error", "alias 'B' of city 'Delta' is also an alias of 'Beta'"),
    ]


def test_repeated_list_entries_are_warnings() -> None:
    cities = CITIES.replace("city Beta country england", "city Beta country england, england")
    header = HEADER.replace("countries england, wales", "countries england, wales, england")
    assert check_with(header, cities) == [
        (3, 5, "warning", "country 'england' is declared twice"),
        (8, 5, "warning", "city 'Beta' lists country 'england' twice"),
    ]


def test_positions_outside_the_frame_are_warnings() -> None:
    cities = CITIES.replace("city Gamma country wales", "city Gamma country wales at (1.5, 0.2)")
    assert check_with(cities=cities) == [
        (9, 5, "warning", "city 'Gamma' is drawn at (1.5, 0.2), outside the board frame (0..1)")
    ]


def test_a_misspelt_endpoint_does_not_cascade_into_connectivity_errors() -> None:
    routes = ROUTES.replace("route Gamma -- Delta", "route Gamma -- Delt")
    assert len(check_with(routes=routes)) == 1


def test_boards_without_spans_still_get_diagnostics() -> None:
    """Boards built in code or from JSON have no spans; checks fall back to the board's span."""
    board = Board(
        "b",
        "B",
        cities=(City("A", (PostSpace("square", "white"),)), City("A", ())),
        routes=(Route(("A", "B"), ("any", "any")),),
    )
    messages = [d.message for d in check_board(board)]
    assert "duplicate city 'A'" in messages
    assert any("unknown city 'B'" in m for m in messages)


def _small_board() -> Board:
    tree = parse_text(HEADER + CITIES + ROUTES, "b.hansa")
    return lower_board(tree.children[0], "b.hansa")
