"""Boards that extend boards: `board mine extends hanseatic_45p { … }` folded into one board.

The child states only what differs (docs/board-language.md, "Boards that extend boards"): header
statements it writes replace the parent's, `city`/`route` statements add, `change city`/`change
route` replace the clauses they write (and clear those after `without`), `remove city`/`remove
route` take one out. `extend_board` applies one child over its resolved parent and refuses, each at
the child's statement, a name the parent does not have (with "did you mean"), an addition the
parent already has, a city or route edited twice, and a removed city that routes (or the East-West
or special-prestige statement) still name. `resolve_boards` folds every board of a project that
extends another, parents first; the ordinary board checks then run on the result.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..errors import Diagnostic, HansaError, Span, did_you_mean
from ..nodes.board import Board, City, CityChange, Removal, Route, RouteChange

# Header statement (as `Board.statement_spans` names it) -> the Board fields it sets.
HEADER_FIELDS: dict[str, tuple[str, ...]] = {
    "title": ("title",),
    "side": ("side",),
    "players": ("players",),
    "original_edition_players": ("original_edition_players",),
    "countries": ("countries",),
    "east_west": ("east_west",),
    "completed_cities": ("completed_cities",),
    "special_prestige": ("special_prestige",),
    "frame": ("frame", "frame_note"),
    "verification": ("verification",),
    "allow_disconnected": ("allow_disconnected",),
}
# Provenance of the printed side: a changed board is not the verified scan, so a child keeps the
# parent's verification only by writing its own `verification { … }`.
NOT_INHERITED = ("verification",)
CLEARED_CITY_VALUES: dict[str, Any] = {
    "abilities": (),
    "hanseatic": True,
    "countries": (),
    "permissions": (),
    "aliases": (),
    "position": None,
}
CLEARED_ROUTE_VALUES: dict[str, Any] = {"tavern": False, "permanent_bonus": None, "country": None}


def _route_text(cities: tuple[str, ...]) -> str:
    return " -- ".join(cities)


class _Extension:
    """One child over its parent; problems collect in `errors`, each at the child's statement."""

    def __init__(self, child: Board, parent: Board):
        self.child = child
        self.parent = parent
        self.errors: list[Diagnostic] = []
        self.cities: dict[str, City] = {c.name: c for c in parent.cities}
        self.routes: dict[frozenset[str], Route] = {r.key: r for r in parent.routes}
        self.aliases = {a: c.name for c in parent.cities for a in c.aliases}
        self.touched: dict[tuple, Span] = {}  # ("city", name) / ("route", key) -> first edit
        self.removed_cities: dict[str, Span] = {}

    def error(self, message: str, span: Span) -> None:
        self.errors.append(Diagnostic(message, span))

    def where(self, item: City | Route) -> str:
        span = item.span
        return f" ({span.file}:{span.line})" if span is not None and span.line > 0 else ""

    # ---------------------------------------------------------------- finding the parent's items

    def city_name(self, name: str, span: Span) -> str | None:
        """The parent's city `name` (or the city it is an alias of); None after an error."""
        if name in self.cities:
            return name
        if name in self.aliases:
            return self.aliases[name]
        if name in self.removed_cities:
            self.error(
                f"city '{name}' is removed above (line {self.removed_cities[name].line})", span
            )
            return None
        known = [*self.cities, *self.aliases]
        self.error(f"board {self.parent.id} has no city '{name}'{did_you_mean(name, known)}", span)
        return None

    def route_key(self, cities: tuple[str, ...], span: Span) -> frozenset[str] | None:
        """The parent's route between two cities; None after an error."""
        names = [self.city_name(c, span) for c in cities]
        if None in names:
            return None
        key = frozenset(names)
        if key not in self.routes:
            a, b = names
            reached = sorted(
                next(iter(r.key - {a}))
                for r in self.routes.values()
                if a in r.key and len(r.key) == 2
            )
            shown = ", ".join(reached) or "none"
            self.error(
                f"board {self.parent.id} has no route {_route_text(tuple(names))}"
                f" (routes from {a} go to: {shown})",
                span,
            )
            return None
        return key

    def touch(self, key: tuple, span: Span, what: str) -> bool:
        """False (after an error) when an earlier statement of the child edits the same item."""
        first = self.touched.get(key)
        if first is not None:
            self.error(
                f"{what} is changed twice in board {self.child.id} (first at line {first.line});"
                " write one statement",
                span,
            )
            return False
        self.touched[key] = span
        return True

    # ---------------------------------------------------------------- the edits

    def apply(self) -> None:
        for edit in self.child.edits:
            if isinstance(edit, Removal) and edit.what == "route":
                self.remove_route(edit)
        for edit in self.child.edits:
            if isinstance(edit, Removal) and edit.what == "city":
                self.remove_city(edit)
            elif isinstance(edit, CityChange):
                self.change_city(edit)
            elif isinstance(edit, RouteChange):
                self.change_route(edit)
        for city in self.child.cities:
            self.add_city(city)
        for route in self.child.routes:
            self.add_route(route)
        self.check_removed_cities()

    def remove_route(self, edit: Removal) -> None:
        key = self.route_key(edit.names, edit.span)
        if key is not None and self.touch(
            ("route", key), edit.span, f"route {_route_text(edit.names)}"
        ):
            del self.routes[key]

    def remove_city(self, edit: Removal) -> None:
        name = self.city_name(edit.names[0], edit.span)
        if name is not None and self.touch(("city", name), edit.span, f"city '{name}'"):
            del self.cities[name]
            self.aliases = {a: c for a, c in self.aliases.items() if c != name}
            self.removed_cities[name] = edit.span

    def change_city(self, edit: CityChange) -> None:
        name = self.city_name(edit.name, edit.span)
        if name is None or not self.touch(("city", name), edit.span, f"city '{name}'"):
            return
        values = dict(edit.values)
        values.update({f: CLEARED_CITY_VALUES[f] for f in edit.cleared})
        self.cities[name] = replace(self.cities[name], span=edit.span, **values)

    def change_route(self, edit: RouteChange) -> None:
        key = self.route_key(edit.cities, edit.span)
        if key is None or not self.touch(
            ("route", key), edit.span, f"route {_route_text(edit.cities)}"
        ):
            return
        values = dict(edit.values)
        values.update({f: CLEARED_ROUTE_VALUES[f] for f in edit.cleared})
        route = self.routes[key]
        if "points" in values:  # points are written from the child's first city to its second
            values["cities"] = tuple(self.aliases.get(c, c) for c in edit.cities)
            values["sea"] = None  # the kind follows the new points
        self.routes[key] = replace(route, span=edit.span, **values)

    def add_city(self, city: City) -> None:
        if city.name in self.cities and city.name not in self.removed_cities:
            self.error(
                f"city '{city.name}' is on board {self.parent.id} already"
                f"{self.where(self.cities[city.name])}: write `change city {city.name} …` for"
                " what differs",
                city.span,
            )
            return
        if city.name in self.aliases:
            self.error(
                f"'{city.name}' is another name of {self.aliases[city.name]} on board"
                f" {self.parent.id}: write `change city {self.aliases[city.name]} …`",
                city.span,
            )
            return
        self.cities[city.name] = city  # after `remove city X`, `city X { … }` states it anew
        self.removed_cities.pop(city.name, None)

    def add_route(self, route: Route) -> None:
        names = tuple(self.aliases.get(c, c) for c in route.cities)
        key = frozenset(names)
        present = self.routes.get(key)
        if present is not None and ("route", key) not in self.touched:
            self.error(
                f"route {_route_text(route.cities)} is on board {self.parent.id} already"
                f"{self.where(present)}: write `change route {_route_text(route.cities)} …` for"
                " what differs",
                route.span,
            )
            return
        self.routes[key] = replace(route, cities=names)

    def check_removed_cities(self) -> None:
        """A removed city may not stay on a route or in the East-West or special-prestige
        statement (one error at the `remove city`, naming what still holds it)."""
        stated = {k for k, _ in self.child.statement_spans}
        for name, span in self.removed_cities.items():
            holders = [
                f"route {_route_text(r.cities)}" for r in self.routes.values() if name in r.cities
            ]
            east_west = self.child.east_west if "east_west" in stated else self.parent.east_west
            if east_west is not None and name in east_west:
                holders.append("the east_west statement")
            special = (
                self.child.special_prestige
                if "special_prestige" in stated
                else self.parent.special_prestige
            )
            if special is not None and (name == special.city or name in special.via):
                holders.append("the special_prestige statement")
            if holders:
                self.error(
                    f"city '{name}' is removed but {', '.join(holders)} still name it: remove or"
                    " change those too",
                    span,
                )

    # ---------------------------------------------------------------- the result

    def board(self) -> Board:
        stated = dict(self.child.statement_spans)
        values: dict[str, Any] = {}
        spans = []
        for statement, fields in HEADER_FIELDS.items():
            if statement in stated:
                source, span = self.child, stated[statement]
            elif statement in NOT_INHERITED:
                continue
            else:
                source, span = self.parent, dict(self.parent.statement_spans).get(statement)
            for field_name in fields:
                values[field_name] = getattr(source, field_name)
            if span is not None:
                spans.append((statement, span))
        for statement in NOT_INHERITED:
            if statement not in stated:
                values.update({f: getattr(Board, f, ()) for f in HEADER_FIELDS[statement]})
        return replace(
            self.parent,
            id=self.child.id,
            cities=tuple(self.cities.values()),
            routes=tuple(self.routes.values()),
            span=self.child.span,
            extends=None,
            edits=(),
            extends_span=self.child.extends_span,
            statement_spans=tuple(spans),
            derived_from=self.parent.id,
            inherited=tuple(s for s in HEADER_FIELDS if s not in stated and s not in NOT_INHERITED),
            own_edits=self.own_edits(),
            **values,
        )

    def own_edits(self) -> tuple[tuple[str, str], ...]:
        """What the child added, changed or removed, city by city and route by route."""
        out: list[tuple[str, str]] = []
        parent_cities = {c.name: c for c in self.parent.cities}
        for name, city in self.cities.items():
            if name not in parent_cities:
                out.append(("added", f"city:{name}"))
            elif city != parent_cities[name]:
                out.append(("changed", f"city:{name}"))
        out += [("removed", f"city:{n}") for n in parent_cities if n not in self.cities]
        parent_routes = {r.key: r for r in self.parent.routes}
        for key, route in self.routes.items():
            text = " -- ".join(route.cities)
            if key not in parent_routes:
                out.append(("added", f"route:{text}"))
            elif route != parent_routes[key]:
                out.append(("changed", f"route:{text}"))
        out += [
            ("removed", "route:" + " -- ".join(r.cities))
            for key, r in parent_routes.items()
            if key not in self.routes
        ]
        return tuple(out)


