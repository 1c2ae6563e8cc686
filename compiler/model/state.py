"""The fields of a game's state, declared once with the bounds the spec folds into them.

Each field holds values of one kind (a piece code, a marker type, a count of pieces, PP, …), and
each kind's bounds are folded here from the game's tables and the language's limits
(`sizes.py`): a player count, the pieces a player owns, the markers of a type, the levels of a
track, the saturation of the track and the actions left. A target sizes its storage from these
bounds (the native target's C type of each kind is the narrowest that holds them, `c_type`), so
whatever `hansa check` accepts fits every target by construction; a value outside its kind's
bounds is refused where a state enters a target (the native loader), never cut down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..nodes.expr import Num
from .sizes import BASE_STACK, MAX_ACTIONS_LEFT, MAX_PARAM, MAX_PP, MAX_TURNS

if TYPE_CHECKING:
    from .fold import Fold

MAX_PLAYERS = 5  # the most players a game of the language has (checked with the game)

# The C integer types, narrowest first: (name, lowest, highest value it holds)
C_TYPES = (
    ("int8_t", -(2**7), 2**7 - 1),
    ("int16_t", -(2**15), 2**15 - 1),
    ("int32_t", -(2**31), 2**31 - 1),
    ("int64_t", -(2**63), 2**63 - 1),
)

# The fields of the state, in storage order: (name, kind, dimensions, the component that adds
# it: "" in every game, what it holds). A dimension is a size the target defines (N_POINTS, MAXP,
# …, or MAX_HELD/MAX_EXTRA/MAX_MARKERS/MAX_STACK of `fold_state_layout`).
STATE_FIELDS: tuple[tuple[str, str, tuple[str, ...], str, str], ...] = (
    ("num_players", "players", (), "", "the number of players"),
    ("player", "player", (), "", "whose turn it is"),
    ("ending", "flag", (), "", "an end trigger fired: the game ends after this action"),
    ("terminal", "flag", (), "", "the game is over"),
    ("actions_left", "actions", (), "", "actions left this turn (saturating)"),
    ("completed", "cities", (), "", "completed cities"),
    ("pt", "piece", ("N_POINTS",), "", "the piece on each point (player * 2 + kind, -1 none)"),
    ("mask", "mask", ("N_ROUTES",), "", "each route's occupied points, as bits"),
    ("full_owner", "player", ("N_ROUTES",), "", "who fills each route alone (-1 nobody)"),
    ("post", "piece", ("N_SPACES",), "", "the piece on each space of a city"),
    ("filled", "spaces", ("N_CITIES",), "", "spaces filled in each city"),
    ("nextra", "extra", ("N_CITIES",), "", "posts beside each city's spaces"),
    ("extra", "piece", ("N_CITIES", "MAX_EXTRA"), "", "the posts beside the spaces"),
    ("special", "piece", ("N_SPECIAL1",), "", "the merchant that took each special prestige point"),
    ("rmark", "marker", ("N_ROUTES",), "", "the bonus marker on each route (-1 none)"),
    ("supply", "pieces", ("2 * MAXP",), "", "traders and merchants in each personal supply"),
    ("stock", "pieces", ("2 * MAXP",), "", "… in each player's general stock"),
    ("onboard", "pieces", ("2 * MAXP",), "", "… on the routes"),
    ("level", "level", ("NA * MAXP",), "", "each player's level on each ability"),
    ("track", "pp", ("MAXP",), "", "PP on the track (saturating)"),
    ("unused", "marker_count", ("MAXP", "N_MARKER_TYPES"), "", "unused markers held, by type"),
    ("used", "marker_count", ("MAXP", "N_MARKER_TYPES"), "", "used markers, by type"),
    ("out", "marker_count", ("N_MARKER_TYPES",), "", "markers out of the game, by type"),
    ("nfresh", "marker_count", (), "", "markers drawn this turn"),
    ("nplate", "marker_count", (), "", "markers face up on the plate"),
    ("nmsupply", "marker_count", (), "", "markers left face down"),
    ("new_", "flag", (), "", "a marker was drawn this turn"),
    ("fresh", "marker", ("MAX_MARKERS",), "", "the markers drawn this turn"),
    ("plate", "marker", ("MAX_MARKERS",), "", "the markers face up"),
    ("msupply", "marker", ("MAX_MARKERS",), "", "the face-down supply, in order"),
    ("ew", "player", ("MAXP",), "", "the East-West connections' players, in order"),
    ("mission", "card", ("MAXP",), "", "each player's secret mission card"),
    ("pawn", "region", (), "", "the neutral pawn's region (-1 unplaced)"),
    ("pawn_turn", "flag", (), "", "0 no action yet, 1 acted, 2 free move used"),
    ("nperm_used", "cities", (), "", "permission cities used this turn"),
    ("perm_used", "city", ("MAX_PERMITS",), "", "… which, in order"),
    ("turns", "turns", (), "", "turns begun (`turn number`, saturating)"),
    ("xparam", "param", ("MAXP * N_X_PARAMS",), "x_params", "per-player parameters a rule sets"),
    ("fav_shown", "tiles", (), "favour", "the favour tiles face up (bits)"),
    ("fav_held", "tiles", ("MAXP",), "favour", "each player's favour tiles (bits)"),
    ("fav_turn", "flag", (), "favour", "0 the turn has begun, 1 acted, 2 took a tile"),
    ("end_after", "flag", (), "", "an end rule timed: 1 after this turn, 2 this round"),
    ("played", "tiles", (), "x_order", "with a turn order: the seats that began a turn this round"),
    ("nstack", "depth", (), "", "open decisions"),
)
# A decision frame: its kind, player, four numbers (a cost, a route, pieces left, …) and the
# pieces or markers it holds and picks.
FRAME_FIELDS: tuple[tuple[str, str, tuple[str, ...], str, str], ...] = (
    ("kind", "frame", (), "", "the frame kind (F_*)"),
    ("player", "player", (), "", "whose decision it is"),
    ("a", "number", (), "", "per kind: see frame_to_ints"),
    ("b", "number", (), "", ""),
    ("c", "number", (), "", ""),
    ("d", "number", (), "", ""),
    ("nheld", "held_count", (), "", "pieces or markers held"),
    ("npicked", "held_count", (), "", "points picked"),
    ("held", "marker", ("MAX_HELD",), "", "the pieces (kinds) or markers held"),
    ("picked_x", "point", ("MAX_HELD",), "", "the points picked"),
    ("picked_code", "piece", ("MAX_HELD",), "", "the pieces picked there"),
)


# Kinds whose values are bit sets: a C type of at least 32 bits (native playouts measured 8%
# faster with the routes' point masks in 32 bits than in 8, 2026-12-07)
BIT_SETS = ("mask",)


def c_type(low: int, high: int, at_least: int = 8) -> str:
    """The narrowest C integer type of at least `at_least` bits holding `low` to `high`."""
    for name, lo, hi in C_TYPES:
        if lo <= low and high <= hi and int(name[3:-2]) >= at_least:
            return name
    raise ValueError(f"no C integer type holds {low}..{high}")


def kind_type(kind: str, low: int, high: int) -> str:
    """The C type of a kind of value of the state (`state_kinds`)."""
    return c_type(low, high, 32 if kind in BIT_SETS else 8)


def _largest_draw(f: Fold, n_markers: int) -> int:
    """The most markers one `draw N keep 1` draws (a number; any other count: every marker)."""

    counts = [
        int(e.value.value) if isinstance(e.value, Num) else n_markers
        for rule in f.comp.get("expr_rules", ())
        for e in rule.effects
        if e.kind == "draw_keep"
    ]
    return min(max(counts, default=1), n_markers)


def fold_state_layout(f: Fold) -> None:
    """Components `state_sizes` (the capacities of the state's lists: MAX_HELD, MAX_EXTRA,
    MAX_MARKERS, MAX_STACK, MAX_PERMITS) and `state_kinds` (each kind of value: its lowest and
    highest value), read by the targets with STATE_FIELDS and FRAME_FIELDS."""
    k, comp = f.k, f.comp
    players = max(f.game.players)
    n_markers = sum(k["MARKER_COUNT"])
    n_types = k["N_MARKER_TYPES"]
    pieces = k["TRADERS"] + k["MERCHANTS"]
    # pieces one move decision may hold: the Move count ability's most, or a move marker's count;
    # the keep decision of `draw N keep 1` holds the drawn markers
    held = max(
        [max(k["ABILITY_VALUES"][k["AB_MOVE_COUNT"]])]
        + [entry[1] for entry in k.get("MOVE_MARKERS", ())]
    )
    if comp.get("x_draw_keep"):
        held = max(held, _largest_draw(f, n_markers))
    # posts a city holds beside its spaces: additional posts (one per marker), and in a green city
    # every piece of every player (a green city has no spaces: the permanent marker adds posts)
    extra = max(4, n_markers)
    if comp.get("green_cities"):
        extra = n_markers + players * pieces
    # one more than a game holds: a what-if post (`controller_if_post`, the greedy policy) always
    # has room beside the posts of a position
    extra += 1
    sizes = {
        "MAX_HELD": held + 1,
        "MAX_EXTRA": extra,
        "MAX_MARKERS": max(8, n_markers + 2),
        "MAX_STACK": comp.get("max_stack", BASE_STACK),
        "MAX_PERMITS": max(1, len(k.get("PERMISSION_CITIES", ()))),
    }
    route_bits = max(len(points) for points in k["ROUTE_POINTS"])
    kinds = {
        "players": (0, MAX_PLAYERS),
        "player": (-1, MAX_PLAYERS - 1),
        "flag": (0, 2),
        "actions": (0, MAX_ACTIONS_LEFT),
        "cities": (0, k["N_CITIES"]),
        "city": (-1, k["N_CITIES"] - 1),
        "piece": (-1, 2 * MAX_PLAYERS - 1),
        "mask": (0, 2**route_bits - 1),
        "spaces": (0, max(len(s) for s in k["CITY_SPACES"])),
        "extra": (0, extra),
        # a marker type, or a piece (player * 2 + kind) held in a move frame
        "marker": (-1, max(n_types, 2 * MAX_PLAYERS) - 1),
        "marker_count": (0, n_markers),
        "pieces": (0, players * pieces),  # a player's pieces; the stock takes displaced ones
        "level": (0, max(len(v) for v in k["ABILITY_VALUES"])),
        "pp": (0, MAX_PP),
        "card": (-1, len(k.get("MISSION_CARDS", ())) - 1),
        "region": (-1, k.get("N_REGIONS", 0) - 1),
        "turns": (0, MAX_TURNS),
        "param": (-1, MAX_PARAM),
        "tiles": (0, 2**32 - 1),
        "depth": (0, sizes["MAX_STACK"]),
        "frame": (0, len(k["FRAME_NAMES"]) - 1),
        # a frame's numbers: a cost, a route or space, pieces still to take (MAX_TAKE), …
        "number": (-1, 2**15 - 1),
        "held_count": (0, sizes["MAX_HELD"]),
        "point": (-1, k["N_POINTS"] - 1),
    }
    comp["state_sizes"] = sizes
    comp["state_kinds"] = kinds
