"""The component catalogue of the rules language: every component kind, its parameters, their types
and defaults — one table that lowering, checks, docs and code generation all read.

A rule-set statement names a component (`bonus extra_actions(count: 3) count 2`); the catalogue says
which parameters that component takes, what type each must have, and what it is when not given.
Spec values arrive as raw values (`Word`, `Number`, `Text`, `ListValue`, `MapValue`, each with its
span); `convert` checks one against a parameter type and returns the plain IR value, or raises a
`HansaError` at the value's location naming the expected type.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import NO_SPAN, HansaError, Span, did_you_mean
from ..nodes.board import PRIVILEGES
from ..nodes.rules import ABILITY_ROLES, PIECE_KINDS
from .prelude import defined

# -------------------------------------------------------------------------------------------------
# Raw values as written in a spec, before they are checked against a parameter type.


@dataclass(frozen=True)
class Word:
    text: str
    span: Span = NO_SPAN

    def describe(self) -> str:
        return f"the word '{self.text}'"


@dataclass(frozen=True)
class Number:
    value: int
    span: Span = NO_SPAN

    def describe(self) -> str:
        return f"the number {self.value}"


@dataclass(frozen=True)
class Text:
    text: str
    span: Span = NO_SPAN

    def describe(self) -> str:
        return f"the string {self.text!r}"


@dataclass(frozen=True)
class ListValue:
    items: tuple[Word | Number | Text, ...]
    span: Span = NO_SPAN

    def describe(self) -> str:
        return f"a list of {len(self.items)} values"


@dataclass(frozen=True)
class MapEntry:
    """`key: value`; key is a word, a number, a range `lo..hi`, or an open range `lo+` (hi None)."""

    key: str | int | tuple[int, int | None]
    value: Word | Number | Text | ListValue  # a list: several atoms after the key
    span: Span = NO_SPAN


@dataclass(frozen=True)
class MapValue:
    entries: tuple[MapEntry, ...]
    span: Span = NO_SPAN

    def describe(self) -> str:
        return "a { … } map"


@dataclass(frozen=True)
class PairsValue:
    """`A -- B, C -- D`: pairs of names (the 2-player variant's soldiers between two cities)."""

    pairs: tuple[tuple[Word | Number | Text, Word | Number | Text], ...]
    span: Span = NO_SPAN

    def describe(self) -> str:
        return f"a list of {len(self.pairs)} pairs"


RawValue = Word | Number | Text | ListValue | MapValue | PairsValue

# -------------------------------------------------------------------------------------------------
# Parameter types.


def _fail(raw: RawValue, expected: str) -> HansaError:
    return HansaError(f"expected {expected}, got {raw.describe()}", raw.span)


@dataclass(frozen=True)
class ParamType:
    """A parameter type: `expected` names it in messages and docs; `convert` checks a raw value."""

    expected: str
    convert_raw: Callable[[RawValue, ParamType], object]
    choices: tuple[str, ...] = ()

    def convert(self, raw: RawValue) -> object:
        return self.convert_raw(raw, self)


def _int(raw: RawValue, t: ParamType) -> int:
    if isinstance(raw, Number):
        return raw.value
    raise _fail(raw, t.expected)


def _bool(raw: RawValue, t: ParamType) -> bool:
    if isinstance(raw, Word) and raw.text in ("yes", "no"):
        return raw.text == "yes"
    raise _fail(raw, t.expected)


def _word_in(raw: RawValue, t: ParamType) -> str:
    if isinstance(raw, Word):
        if raw.text in t.choices:
            return raw.text
        raise HansaError(
            f"unknown value '{raw.text}'; expected {t.expected}{did_you_mean(raw.text, t.choices)}",
            raw.span,
        )
    raise _fail(raw, t.expected)


def _piece_or_none(raw: RawValue, t: ParamType) -> str | None:
    value = _word_in(raw, t)
    return None if value == "none" else value


def _items(raw: RawValue) -> tuple[Word | Number | Text, ...]:
    return raw.items if isinstance(raw, ListValue) else (raw,)


def _choice_list(raw: RawValue, t: ParamType) -> tuple[str, ...]:
    if isinstance(raw, MapValue):
        raise _fail(raw, t.expected)
    item_type = ParamType(t.expected, _word_in, t.choices)
    out: list[str] = []
    for item in _items(raw):
        value = item_type.convert(item)
        if value in out:
            raise HansaError(f"'{value}' is listed twice", item.span)
        out.append(value)
    return tuple(out)


def _int_list(raw: RawValue, t: ParamType) -> tuple[int, ...]:
    if isinstance(raw, MapValue):
        raise _fail(raw, t.expected)
    return tuple(_int(item, t) for item in _items(raw))


def _track(raw: RawValue, t: ParamType) -> tuple[int | str, ...]:
    if isinstance(raw, MapValue):
        raise _fail(raw, t.expected)
    out: list[int | str] = []
    for item in _items(raw):
        if isinstance(item, Number):
            out.append(item.value)
        elif isinstance(item, Word):
            out.append(item.text)
        else:
            raise _fail(item, "a number or a word (a track value)")
    return tuple(out)


def _piece_counts(raw: RawValue, t: ParamType) -> tuple[tuple[str, int], ...]:
    if not isinstance(raw, MapValue):
        raise _fail(raw, t.expected)
    counts: dict[str, int] = {}
    for entry in raw.entries:
        if not isinstance(entry.key, str) or entry.key not in PIECE_KINDS:
            raise HansaError(
                f"unknown piece kind {entry.key!r}; expected one of {', '.join(PIECE_KINDS)}"
                + (did_you_mean(entry.key, PIECE_KINDS) if isinstance(entry.key, str) else ""),
                entry.span,
            )
        if entry.key in counts:
            raise HansaError(f"'{entry.key}' is given twice", entry.span)
        counts[entry.key] = _int(entry.value, ParamType("a whole number", _int))
    missing = [k for k in PIECE_KINDS if k not in counts]
    if missing:
        raise HansaError(f"missing piece kind {', '.join(missing)} in {t.expected}", raw.span)
    return tuple((k, counts[k]) for k in PIECE_KINDS)


def table_problems(rows: tuple[tuple[int, int], ...]) -> list[tuple[int, str]]:
    """Problems of a final-scoring table ((min count, PP), …): (row index, message) pairs.

    Rows must start at 1 or more and have strictly rising thresholds; shared with the checks, which
    re-check tables of rule sets built in code.
    """
    problems: list[tuple[int, str]] = []
    if not rows:
        problems.append((0, "a table needs at least one row"))
    previous = 0
    for index, (low, _pp) in enumerate(rows):
        if low <= previous:
            problems.append((index, f"thresholds must rise: {low} does not follow {previous}"))
        elif low > MAX_TABLE_COUNT:  # the table is folded into one tuple entry per count
            problems.append((index, f"a table row starts at most at {MAX_TABLE_COUNT:,}"))
        previous = max(previous, low)
    return problems


# Counts a table distinguishes (bonus markers, posts, PP: far fewer in any game); the code
# generator folds a table into a tuple of that many entries.
MAX_TABLE_COUNT = 1_000


def _table(raw: RawValue, t: ParamType) -> tuple[tuple[int, int], ...]:
    """`{ 1: 1, 2..3: 3, 10+: 21 }` → ((1, 1), (2, 3), (10, 21)); rows join up, the last is open."""
    if not isinstance(raw, MapValue) or not raw.entries:
        raise _fail(raw, t.expected)
    rows: list[tuple[int, int]] = []
    expected_low: int | None = None
    last = len(raw.entries) - 1
    for index, entry in enumerate(raw.entries):
        key = entry.key
        if isinstance(key, str):
            raise HansaError(f"a table row starts with a count, not '{key}'", entry.span)
        low, high = (key, key) if isinstance(key, int) else key
        if low < 1:
            raise HansaError("table counts start at 1 (0 always scores 0)", entry.span)
        if high is not None and high < low:
            raise HansaError(f"empty range {low}..{high}", entry.span)
        if expected_low is not None and low != expected_low:
            raise HansaError(
                f"table rows must join up: this row starts at {low}, expected {expected_low}",
                entry.span,
            )
        if high is None and index != last:
            raise HansaError(f"only the last row may be open-ended ({low}+)", entry.span)
        if high is not None and index == last:
            raise HansaError(
                f"the last row must be open-ended ({low}+): it applies to every larger count",
                entry.span,
            )
        pp = _int(entry.value, ParamType("a whole number of PP", _int))
        rows.append((low, pp))
        expected_low = None if high is None else high + 1
    for index, message in table_problems(tuple(rows)):
        raise HansaError(message, raw.entries[index].span)
    return tuple(rows)


def _cards(raw: RawValue, t: ParamType) -> tuple[tuple[str, ...], ...]:
    """`{ 1: Osnabrück Stendal Paderborn, 2: … }` → the cards' city names (numbered 1, 2, …).

    City names are checked against the board when a game is built (compiler/model/scoring.py)."""
    if not isinstance(raw, MapValue) or not raw.entries:
        raise _fail(raw, t.expected)
    cards: list[tuple[str, ...]] = []
    for index, entry in enumerate(raw.entries, start=1):
        if entry.key != index:
            raise HansaError(f"cards are numbered 1, 2, … in order: expected {index}", entry.span)
        names = []
        for item in _items(entry.value):
            if isinstance(item, Number):
                raise _fail(item, "a city name")
            name = item.text
            if name in names:
                raise HansaError(f"city {name!r} is listed twice on card {index}", item.span)
            names.append(name)
        cards.append(tuple(names))
    return tuple(cards)


def _threshold(raw: RawValue, t: ParamType) -> int | None:
    if isinstance(raw, Number):
        return raw.value
    if isinstance(raw, Word) and raw.text == "board":
        return None
    raise _fail(raw, t.expected)


def _ability_or_any(raw: RawValue, t: ParamType) -> str:
    if isinstance(raw, Word):
        return raw.text  # existence is checked against the rule set's abilities
    raise _fail(raw, t.expected)


def _city_pairs(raw: RawValue, t: ParamType) -> tuple[tuple[str, str], ...]:
    """City names are checked against the game's board later (rules know no board)."""
    if isinstance(raw, PairsValue):
        out = []
        for a, b in raw.pairs:
            if isinstance(a, Number) or isinstance(b, Number):
                raise _fail(a if isinstance(a, Number) else b, "a city name")
            out.append((a.text, b.text))
        return tuple(out)
    raise _fail(raw, t.expected)


def choice(*choices: str) -> ParamType:
    return ParamType("one of " + ", ".join(choices), _word_in, choices)


def choice_list(*choices: str) -> ParamType:
    return ParamType("a comma list of " + ", ".join(choices), _choice_list, choices)


INT = ParamType("a whole number", _int)
BOOL = ParamType("yes or no", _bool)
PIECE = choice(*PIECE_KINDS)
PIECE_OR_NONE = ParamType("one of trader, merchant, none", _piece_or_none, (*PIECE_KINDS, "none"))
PIECE_COUNTS = ParamType("a map { trader: N, merchant: N }", _piece_counts)
INT_LIST = ParamType("a comma list of whole numbers", _int_list)
TRACK = ParamType("a comma list of track values (numbers or words)", _track)
TABLE = ParamType("a table { N: PP, N..M: PP, N+: PP }", _table)
THRESHOLD = ParamType("a whole number or 'board'", _threshold)
ABILITY_OR_ANY = ParamType("an ability name or 'any'", _ability_or_any)
CITY_PAIRS = ParamType("a comma list of city pairs A -- B", _city_pairs)
CARDS = ParamType("cards { 1: CITY CITY CITY, 2: … }", _cards)


# -------------------------------------------------------------------------------------------------
# Components.


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()


@dataclass(frozen=True)
class Param:
    name: str
    type: ParamType
    default: object = REQUIRED
    doc: str = ""

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


# When an end trigger ends the game (`end when … after turn` / `after round`;
# docs/rules-language.md, "End timing"): at once (after the action), after the current turn, or
# after the current round (the turn of the last seat, the player before the start player).
END_TIMINGS = ("now", "turn", "round")
TIMING = Param(
    "timing",
    choice(*END_TIMINGS),
    "now",
    "when it ends the game: now, or written `after turn` / `after round` after the trigger",
)


@dataclass(frozen=True)
class Component:
    """One component kind of one section; `params` in the order docs list them."""

    section: str
    kind: str
    params: tuple[Param, ...] = ()
    doc: str = ""
    # ability tracks only: what the values are ("numbers", "colours", "numbers_or_all") and the role
    track_values: str = ""
    default_role: str = ""
    # options only: a Decision where the rule books are silent, which a root edition must declare
    # (False: an option only house rules need, its default taken when nobody writes it)
    decision: bool = True

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)


