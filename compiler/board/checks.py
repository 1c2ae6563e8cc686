"""Checks on a lowered `Board`: the route graph (networkx), ranges, countries, abilities, IR values.

`check_board` never raises: it returns every problem as a `Diagnostic` ('error' or 'warning')
carrying the span of the offending city, route or board statement, sorted by position. Boards
from JSON (`board_json`) go through the same checks, so the word-level checks repeat what lowering
already enforces for spec files. How many taverns an edition needs is edition business, checked
with the rules, not here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

import networkx as nx

from ..errors import NO_SPAN, Diagnostic, Span, did_you_mean
from ..nodes.board import (
    ABILITIES,
    PERMANENT_BONUSES,
    POINT_TYPES,
    PRIVILEGES,
    ROUTE_LABEL_SEPARATOR,
    SHAPES,
    Board,
    City,
    Route,
)

POINTS_PER_ROUTE = (2, 4)
SPACES_PER_HANSEATIC_CITY = (1, 8)


class _Report:
    """Collects diagnostics for one board."""

    def __init__(self, board: Board):
        self.board = board
        self.diagnostics: list[Diagnostic] = []

    def error(self, message: str, span: Span | None) -> None:
        self.diagnostics.append(Diagnostic(message, span or self.board.span or NO_SPAN, "error"))

    def warning(self, message: str, span: Span | None) -> None:
        self.diagnostics.append(Diagnostic(message, span or self.board.span or NO_SPAN, "warning"))


def _repeated(values: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    repeated: list[str] = []
    for value in values:
        if value in seen and value not in repeated:
            repeated.append(value)
        seen.add(value)
    return repeated


def _route_text(route: Route) -> str:
    return f"{route.cities[0]} -- {route.cities[1]}"


def _first_declared(span: Span) -> str:
    """' (first declared at line N)' when the first declaration's line is known."""
    return f" (first declared at line {span.line})" if span.line else ""


def check_board(board: Board) -> list[Diagnostic]:
    """Every error and warning about `board`, sorted by source position."""
    report = _Report(board)
    names = _check_cities(board, report)
    graph = _check_routes(board, names, report)
    if all(end in names for route in board.routes for end in route.cities):
        # With a misspelt endpoint the graph misses a route; its error is enough.
        _check_connectivity(board, graph, report)
        _check_east_west(board, names, graph, report)
    else:
        _check_east_west(board, names, None, report)
    _check_special_prestige(board, names, graph, report)
    _check_countries(board, report)
    _check_board_numbers(board, report)
    return _one_error_per_unknown_city(sorted(report.diagnostics, key=_position))


_UNKNOWN_CITY = re.compile(
    r"unknown city '((?:[^'\\]|\\.)*)'|city '((?:[^'\\]|\\.)*)' is not a city of this board"
)


