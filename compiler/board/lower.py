"""Board syntax tree (from `grammar/board.lark`) → `Board` IR, every node keeping its source span.

Lowering owns what the grammar leaves open on purpose: words such as colours, shapes, point types
and permanent bonuses are plain names in the grammar and are validated here (with "did you mean
…?"), and numbers are range-checked. Graph questions (does a route's city exist, is the board
connected) belong to `board_checks`. Every problem found is collected, and all of them are raised
together as one `HansaError`, each with file:line:col.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Iterable

import lark

from ..errors import Diagnostic, HansaError, Span, did_you_mean
from ..nodes.board import (
    PERMANENT_BONUSES,
    PRIVILEGES,
    SHAPES,
    Board,
    BoardEdit,
    City,
    CityChange,
    PostSpace,
    Removal,
    Route,
    RouteChange,
    SpecialPrestige,
    SpecialSpace,
)
from ..syntax.limits import MAX_NUMBER, text_problem
from ..syntax.parser import span_of

# The board language's point words and the IR's point types (docs/board-language.md, "Routes").
POINT_WORDS = {"house": "any", "ship": "merchant"}
COIN_VALUES = (1, 2)  # a space without a coin is written without `coin`
PLAYER_COUNT_RANGE = (1, 8)
MAX_ROUTE_POINTS = 99  # far above any board; the 2–4 rule is a check, this only bounds the tuple
# Verification keys whose value is a list even when it has one element (the reference JSON's shape).
VERIFICATION_LIST_KEYS = ("sources_agreeing",)
# `without CLAUSE` in a child board: the clause word -> the City / Route field it clears.
CITY_CLAUSE_FIELDS = {
    "ability": "abilities",
    "green": "hanseatic",
    "country": "countries",
    "permission": "permissions",
    "aka": "aliases",
    "at": "position",
}
ROUTE_FLAG_FIELDS = {"tavern": "tavern", "permanent": "permanent_bonus", "country": "country"}


class _BoardLowerer:
    """Walks one `board` tree; problems go to `self.errors` so all of them are reported at once."""

    def __init__(self, file: str):
        self.file = file
        self.errors: list[Diagnostic] = []

    # ---------------------------------------------------------------- small helpers

    def error(self, message: str, where) -> None:
        span = where if isinstance(where, Span) else span_of(where, self.file)
        self.errors.append(Diagnostic(message, span))

    def span(self, item, fallback: Span | None = None) -> Span:
        span = span_of(item, self.file)
        if span.line <= 0 and fallback is not None:
            return fallback
        return span

    def text(self, token: lark.Token, what: str = "text", name: bool = False) -> str:
        """A name or string token as text: quoted strings have their escapes decoded, and hold
        no control characters (a `name` no line break or tab either)."""
        value = self._decode(token)
        problem = text_problem(value, what, text_ok=not name)
        if problem:
            self.error(problem, token)
        return value

    def _decode(self, token: lark.Token) -> str:
        if token.type != "STRING":
            return unicodedata.normalize("NFC", str(token))
        try:
            value = json.loads(str(token), strict=False)
        except json.JSONDecodeError as exc:
            column = (token.column or 0) + exc.pos
            span = Span(self.file, token.line or 0, column, token.line or 0, column + 2)
            self.error(f"bad escape in string: {exc.msg.lower()}", span)
            return str(token)[1:-1]
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
            self.error(
                "string holds a lone surrogate (\\uD800–\\uDFFF), which is not a character", token
            )
            return str(token)[1:-1]
        return unicodedata.normalize("NFC", value)

    def name(self, token: lark.Token, what: str = "name") -> str:
        value = self.text(token, what, name=True)
        if not value.strip():
            self.error(f"empty {what}", token)
        return value

    def names(self, tokens: Iterable[lark.Token], what: str) -> tuple[str, ...]:
        """Names of a comma list, as written (a name listed twice is a check's warning)."""
        return tuple(self.name(token, what) for token in tokens)

    def integer(
        self, token: lark.Token, what: str, low: int | None = None, high: int | None = None
    ) -> int:
        try:
            value = int(str(token))
        except ValueError:  # e.g. more digits than Python converts
            self.error(f"bad number for {what}: too many digits", token)
            return low if low is not None else 0
        if high is None and value > MAX_NUMBER:  # every number of a spec has this bound
            high = MAX_NUMBER
            low = None if value > MAX_NUMBER else low
        if (low is not None and value < low) or (high is not None and value > high):
            if high is None:
                bounds = f"at least {low}"
            elif low is None:
                bounds = f"at most {high}"
            else:
                bounds = f"between {low} and {high}"
            self.error(f"bad number for {what}: {value} (must be {bounds})", token)
            return low if low is not None and value < low else (high if high is not None else value)
        return value

    def real(self, token: lark.Token, what: str) -> float:
        value = float(str(token))
        if not math.isfinite(value):
            self.error(f"bad number for {what}: {token} is not a finite number", token)
            return 0.0
        return value

    def word(self, token: lark.Token, known: Iterable[str], what: str) -> str:
        """One of a fixed set of words (a colour, a shape, …), or an error naming the choices."""
        value = self._decode(token)
        known = tuple(known)
        if value not in known:
            choices = ", ".join(known)
            self.error(
                f"unknown {what} '{value}'{did_you_mean(value, known)}; expected one of: {choices}",
                token,
            )
        return value

    def player_range(self, tree: lark.Tree, what: str) -> tuple[int, ...]:
        low_bound, high_bound = PLAYER_COUNT_RANGE
        numbers = [self.integer(t, what, low_bound, high_bound) for t in tree.children]
        if len(numbers) == 2 and numbers[0] > numbers[1]:
            self.error(f"bad range for {what}: {numbers[0]}..{numbers[1]} runs backwards", tree)
            return ()
        return tuple(range(numbers[0], numbers[-1] + 1))

    # ---------------------------------------------------------------- the board

    def board(self, tree: lark.Tree) -> Board:
        board_span = self.span(tree)
        children = list(tree.children)
        board_id = self.name(children.pop(0), "board name")
        fields: dict[str, object] = {}
        seen: dict[str, Span] = {}
        cities: list[City] = []
        routes: list[Route] = []
        edits: list[BoardEdit] = []
        extends: str | None = None
        extends_span = board_span
        for child in children:
            kind = child.data
            if kind == "board_extends":
                extends = self.name(child.children[0], "board name")
                extends_span = self.span(child, board_span)
                continue
            if kind in _EDIT_STATEMENTS:
                edits.append(getattr(self, kind.removeprefix("board_"))(child, board_span))
                continue
            if kind == "board_city":
                cities.append(self.city(child, board_span))
                continue
            if kind == "board_route":
                routes.append(self.route(child, board_span))
                continue
            statement = kind.removeprefix("board_")
            span = self.span(child, board_span)
            if statement in seen:
                first = seen[statement]
                self.error(f"duplicate '{statement}' statement (first at line {first.line})", span)
                continue
            seen[statement] = span
            getattr(self, f"statement_{statement}")(child, fields)
        statement_spans = tuple(seen.items())
        if extends is None:
            for edit in edits:
                self.error(
                    f"'{_EDIT_WORDS[type(edit), edit.what if isinstance(edit, Removal) else '']}'"
                    f" changes the board this one extends, and board {board_id} extends none:"
                    f" write `board {board_id} extends PARENT {{ … }}`",
                    edit.span,
                )
        return Board(
            id=board_id,
            title=fields.get("title", ""),
            side=fields.get("side", ""),
            players=fields.get("players", ()),
            original_edition_players=fields.get("original_edition_players", ()),
            east_west=fields.get("east_west"),
            completed_cities=fields.get("completed_cities", Board.completed_cities),
            special_prestige=fields.get("special_prestige"),
            countries=fields.get("countries", ()),
            cities=tuple(cities),
            routes=tuple(routes),
            verification=fields.get("verification", ()),
            frame=fields.get("frame"),
            frame_note=fields.get("frame_note", ""),
            allow_disconnected=fields.get("allow_disconnected", False),
            span=board_span,
            extends=extends,
            edits=tuple(edits),
            extends_span=extends_span,
            statement_spans=statement_spans,
        )

    # One method per board statement; each stores its IR value(s) in `fields`.

    def statement_title(self, tree: lark.Tree, fields: dict) -> None:
        fields["title"] = self.text(tree.children[0], "board title")

    def statement_side(self, tree: lark.Tree, fields: dict) -> None:
        fields["side"] = self.text(tree.children[0], "board side")

    def statement_players(self, tree: lark.Tree, fields: dict) -> None:
        fields["players"] = self.player_range(tree.children[0], "players")

    def statement_original_edition_players(self, tree: lark.Tree, fields: dict) -> None:
        fields["original_edition_players"] = self.player_range(
            tree.children[0], "original_edition_players"
        )

    def statement_countries(self, tree: lark.Tree, fields: dict) -> None:
        fields["countries"] = self.names(tree.children, "country")

    def statement_east_west(self, tree: lark.Tree, fields: dict) -> None:
        west, east = (self.name(t, "city name") for t in tree.children)
        fields["east_west"] = (west, east)

    def statement_completed_cities(self, tree: lark.Tree, fields: dict) -> None:
        fields["completed_cities"] = self.integer(tree.children[0], "completed_cities", 1)

    def statement_special_prestige(self, tree: lark.Tree, fields: dict) -> None:
        city, via_a, via_b, *space_trees = tree.children
        spaces = tuple(
            SpecialSpace(
                points=self.integer(s.children[0], "special prestige points", 0),
                privilege=self.word(s.children[1], PRIVILEGES, "privilege colour"),
                span=self.span(s),
            )
            for s in space_trees
        )
        fields["special_prestige"] = SpecialPrestige(
            city=self.name(city, "city name"),
            via=(self.name(via_a, "city name"), self.name(via_b, "city name")),
            spaces=spaces,
            span=self.span(tree),
        )

    def statement_frame(self, tree: lark.Tree, fields: dict) -> None:
        width, height, *note = tree.children
        fields["frame"] = (
            self.integer(width, "frame width", 1),
            self.integer(height, "frame height", 1),
        )
        if note:
            fields["frame_note"] = self.text(note[0], "frame note")

    def statement_verification(self, tree: lark.Tree, fields: dict) -> None:
        entries: list[tuple[str, object]] = []
        for entry in tree.children:
            key_token, *value_tokens = entry.children
            key = self.name(key_token, "verification key")
            if any(key == k for k, _ in entries):
                self.error(f"verification key '{key}' is given twice", key_token)
                continue
            values = tuple(self.text(t, "verification note") for t in value_tokens)
            if len(values) == 1 and key not in VERIFICATION_LIST_KEYS:
                entries.append((key, values[0]))
            else:
                entries.append((key, values))
        fields["verification"] = tuple(entries)

    def statement_allow_disconnected(self, tree: lark.Tree, fields: dict) -> None:
        fields["allow_disconnected"] = True

    # ---------------------------------------------------------------- cities

    def city(self, tree: lark.Tree, fallback: Span) -> City:
        city_span = self.span(tree, fallback)
        name_token, *rest = tree.children
        name = self.name(name_token, "city name")
        clauses = self.city_clauses(rest, name, city_span)
        spaces = tuple(self.post_space(c) for c in rest if c.data == "city_space")
        return City(name=name, spaces=spaces, span=city_span, **clauses)

    def city_clauses(self, children: list, name: str, city_span: Span) -> dict[str, object]:
        """A city's clauses (`ability …`, `green`, …) as City field values, each at most once."""
        clauses: dict[str, object] = {}
        seen: dict[str, Span] = {}
        for child in children:
            if child.data not in _CITY_CLAUSES:
                continue
            clause = child.data.removeprefix("city_")
            span = self.span(child, city_span)
            if clause in seen:
                self.error(f"city '{name}' has a second '{clause}' clause", span)
                continue
            seen[clause] = span
            if clause == "ability":
                clauses["abilities"] = self.names(child.children, "ability")
            elif clause == "green":
                clauses["hanseatic"] = False
            elif clause == "country":
                clauses["countries"] = self.names(child.children, "country")
            elif clause == "permission":
                clauses["permissions"] = self.names(child.children, "country")
            elif clause == "aka":
                clauses["aliases"] = self.names(child.children, "alias")
            elif clause == "at":
                x, y = (self.real(t, "a position") for t in child.children)
                clauses["position"] = (x, y)
            else:  # pragma: no cover - the grammar has no other city clause
                raise AssertionError(clause)
        return clauses

    def post_space(self, tree: lark.Tree) -> PostSpace:
        shape_token, colour_token, *coin = tree.children
        coin_value = 0
        if coin:
            coin_token = coin[0].children[0]
            coin_value = self.integer(coin_token, "coin", COIN_VALUES[0], COIN_VALUES[-1])
        return PostSpace(
            shape=self.word(shape_token, SHAPES, "space shape"),
            privilege=self.word(colour_token, PRIVILEGES, "privilege colour"),
            coin=coin_value,
            span=self.span(tree),
        )

    # ---------------------------------------------------------------- routes

    def route(self, tree: lark.Tree, fallback: Span) -> Route:
        route_span = self.span(tree, fallback)
        a_token, b_token, points_tree, *flags = tree.children
        cities = (self.name(a_token, "city name"), self.name(b_token, "city name"))
        points = self.route_points(points_tree)
        values = self.route_flags(flags, cities, route_span)
        return Route(cities=cities, points=points, span=route_span, **values)

    def route_points(self, points_tree: lark.Tree) -> tuple[str, ...]:
        if points_tree.data == "route_point_count":
            count = self.integer(points_tree.children[0], "route points", 0, MAX_ROUTE_POINTS)
            return ("any",) * count
        return tuple(
            POINT_WORDS.get(self.word(t, POINT_WORDS, "point type"), "any")
            for t in points_tree.children
        )

    def route_flags(
        self, flags: list, cities: tuple[str, str], route_span: Span
    ) -> dict[str, object]:
        """A route's flags (`tavern`, `permanent …`, `country …`) as Route field values."""
        values: dict[str, object] = {}
        seen: dict[str, Span] = {}
        for flag in flags:
            if flag.data not in _ROUTE_FLAGS:
                continue
            clause = flag.data.removeprefix("route_")
            span = self.span(flag, route_span)
            if clause in seen:
                self.error(f"route {cities[0]} -- {cities[1]} has a second '{clause}' clause", span)
                continue
            seen[clause] = span
            if clause == "tavern":
                values["tavern"] = True
            elif clause == "permanent":
                values["permanent_bonus"] = self.word(
                    flag.children[0], PERMANENT_BONUSES, "permanent bonus"
                )
            elif clause == "country":
                values["country"] = self.name(flag.children[0], "country")
            else:  # pragma: no cover - the grammar has no other route clause
                raise AssertionError(clause)
        return values

    # ---------------------------------------------------------------- a child board's edits

    def change_city(self, tree: lark.Tree, fallback: Span) -> CityChange:
        span = self.span(tree, fallback)
        name_token, *rest = tree.children
        name = self.name(name_token, "city name")
        values = self.city_clauses(rest, name, span)
        for child in rest:
            if child.data == "city_spaces":
                values["spaces"] = tuple(self.post_space(c) for c in child.children)
        cleared = self.without(rest, CITY_CLAUSE_FIELDS, values, f"city '{name}'")
        if not values and not _has_without(rest):
            self.error(
                f"`change city {name}` changes nothing: write the clauses or `{{ spaces }}` that"
                " differ, or `without CLAUSE`",
                span,
            )
        return CityChange(name, tuple(values.items()), cleared, span)

    def change_route(self, tree: lark.Tree, fallback: Span) -> RouteChange:
        span = self.span(tree, fallback)
        a_token, b_token, *rest = tree.children
        cities = (self.name(a_token, "city name"), self.name(b_token, "city name"))
        values = self.route_flags(rest, cities, span)
        for child in rest:
            if child.data in ("route_point_count", "route_point_types"):
                values["points"] = self.route_points(child)
        cleared = self.without(rest, ROUTE_FLAG_FIELDS, values, f"route {cities[0]} -- {cities[1]}")
        if not values and not _has_without(rest):
            self.error(
                f"`change route {cities[0]} -- {cities[1]}` changes nothing: write `: POINTS`,"
                " the flags that differ, or `without FLAG`",
                span,
            )
        return RouteChange(cities, tuple(values.items()), cleared, span)

    def without(
        self, children: list, words: dict[str, str], written: dict[str, object], what: str
    ) -> tuple[str, ...]:
        """The fields a `without A, B` clause clears (each a clause word of `words`)."""
        cleared: list[str] = []
        for child in children:
            if child.data != "board_without":
                continue
            for token in child.children:
                word = self.word(token, words, "clause")
                field_name = words.get(word)
                if field_name is None:
                    continue
                if field_name in written:
                    self.error(f"{what}: '{word}' is both written and cleared by `without`", token)
                elif field_name in cleared:
                    self.error(f"{what}: '{word}' is listed twice after `without`", token)
                else:
                    cleared.append(field_name)
        return tuple(cleared)

    def remove_city(self, tree: lark.Tree, fallback: Span) -> Removal:
        return Removal(
            "city", (self.name(tree.children[0], "city name"),), self.span(tree, fallback)
        )

    def remove_route(self, tree: lark.Tree, fallback: Span) -> Removal:
        names = tuple(self.name(t, "city name") for t in tree.children)
        return Removal("route", names, self.span(tree, fallback))


def _has_without(children: list) -> bool:
    return any(child.data == "board_without" for child in children)


_CITY_CLAUSES = frozenset(f"city_{clause}" for clause in CITY_CLAUSE_FIELDS)
_ROUTE_FLAGS = frozenset(f"route_{flag}" for flag in ROUTE_FLAG_FIELDS)
_EDIT_STATEMENTS = frozenset(
    {"board_change_city", "board_change_route", "board_remove_city", "board_remove_route"}
)
_EDIT_WORDS = {
    (CityChange, ""): "change city",
    (RouteChange, ""): "change route",
    (Removal, "city"): "remove city",
    (Removal, "route"): "remove route",
}


def lower_board(tree: lark.Tree, file: str) -> Board:
    """Lower one `board` tree; raise one HansaError listing every problem, each at file:line:col."""
    if tree.data != "board":
        raise ValueError(f"lower_board needs a 'board' tree, not {tree.data!r}")
    lowerer = _BoardLowerer(file)
    board = lowerer.board(tree)
    if lowerer.errors:
        raise HansaError(sorted(lowerer.errors, key=lambda d: (d.span.line, d.span.column)))
    return board