# Sections in the order a rule set lists them; the first three are single statements.
SINGLE_SECTIONS = ("pieces", "setup", "markers", "pawn")
KEYED_SECTIONS = (
    "ability",
    "action",
    "bonus",
    "end",
    "score",
    "option",
    "board_rules",
    "permanent_marker",
)
SECTIONS = SINGLE_SECTIONS + KEYED_SECTIONS


def _ability(name: str, role: str, values: str, doc: str) -> Component:
    return Component(
        "ability",
        name,
        (
            Param("values", TRACK, doc="track values left to right; the first is the start value"),
            Param("covered_by", PIECE, doc="the piece kind covering the track at setup"),
            Param("full_pp", INT, doc="PP scored (category full_abilities) when fully developed"),
            Param("role", choice(*ABILITY_ROLES), role, doc="which rule the value drives"),
        ),
        doc,
        track_values=values,
        default_role=role,
    )


_BOOL_STEP = "whether the creator may choose this step"

COMPONENTS: tuple[Component, ...] = (
    Component(
        "pieces",
        "pieces",
        (
            Param("traders", INT, doc="traders per player"),
            Param("merchants", INT, doc="merchants per player"),
            Param("score_marker", PIECE_OR_NONE, "trader", doc="piece that marks the score"),
        ),
        "Pieces per player; the score marker never enters play.",
    ),
    Component(
        "setup",
        "setup",
        (
            Param("personal_traders", INT, doc="traders in every personal supply"),
            Param("per_seat_traders", INT, doc="more traders per seat number (1-based)"),
            Param("personal_merchants", INT, doc="merchants in every personal supply"),
        ),
        "Personal supply at setup; everything else not on a track goes to the general stock.",
    ),
    Component(
        "markers",
        "markers",
        (
            Param("usable_in_taking_action", BOOL, False, "may a marker be used in its action"),
            Param(
                "placement",
                choice_list(
                    "no_marker",
                    "no_pieces",
                    "vacant_space_in_a_city",
                    "no_permanent_marker",
                    "not_in_permission_country",
                ),
                ("no_marker", "no_pieces", "vacant_space_in_a_city"),
                "conditions a route must meet to receive a drawn marker at the end of a turn",
            ),
        ),
        "When taken bonus markers may be used and where drawn ones may be placed.",
    ),
    _ability("keys", "network_factor", "numbers", "Clavis Urbis: multiplies the network score."),
    _ability("actions", "actions_per_turn", "numbers", "Actiones: actions per turn."),
    _ability("privilege", "post_privilege", "colours", "Privilegium: the post colours allowed."),
    _ability("book", "move_count", "numbers", "Liber Sophiae: pieces per Move action."),
    _ability("bank", "income", "numbers_or_all", "Bursa: pieces per Income action."),
    Component("action", "income", (), "A: pieces from general stock to personal supply."),
    Component("action", "place", (), "B: one piece from personal supply onto a free point."),
    Component(
        "action",
        "displace",
        (
            Param(
                "cost", PIECE_COUNTS, (("trader", 1), ("merchant", 2)), "paid per displaced kind"
            ),
            Param(
                "compensation",
                PIECE_COUNTS,
                (("trader", 1), ("merchant", 2)),
                "extra pieces the displaced owner may place, per displaced kind",
            ),
            Param(
                "fallback",
                choice_list("stock", "supply", "board"),
                ("stock", "supply", "board"),
                "where the displaced owner takes extra pieces from, in order",
            ),
            Param("extras_declinable", BOOL, True, "may the displaced owner decline extras"),
        ),
        "C: replace an opponent's piece on a route; its owner places it nearby.",
    ),
    Component(
        "action",
        "move",
        (Param("swaps", BOOL, True, "just vacated points count as free"),),
        "D: move up to the move_count ability's value of own pieces.",
    ),
    Component(
        "action",
        "create_route",
        (
            Param("control_pp", INT, 1, "PP for each end city's controller"),
            Param(
                "control_tie",
                choice("rightmost_post", "nobody", "shared"),
                "rightmost_post",
                "tied control",
            ),
            Param("coin_pp", BOOL, True, "a post on a coin space scores the coin"),
            Param("establish_trading_post", BOOL, True, _BOOL_STEP),
            Param("develop_ability", BOOL, True, _BOOL_STEP),
            Param("special_prestige", BOOL, True, _BOOL_STEP),
            Param("east_west_awards", INT_LIST, (7, 4, 2), "PP for the 1st, 2nd, … East-West link"),
            Param(
                "space_shapes",
                choice("strict", "merchant_anywhere"),
                "strict",
                "3a: square spaces take traders, round merchants; merchant_anywhere: squares too",
            ),
        ),
        "E: create a completed route: prestige, bonus marker, then one step-3 choice.",
    ),
    Component(
        "bonus",
        "additional_trading_post",
        (),
        "Establish a post left of all posts in an end city (its leftmost space taken).",
    ),
    Component(
        "bonus",
        "exchange_trading_posts",
        (Param("must_own_one", BOOL, True, "must the user own one of the two posts"),),
        "Swap two posts in adjacent spaces of one city.",
    ),
    Component(
        "bonus",
        "develop_ability",
        (Param("ability", ABILITY_OR_ANY, "any", "which ability may be developed"),),
        "Develop one ability.",
    ),
    Component(
        "bonus",
        "extra_actions",
        (Param("count", INT, doc="extra actions this turn"),),
        "Extra actions this turn.",
    ),
    Component(
        "bonus",
        "move_tradesmen",
        (
            Param("count", INT, doc="up to this many pieces"),
            Param("whose", choice("opponents", "any"), "opponents", "whose pieces may move"),
        ),
        "Move other players' pieces on routes to free points (no displacing).",
    ),
    Component(
        "bonus",
        "remove_tradesmen",
        (
            Param("count", INT, doc="up to this many pieces"),
            Param("whose", choice("opponents", "any"), "opponents", "whose pieces may be removed"),
            Param("to", choice("personal", "stock"), "personal", "the owners' supply or stock"),
        ),
        "Take pieces off routes and return them to their owners.",
    ),
    Component(
        "end",
        "track_pp",
        (Param("threshold", INT, doc="PP on the track that ends the game"), TIMING),
        "A player's track PP reach the threshold: checked after every action (the game ends when"
        " it finishes); in the editions PP are gained only in Create Route.",
    ),
    Component(
        "end",
        "marker_supply_empty",
        (TIMING,),
        "A replacement marker must come from an empty supply.",
    ),
    Component(
        "end",
        "completed_cities",
        (
            Param("threshold", THRESHOLD, None, "completed cities ('board': the board's number)"),
            TIMING,
        ),
        "This many cities are completed.",
    ),
    Component("score", "track", (), "PP on the track."),
    Component("score", "full_abilities", (), "Each fully developed ability's full_pp."),
    Component(
        "score",
        "bonus_markers",
        (Param("table", TABLE, doc="PP by number of markers collected"),),
        "Collected bonus markers, by table.",
    ),
    Component("score", "special_prestige", (), "Points of the special-prestige spaces held."),
    Component(
        "score",
        "controlled_cities",
        (Param("pp", INT, 2, "PP per controlled city"),),
        "PP per controlled city.",
    ),
    Component("score", "network", (), "Posts in the best connected group × the network_factor."),
    Component(
        "score",
        "country_majority",
        (Param("pp", INT_LIST, (7, 4, 2), "PP for the 1st, 2nd, … place in each country"),),
        "Per country needing a permission: places by controlled cities there (ties: posts there,"
        " then shared PP rounded down); players controlling none take leftover places by posts.",
    ),
    Component(
        "score",
        "missions",
        (
            Param("cards", CARDS, doc="the mission cards, each naming cities of the board"),
            Param("post_pp", INT, 1, "PP per city of the card where the player holds a post"),
            Param("all_pp", INT, 5, "more PP when the player controls every city of the card"),
        ),
        "Mission cards: one dealt secretly to each player at setup, scored at the end.",
    ),
    Component(
        "option",
        "displaced_extra_kind",
        (Param("value", choice("owner_chooses", "traders_only"), "owner_chooses"),),
        "Who picks the kind of each extra piece a displaced owner takes (docs/rules.md §4 C).",
    ),
    Component(
        "option",
        "displaced_piece_without_point",
        (Param("value", choice("personal_supply", "general_stock"), "personal_supply"),),
        "Where a displaced piece goes when no point can take it (docs/rules.md §4 C).",
    ),
    Component(
        "option",
        "unplaceable_marker",
        (Param("value", choice("out_of_game", "back_to_supply"), "out_of_game"),),
        "A drawn marker with no legal route at the end of the turn (docs/rules.md §4).",
    ),
    Component(
        "option",
        "returned_marker",
        (Param("value", choice("shuffled", "bottom", "top"), "shuffled"),),
        "Where a marker going back into the face-down supply goes (the others of `draw N keep"
        " 1`, an unplaceable one with unplaceable_marker = back_to_supply): shuffled in, at the"
        " bottom, or on top (under a display's face-up markers).",
        decision=False,
    ),
    Component(
        "option",
        "no_op_actions",
        (Param("value", choice("illegal", "legal"), "illegal"),),
        "Whether an action that changes nothing is legal (docs/rules.md §4).",
    ),
    Component(
        "option",
        "move_must_place_all",
        (Param("value", BOOL, True),),
        "Whether every piece picked up in a Move must be put back (docs/rules.md §4 D).",
    ),
)