def _one_error_per_unknown_city(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """A city name that is not on the board is one mistake (a misspelt or renamed city) however
    many statements name it: said at its first use, with the lines of the others."""
    first: dict[str, int] = {}
    others: dict[str, list[int]] = {}
    kept: list[Diagnostic] = []
    for d in diagnostics:
        match = _UNKNOWN_CITY.search(d.message) if d.severity == "error" else None
        name = (match.group(1) or match.group(2)) if match else None
        if name is None:
            kept.append(d)
        elif name in first:
            others[name].append(d.span.line if d.span else 0)
        else:
            first[name], others[name] = len(kept), []
            kept.append(d)
    for name, index in first.items():
        if others[name]:
            lines = ", ".join(str(n) for n in others[name])
            d = kept[index]
            kept[index] = replace(d, message=f"{d.message} (also named at line {lines})")
    return kept


def _position(diagnostic: Diagnostic) -> tuple:
    span = diagnostic.span or NO_SPAN
    return (span.file, span.line, span.column)


# ------------------------------------------------------------------------------------------ cities


def _check_cities(board: Board, report: _Report) -> dict[str, City]:
    """Duplicate names and aliases, spaces per city, green cities, abilities, space words."""
    by_name: dict[str, City] = {}
    for city in board.cities:
        if ROUTE_LABEL_SEPARATOR in city.name:
            report.error(
                f"city name '{city.name}' holds '{ROUTE_LABEL_SEPARATOR}' (U+2013), which joins the"
                " two cities of a route in action texts: write '-' instead",
                city.span,
            )
        if city.name in by_name:
            first = by_name[city.name]
            report.error(f"duplicate city '{city.name}'{_first_declared(first.span)}", city.span)
            continue
        by_name[city.name] = city

    alias_owner: dict[str, City] = {}
    for city in by_name.values():
        for alias in city.aliases:
            if alias == city.name:
                report.warning(f"city '{city.name}' lists its own name as an alias", city.span)
            elif alias in by_name:
                report.error(
                    f"alias '{alias}' of city '{city.name}' is the name of another city", city.span
                )
            elif alias in alias_owner:
                other = alias_owner[alias]
                report.error(
                    f"alias '{alias}' of city '{city.name}' is also an alias of '{other.name}'",
                    city.span,
                )
            else:
                alias_owner[alias] = city

    low, high = SPACES_PER_HANSEATIC_CITY
    for city in by_name.values():
        for what, values in (
            ("ability", city.abilities),
            ("country", city.countries),
            ("permission", city.permissions),
            ("alias", city.aliases),
        ):
            for value in _repeated(values):
                report.warning(f"city '{city.name}' lists {what} '{value}' twice", city.span)
        if not city.hanseatic:
            if city.spaces:
                report.error(
                    f"green city '{city.name}' has {len(city.spaces)} trading-post spaces; "
                    "a green (non-Hanseatic) city has none: write { }",
                    city.span,
                )
        elif not low <= len(city.spaces) <= high:
            report.error(
                f"city '{city.name}' has {len(city.spaces)} trading-post spaces; "
                f"a Hanseatic city has {low} to {high}",
                city.span,
            )
        for ability in city.abilities:
            if ability not in ABILITIES:
                report.error(
                    f"unknown ability '{ability}' in city '{city.name}'"
                    f"{did_you_mean(ability, ABILITIES)}; known: {', '.join(ABILITIES)}",
                    city.span,
                )
        for space in city.spaces:
            span = space.span if space.span.line else city.span
            if space.shape not in SHAPES:
                report.error(f"unknown space shape '{space.shape}' in city '{city.name}'", span)
            if space.privilege not in PRIVILEGES:
                report.error(
                    f"unknown privilege colour '{space.privilege}' in city '{city.name}'", span
                )
            if space.coin not in (0, 1, 2):
                report.error(f"coin {space.coin} in city '{city.name}' (a coin is 1 or 2)", span)
        if city.position is not None:
            x, y = city.position
            if not (0.0 <= x <= 1.0 and 0.0 <= y <= 1.0):
                report.warning(
                    f"city '{city.name}' is drawn at ({x}, {y}), outside the board frame (0..1)",
                    city.span,
                )
    return by_name


# ------------------------------------------------------------------------------------------ routes


def _check_routes(board: Board, cities: dict[str, City], report: _Report) -> nx.Graph:
    """Endpoints, self-loops, duplicates, points, sea flags; returns the graph of good routes."""
    graph = nx.Graph()
    graph.add_nodes_from(cities)
    seen: dict[frozenset[str], Route] = {}
    low, high = POINTS_PER_ROUTE
    taverns = 0
    for route in board.routes:
        text = _route_text(route)
        endpoints_ok = True
        for end in dict.fromkeys(route.cities):
            if end not in cities:
                endpoints_ok = False
                report.error(
                    f"route {text} names unknown city '{end}'{did_you_mean(end, cities)}",
                    route.span,
                )
        if route.cities[0] == route.cities[1]:
            report.error(f"route {text} connects city '{route.cities[0]}' with itself", route.span)
            continue
        if route.key in seen:
            first = seen[route.key]
            report.error(f"duplicate route {text}{_first_declared(first.span)}", route.span)
            continue
        seen[route.key] = route
        if endpoints_ok:
            graph.add_edge(*route.cities, route=route)
        if not low <= len(route.points) <= high:
            report.error(
                f"route {text} has {len(route.points)} points; a route has {low} to {high}",
                route.span,
            )
        for point in route.points:
            if point not in POINT_TYPES:
                report.error(f"route {text} has unknown point type '{point}'", route.span)
        ships = route.merchant_points
        if route.sea is False and ships:
            report.error(
                f"route {text} is marked as a land route but has {ships} ship points "
                "(a route with a ship point is a sea route)",
                route.span,
            )
        if route.sea is True and not ships:
            report.error(f"route {text} is marked as a sea route but has no ship point", route.span)
        if route.permanent_bonus is not None:
            if route.permanent_bonus not in PERMANENT_BONUSES:
                report.error(
                    f"route {text} has unknown permanent bonus '{route.permanent_bonus}'"
                    f"{did_you_mean(route.permanent_bonus, PERMANENT_BONUSES)}",
                    route.span,
                )
            if not route.is_sea:
                report.error(
                    f"route {text} is a land route but has permanent bonus "
                    f"'{route.permanent_bonus}'; only sea routes (with a ship point) carry one",
                    route.span,
                )
        taverns += route.tavern
    if board.routes and taverns == 0:
        report.warning("no route has a tavern, so no start bonus marker can be placed", board.span)
    return graph


def _check_connectivity(board: Board, graph: nx.Graph, report: _Report) -> None:
    """One connected route graph; `allow_disconnected` turns the finding into warnings."""
    if graph.number_of_nodes() == 0:
        report.error("the board has no cities", board.span)
        return
    order = {city.name: i for i, city in enumerate(board.cities)}
    parts = sorted(
        nx.connected_components(graph), key=lambda p: (-len(p), min(order[c] for c in p))
    )
    severity = report.warning if board.allow_disconnected else report.error
    isolated = [name for name in order if name in graph and graph.degree(name) == 0]
    for name in isolated:
        if len(parts) == 1:  # a one-city board: nothing to connect to
            break
        severity(f"no route reaches city '{name}'", board.city(name).span)
    main_city = min(parts[0], key=order.__getitem__)
    for part in parts[1:]:
        if len(part) == 1:
            continue  # reported above as unreached
        members = sorted(part, key=order.__getitem__)
        shown = ", ".join(members[:6]) + (", …" if len(members) > 6 else "")
        severity(
            f"the route graph is not connected: cities {shown} cannot reach '{main_city}'",
            board.city(members[0]).span,
        )


def _check_east_west(
    board: Board, cities: dict[str, City], graph: nx.Graph | None, report: _Report
) -> None:
    if board.east_west is None:
        return
    span = board.statement_span("east_west")
    a, b = board.east_west
    if a == b:
        report.error(f"the East-West connection needs two different cities, not '{a}' twice", span)
        return
    missing = False
    for end in (a, b):
        if end not in cities:
            missing = True
            report.error(
                f"East-West city '{end}' is not a city of this board{did_you_mean(end, cities)}",
                span,
            )
    if (
        not missing
        and graph is not None
        and not nx.has_path(graph, a, b)
        and not _routes_to_unknown_cities(board, cities)
    ):
        report.error(f"no chain of routes connects the East-West cities '{a}' and '{b}'", span)


def _routes_to_unknown_cities(board: Board, cities) -> list:
    """The routes naming a city the board does not have (each reported where it stands)."""
    return [route for route in board.routes if any(end not in cities for end in route.cities)]


def _check_special_prestige(
    board: Board, cities: dict[str, City], graph: nx.Graph, report: _Report
) -> None:
    special = board.special_prestige
    if special is None:
        return
    span = special.span if special.span.line else board.statement_span("special_prestige")
    if special.city not in cities:
        report.error(
            f"special-prestige city '{special.city}' is not a city of this board"
            f"{did_you_mean(special.city, cities)}",
            span,
        )
    a, b = special.via
    if special.city not in special.via:
        report.error(f"the special-prestige route {a} -- {b} does not touch '{special.city}'", span)
    broken = _routes_to_unknown_cities(board, cities)
    if not any(route.key == frozenset(special.via) for route in board.routes) and not any(
        set(route.cities) & {a, b} for route in broken
    ):  # a route with a misspelt end touching a or b is reported already: one mistake, one error
        report.error(f"the special-prestige route {a} -- {b} is not a route of this board", span)
    if not special.spaces:
        report.error(f"special-prestige city '{special.city}' has no spaces", span)
    for space in special.spaces:
        space_span = space.span if space.span.line else span
        if space.privilege not in PRIVILEGES:
            report.error(
                f"unknown privilege colour '{space.privilege}' on a special-prestige space",
                space_span,
            )
        if space.points < 0:
            report.error(
                f"special-prestige space worth {space.points} PP (must not be negative)", space_span
            )


# --------------------------------------------------------------------------------------- countries


def _check_countries(board: Board, report: _Report) -> None:
    """Countries and permissions of cities and routes name countries the board declares."""
    declared = board.countries
    for country in _repeated(declared):
        report.warning(f"country '{country}' is declared twice", board.statement_span("countries"))
    hint = "" if declared else " (the board declares no `countries`)"

    def check(names: Iterable[str], what: str, span: Span) -> None:
        for country in names:
            if country not in declared:
                report.error(
                    f"{what} names undeclared country '{country}'"
                    f"{did_you_mean(country, declared)}{hint}",
                    span,
                )

    for city in board.cities:
        check(city.countries, f"city '{city.name}'", city.span)
        check(city.permissions, f"the permission of city '{city.name}'", city.span)
    for route in board.routes:
        if route.country is not None:
            check((route.country,), f"route {_route_text(route)}", route.span)


# ------------------------------------------------------------------------------------------ numbers


# The largest board `hansa build` is measured on (seconds to build;
# tests/games/test_board_features).
BUILD_TESTED_CITIES = 2_000
BUILD_TESTED_ROUTES = 8_000


def _check_board_numbers(board: Board, report: _Report) -> None:
    if len(board.cities) > BUILD_TESTED_CITIES or len(board.routes) > BUILD_TESTED_ROUTES:
        report.warning(
            f"the board has {len(board.cities)} cities and {len(board.routes)} routes; "
            f"hansa build is measured up to {BUILD_TESTED_CITIES:,} cities and "
            f"{BUILD_TESTED_ROUTES:,} routes (larger boards may take minutes to build and play)",
            board.span,
        )
    span = board.statement_span("completed_cities")
    if board.completed_cities < 1:
        report.error(f"completed_cities is {board.completed_cities}; it must be at least 1", span)
    elif board.cities and board.completed_cities > len(board.cities):
        report.error(
            f"completed_cities is {board.completed_cities}, "
            f"but the board has only {len(board.cities)} cities",
            span,
        )
    for statement in ("players", "original_edition_players"):
        counts = getattr(board, statement)
        if counts and (len(set(counts)) != len(counts) or any(n < 1 for n in counts)):
            report.error(
                f"{statement} must list different positive player counts",
                board.statement_span(statement),
            )