def extend_board(child: Board, parent: Board) -> Board:
    """`child` (a board with `extends`) applied over its resolved `parent`; HansaError with every
    problem, each at the child's statement."""
    extension = _Extension(child, parent)
    extension.apply()
    if extension.errors:
        raise HansaError(extension.errors)
    return extension.board()


def resolve_boards(
    boards: dict[str, Board], can_skip: set[str] = frozenset()
) -> tuple[dict[str, Board], list[Diagnostic], set[str]]:
    """Fold every board of `boards` that extends another, parents first.

    Returns (the boards with each child resolved, diagnostics, the names of the children that
    could not be resolved). A child of a parent named in `can_skip` (a board that failed to
    parse or lower) is left out silently: the parent's own errors say what is wrong."""
    resolved = {name: b for name, b in boards.items() if b.extends is None}
    pending = {name: b for name, b in boards.items() if b.extends is not None}
    diagnostics: list[Diagnostic] = []
    failed: set[str] = set()
    while pending:
        progress = False
        for name, child in list(pending.items()):
            parent_name = child.extends
            if parent_name in resolved:
                del pending[name]
                progress = True
                try:
                    resolved[name] = extend_board(child, resolved[parent_name])
                except HansaError as exc:
                    diagnostics.extend(exc.diagnostics)
                    failed.add(name)
            elif (
                parent_name in failed
                or parent_name in can_skip
                or (parent_name not in boards and parent_name not in pending)
            ):
                del pending[name]
                progress = True
                failed.add(name)
                if parent_name not in failed and parent_name not in can_skip:
                    known = [n for n in boards if n != name]
                    diagnostics.append(
                        Diagnostic(
                            f"unknown board '{parent_name}'{did_you_mean(parent_name, known)}",
                            child.extends_span,
                        )
                    )
        if not progress:  # what is left extends itself, directly or through others
            reported: set[frozenset[str]] = set()
            for name in pending:
                chain = [name]
                while (step := pending[chain[-1]].extends) not in chain:
                    chain.append(step)
                cycle = chain[chain.index(step) :]
                failed.add(name)
                if frozenset(cycle) in reported:
                    continue  # one cycle, one error (at the first of its boards)
                reported.add(frozenset(cycle))
                diagnostics.append(
                    Diagnostic(
                        f"boards extend each other in a cycle: {' → '.join([*cycle, step])}",
                        pending[cycle[0]].extends_span,
                    )
                )
            break
    return resolved, diagnostics, failed