BOARD_FEATURE_COMPONENTS: tuple[Component, ...] = (
    Component(
        "board_rules",
        "green_cities",
        (
            Param("first_post_completes", BOOL, True, "a green city's first post completes it"),
            Param(
                "additional_post",
                BOOL,
                True,
                "the Additional Trading Post marker may put a post there (left of any)",
            ),
        ),
        "Green (non-Hanseatic) cities: no printed spaces; posts only through markers.",
    ),
    Component(
        "board_rules",
        "countries",
        (
            Param(
                "displaced_to",
                choice("own_or_free", "anywhere"),
                "own_or_free",
                "routes a displaced piece may be re-placed on: its route's country or a free one",
            ),
            Param(
                "move",
                choice("own_or_free", "same_country", "anywhere"),
                "own_or_free",
                "where a Move may put a piece (a piece in a free country stays in one)",
            ),
            Param(
                "marker_move",
                choice("same_country", "own_or_free", "anywhere"),
                "same_country",
                "where a marker's move (bonus or permanent) may put a piece",
            ),
        ),
        "Countries: a country a city grants a permission for needs one; the others are free.",
    ),
    Component(
        "board_rules",
        "permissions",
        (
            Param("once_per_turn", BOOL, True, "each permission serves one action per turn"),
            Param(
                "actions",
                choice_list("place", "displace"),
                ("place", "displace"),
                "the actions that need a permission in a country that requires one",
            ),
        ),
        "Permissions: the rightmost post in a permission city grants its countries.",
    ),
    Component(
        "permanent_marker",
        "move_tradesmen",
        (
            Param("count", INT, doc="up to this many pieces"),
            Param("whose", choice("opponents", "any"), "any", "whose pieces may move"),
        ),
        "Move pieces on routes to free points (swaps allowed).",
    ),
    Component(
        "permanent_marker",
        "develop_ability",
        (Param("ability", ABILITY_OR_ANY, "any", "which ability may be developed"),),
        "Develop one ability.",
    ),
    Component(
        "permanent_marker",
        "green_city_post",
        (Param("side", choice("right", "left"), "right", "where among the posts there"),),
        "A post from the personal supply in a green city of the creator's choice.",
    ),
    Component(
        "permanent_marker",
        "place_from_route",
        (Param("count", INT, doc="up to this many of the route's pieces"),),
        "Put the created route's pieces on free points instead of returning them to the stock.",
    ),
    Component(
        "permanent_marker",
        "place_in_countries",
        (
            Param("count", INT, doc="up to this many pieces"),
            Param(
                "from",
                choice_list("stock", "supply", "board"),
                ("stock", "supply", "board"),
                "where the pieces come from, in order",
            ),
        ),
        "Put own pieces on free points in the countries that need a permission.",
    ),
)
COMPONENTS = COMPONENTS + BOARD_FEATURE_COMPONENTS
COMPONENTS += (
    Component(
        "pawn",
        "pawn",
        (
            Param("soldiers", CITY_PAIRS, (), "border segments between two cities of the board"),
            Param("free_borders", INT, 2, "borders crossed by the free move"),
        ),
        "The 2-player variant's neutral pawn: Place, Displace and Create Route only on routes"
        " bordering its region (regions: the board's faces cut by routes and soldiers).",
    ),
)

