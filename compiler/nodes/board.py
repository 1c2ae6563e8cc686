"""The board IR: frozen dataclasses, each node keeping the span of the spec text it came from.

The IR is plain data: names are strings, enumerations are lowercase strings (the words of the
reference JSON schema), and every node is JSON-serialisable through `to_json`-style helpers in the
stages that need them (export, diff). Spans are excluded from equality so two boards parsed from
differently formatted files compare equal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import NO_SPAN, Span

SHAPES = ("square", "round")
PRIVILEGES = ("white", "orange", "pink", "black")  # rising order
ABILITIES = ("keys", "actions", "privilege", "book", "bank")
POINT_TYPES = ("any", "merchant")  # house point (any tradesman), ship point (merchants only)
# Joins a route's two cities in action texts and log keys ("Stendal–Perleberg #1", the
# ROUTE_LABELS of a generated module): a city name may not hold it, so every text names one action.
ROUTE_LABEL_SEPARATOR = "\u2013"
PERMANENT_BONUSES = (
    "move_2_any_tradesmen",
    "develop_privilege",
    "post_in_green_city",
    "place_2_tradesmen_from_route",
    "place_2_tradesmen_in_wales_or_scotland",
)


@dataclass(frozen=True)
class PostSpace:
    """A trading-post (Kontor) space of a city; a city lists them left to right."""

    shape: str  # "square" (trader or merchant) | "round" (merchant only)
    privilege: str  # colour the Privilege ability must reach
    coin: int = 0  # PP printed on the space, scored by the first post placed there
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class City:
    name: str
    spaces: tuple[PostSpace, ...]
    abilities: tuple[str, ...] = ()  # () none, one ability, or a choice of several
    hanseatic: bool = True  # False: a green (non-Hanseatic) city with no printed spaces
    countries: tuple[str, ...] = ()
    permissions: tuple[str, ...] = ()  # countries the rightmost post here gives permission for
    position: tuple[float, float] | None = None  # drawing aid: fractions of the board frame
    aliases: tuple[str, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class Route:
    """A trade route; `points` lists each connection point's type from cities[0] to cities[1]."""

    cities: tuple[str, str]
    points: tuple[str, ...]  # each "any" (house) or "merchant" (ship)
    tavern: bool = False
    permanent_bonus: str | None = None
    country: str | None = None
    sea: bool | None = None  # None: derived from points; True/False: stated
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def merchant_points(self) -> int:
        return sum(1 for p in self.points if p == "merchant")

    @property
    def is_sea(self) -> bool:
        return self.sea if self.sea is not None else self.merchant_points > 0

    @property
    def key(self) -> frozenset[str]:
        return frozenset(self.cities)


@dataclass(frozen=True)
class SpecialSpace:
    points: int
    privilege: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class SpecialPrestige:
    city: str
    via: tuple[str, str]
    spaces: tuple[SpecialSpace, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class CityChange:
    """`change city NAME …` in a board that extends another: the clauses written replace the
    parent's (`values`, City field -> value; `spaces` when a `{ … }` is written), the clauses named
    after `without` are cleared (City field names)."""

    name: str
    values: tuple[tuple[str, object], ...] = ()
    cleared: tuple[str, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class RouteChange:
    """`change route A -- B …` in a board that extends another: new points and/or flags (Route
    field -> value), and the flags named after `without` cleared."""

    cities: tuple[str, str]
    values: tuple[tuple[str, object], ...] = ()
    cleared: tuple[str, ...] = ()
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class Removal:
    """`remove city NAME` (`names` one city) or `remove route A -- B` (two) in a child board."""

    what: str  # "city" | "route"
    names: tuple[str, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


BoardEdit = CityChange | RouteChange | Removal


@dataclass(frozen=True)
class Board:
    id: str
    title: str  # "The Hanseatic League"
    side: str = ""
    players: tuple[int, ...] = ()
    original_edition_players: tuple[int, ...] = ()
    east_west: tuple[str, str] | None = None
    completed_cities: int = 10
    special_prestige: SpecialPrestige | None = None
    countries: tuple[str, ...] = ()
    cities: tuple[City, ...] = ()
    routes: tuple[Route, ...] = ()
    # Free-form provenance carried for export: {"status": …, "against": …, "sources_agreeing": […]}
    verification: tuple[tuple[str, object], ...] = ()
    frame: tuple[int, int] | None = None  # pixel size of the scan the positions refer to
    frame_note: str = ""
    allow_disconnected: bool = False  # relaxes the connectivity check to a warning
    span: Span = field(default=NO_SPAN, compare=False, repr=False)
    # `board ID extends PARENT { … }` as lowered: the parent's name and the child's changes (its
    # `cities`, `routes` and stated header statements are additions and overrides). A resolved
    # board (compiler/board/extend.py) has `extends` None and no edits.
    extends: str | None = None
    edits: tuple[BoardEdit, ...] = ()
    extends_span: Span = field(default=NO_SPAN, compare=False, repr=False)
    # Where each board statement was written (("east_west", span), …), so checks point at the
    # statement.
    statement_spans: tuple[tuple[str, Span], ...] = field(default=(), compare=False, repr=False)
    # A board folded from one that extends another keeps, for its picture: the parent's id, the
    # header statements taken from the parent, and what the child added, changed or removed
    # (("added", "city:Visby"), ("changed", "route:Bremen -- Hamburg"), …). Not part of the
    # board's meaning (a diff or an export never sees them).
    derived_from: str = field(default="", compare=False, repr=False)
    inherited: tuple[str, ...] = field(default=(), compare=False, repr=False)
    own_edits: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)

    def statement_span(self, statement: str) -> Span:
        """The span of a board statement such as "east_west"; the board's own span if unknown."""
        for key, span in self.statement_spans:
            if key == statement:
                return span
        return self.span

    def city(self, name: str) -> City:
        for c in self.cities:
            if c.name == name:
                return c
        raise KeyError(name)