CATALOGUE: dict[tuple[str, str], Component] = {(c.section, c.kind): c for c in COMPONENTS}

# Marker-level parameters of every `bonus` statement (after the effect's parenthesised parameters).
MARKER_PARAMS: tuple[Param, ...] = (
    Param("count", INT, 1, "how many markers of this type exist"),
    Param("start", INT, 0, "how many of them lie face up on the tavern routes at setup"),
)

TIEBREAK_RULES = ("fewest", "most", "shared")
TIEBREAK_TARGETS = ("ability", "score")


def kinds(section: str) -> tuple[str, ...]:
    """Every component kind of a section, in catalogue order."""
    return tuple(c.kind for c in COMPONENTS if c.section == section)


def component(section: str, kind: str, span: Span | None = None) -> Component:
    """The catalogue entry, or an error at `span` naming the closest known kind."""
    found = CATALOGUE.get((section, kind))
    if found is None:
        known = kinds(section)
        raise HansaError(
            f"unknown {_SECTION_WORDS.get(section, section)} '{kind}'{did_you_mean(kind, known)};"
            f" known: {', '.join(known)}",
            span,
        )
    return found


_SECTION_WORDS = {
    "ability": "ability",
    "action": "action",
    "bonus": "bonus marker kind",
    "end": "end trigger",
    "score": "scoring kind",
    "option": "option",
    "board_rules": "board rule",
    "permanent_marker": "permanent marker kind",
}

PRIVILEGE_COLOURS = PRIVILEGES


# -------------------------------------------------------------------------------------------------
# The catalogue as documentation: docs/rules-language.md embeds this table, a test keeps it current.


def spec_text(value: object) -> str:
    """A parameter value as it is written in a spec (yes/no, comma lists, { kind: N } maps)."""
    if value is REQUIRED:
        return "required"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "board"
    if value == ():
        return "none"
    if isinstance(value, tuple):
        if value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
            return "{ " + ", ".join(f"{k}: {v}" for k, v in value) + " }"
        return ", ".join(str(v) for v in value)
    return str(value)


def catalogue_markdown() -> str:
    """Every component with its parameters (type, default) as one Markdown table; a kind the
    prelude defines in words shows its definition."""

    rows = [
        "| statement | kind | parameters: type (default) | meaning |",
        "|---|---|---|---|",
    ]
    for comp in COMPONENTS:
        described = "<br>".join(
            f"`{p.name}`: {p.type.expected} ({spec_text(p.default)})" for p in comp.params
        )
        if comp.section == "option":
            param = comp.params[0]
            described = f"{param.type.expected} (default {spec_text(param.default)})"
        meaning = comp.doc
        if comp.section == "ability":
            values = comp.track_values.replace("_", " ")
            meaning += f" Default role `{comp.default_role}`; values: {values}."
        definition = defined(comp.section, comp.kind) if comp.section in ("score", "end") else None
        if definition is not None:
            meaning += f" Prelude: `{definition.source}`."
        word = "end when" if comp.section == "end" else comp.section
        rows.append(f"| `{word}` | `{comp.kind}` | {described or '—'} | {meaning} |")
    return "\n".join(rows) + "\n"
