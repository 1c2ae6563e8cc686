"""The greedy policy's weights and the tables of a game it reads, for every target.

The greedy agent (play/greedy.py) plays on a Python state; on a native state the same policy runs
in C (compiler/targets/native/templates/greedy.c.j2). Both read the weights below and a game's
`GameTables`, built here once from the model's constants (the namespace of a generated module holds
the same names), so the two stay one policy: the C tables are rendered from a `GameTables`, and
the weights are written into the C source with the digits Python reads (`repr`). Nothing here is a
rule: the tables are the board's and the layout's, and the weights a beginner's taste.
"""

from __future__ import annotations

# Weights of the heuristic (PP-like units). A beginner's taste, tuned so that games end after a few
# hundred decisions with winners near 30-60 PP; see docs/play.md for the measured figures.
MY_PIECE_WEIGHT = 1.3  # a piece already on a route is progress towards creating it
FREE_POINT_COST = 1.0  # each point still to fill costs about one action
DISPLACE_COST = 0.5  # on top of the point it takes: the piece paid, the compensation given
MARKER_ON_ROUTE = 2.0  # a bonus marker scores at the end and usually helps at once
NETWORK_BONUS = 1.0  # a post next to one's own posts grows the network (category F)
# The decisions a permanent marker offers (besides declining it): it always helps, so take it.
PERMANENT_KINDS = ("PERM_USE", "GREEN_POST", "ROUTE_PLACE", "COUNTRY_PLACE", "COUNTRY_LIFT")
PERMISSION_VALUE = 2.0  # the rightmost post in a city granting a permission
PERMANENT_ROUTE_VALUE = 1.5  # creating a route whose permanent marker is then used
MISSION_POST_BONUS = 2.0  # the first post in a city of my mission card scores 1 PP at the end
MISSION_CONTROL_BONUS = 2.0  # controlling all three of its cities adds 5 PP
# The action kinds of a turn decision (the others belong to decisions inside an action).
TURN_KINDS = (
    "END_TURN",
    "INCOME",
    "PLACE",
    "DISPLACE",
    "MOVE",
    "CREATE",
    "USE_MARKER",
    "PAWN",
    "PAWN_PAY",
    "FAVOUR",
)
KEYS_PER_POST = 0.8  # developing Keys adds about this much per post held
PRIVILEGE_VALUE = 4.5  # Privilege while some city's next space needs more than mine
LOW_PIECES = 3  # fewer free pieces than this (supply, stock, the route's returning ones) ...
LOW_PIECES_POST_COST = 8.0  # ... make a post cost this much: developing frees a piece instead
# Emperor's Favour tiles (games whose modules have FAVOUR/FLIP actions; no tile is named here).
ACTION_WORTH = 1.0  # an action of the turn given up for a tile
TILE_IN_PLAY_WORTH = 8.0  # a tile that changes play, not the score now: shrinks as the game goes
TILE_SCORE_GROWTH = 0.5  # a tile's score gain now grows by this share over the rest of the game
# What an unused marker is worth keeping before its use was tried (flipped, it scores the same but
# can no longer be used); once tried, what its use brought.
MARKER_KEEP_DEFAULT = 1.0
MARKER_KEEP_SHARE = 0.5  # a held marker may never find the use it was tried with
# Trying a use on a clone (markers, step-3 choices): what each difference is worth.
PIECE_WORTH = 0.5  # a piece more in the personal supply
OPEN_PIECE_WORTH = 0.7  # a piece of mine on a route no opponent blocks
USE_THRESHOLD = 3.0  # a use must bring this much at the start; nothing once the game nears its end
USE_DECISIONS = 40  # the decisions a tried use may ask for before the try stops
FRUITLESS_LIMIT = (
    2  # a route created this often for nothing (no post, no ability) is not built again
)
LOOKAHEAD_OPTIONS = 8  # step-3 choices whose score difference is read (best by the heuristic first)
SCORE_LOOKAHEAD = 0.5  # weight of that difference next to the heuristic (which counts some of it)


class GameTables:
    """The parts of a generated module's tables the greedy agent reads, resolved once per game."""

    def __init__(self, ns: dict) -> None:
        self.num_actions: int = ns["NUM_ACTIONS"]
        self.base: dict[str, int] = {}
        self.ranges: tuple[tuple[str, int, int], ...] = tuple(ns["ACTION_RANGES"])
        self.turn_ranges = tuple(r for r in self.ranges if r[0] in TURN_KINDS)
        self.kind_of: list[str] = [""] * self.num_actions
        for kind, base, size in self.ranges:
            self.base[kind] = base
            for a in range(base, base + size):
                self.kind_of[a] = kind
        self.merchants_owned: int = ns["MERCHANTS"]
        self.route_points: tuple = ns["ROUTE_POINTS"]
        self.route_cities: tuple = ns["ROUTE_CITIES"]
        self.route_sizes: tuple[int, ...] = tuple(len(p) for p in self.route_points)
        self.point_route: tuple = ns["POINT_ROUTE"]
        self.merchant_only: tuple = ns["POINT_MERCHANT_ONLY"]
        self.city_spaces: tuple = ns["CITY_SPACES"]
        self.city_routes: tuple = ns["CITY_ROUTES"]
        self.city_neighbors: tuple = ns["CITY_NEIGHBORS"]
        self.space_priv: tuple = ns["SPACE_PRIV"]
        self.space_city: tuple = ns["SPACE_CITY"]
        self.space_round: tuple = ns["SPACE_ROUND"]
        # space_shapes merchant_anywhere: a merchant may take a square space (strict: round only)
        self.merchant_any_space: bool = bool(ns.get("MERCHANT_ANY_SPACE", False))
        self.space_coin: tuple = ns["SPACE_COIN"]
        self.city_abilities: tuple = ns["CITY_ABILITIES"]
        self.ability_values: tuple = ns["ABILITY_VALUES"]
        self.ability_max: tuple = ns["ABILITY_MAX"]
        self.ability_full_pp: tuple = ns["ABILITY_FULL_PP"]
        self.n_abilities: int = len(self.ability_values)
        self.n_routes: int = ns["N_ROUTES"]
        self.n_cities: int = ns["N_CITIES"]
        self.special_route: int = ns.get("SPECIAL_ROUTE", -1)
        self.special_points: tuple = ns.get("SPECIAL_POINTS", ())
        self.displace_cost: tuple = ns["DISPLACE_COST"]
        self.end_track_pp: int = ns.get("END_TRACK_PP", 0)  # 0: no such end trigger
        self.end_completed: int = ns.get("END_COMPLETED_CITIES", 0)
        self.role = {
            "network": ns["AB_NETWORK_FACTOR"],
            "actions": ns["AB_ACTIONS_PER_TURN"],
            "privilege": ns["AB_POST_PRIVILEGE"],
            "move": ns["AB_MOVE_COUNT"],
            "income": ns["AB_INCOME"],
        }
        self.n_marker_types: int = ns["N_MARKER_TYPES"]
        # The face-down supply at setup: every marker but the start ones (for the game's progress).
        self.marker_supply_start: int = sum(ns["MARKER_COUNT"]) - sum(ns["MARKER_START"])
        # Board features (absent on boards without them).
        self.permission_cities = frozenset(c for c, _ in ns.get("PERMISSION_CITIES", ()))
        self.permanent_routes = frozenset(
            r for r, m in enumerate(ns.get("ROUTE_PERMANENT", ())) if m >= 0
        )
        self.route_country: tuple = ns.get("ROUTE_COUNTRY", ())
        self.route_permit: tuple = ns.get("ROUTE_PERMIT_BIT", ())
        # The 2-player variant's neutral pawn (empty in games without it).
        self.region_routes: tuple = ns.get("REGION_ROUTES", ())
        # The hooks the game's rules in words act in (`after_income`, …; its RULE_SOURCES): a
        # choice a hook reads is also weighed by what it does to the score.
        self.rule_hooks = frozenset(source[0] for source in ns.get("RULE_SOURCES", ()))
        # Emperor's Favour: the marker-type pair of each FLIP action (empty without tiles).
        self.flip_pairs: tuple = ns.get("FLIP_PAIRS", ())
        # The decision frames whose first number is a route (`decision_route`), and the move frame
        # (`held_pieces`): the C policy reads the frames themselves.
        frames = ("F_ROUTE", "F_DISPLACED", "F_PERMANENT")
        self.route_frames = tuple(ns[f] for f in frames if f in ns)
        self.move_frame: int = ns["F_MOVE"]
        # Mission cards by the cities on them: cards with the same cities are one card to a
        # player's values (the Python policy keys its cache by the cities).
        cards = tuple(tuple(card) for card in ns.get("MISSION_CARDS", ()))
        self.mission_cards: tuple = cards
        self.mission_same: tuple[int, ...] = tuple(cards.index(card) for card in cards)

    def can_move_between(self, origin: int, target: int) -> bool:
        """Whether an own Move may take a piece from route `origin` to route `target` (countries:
        into the piece's own country or a free one)."""
        if not self.route_country:
            return True
        same = self.route_country[origin] == self.route_country[target]
        return same or not self.route_permit[target]


# The weights the C policy is rendered with (each a `#define G_<NAME>`), in one place so that no
# weight can be missed there.
WEIGHT_NAMES = (
    "MY_PIECE_WEIGHT",
    "FREE_POINT_COST",
    "DISPLACE_COST",
    "MARKER_ON_ROUTE",
    "NETWORK_BONUS",
    "PERMISSION_VALUE",
    "PERMANENT_ROUTE_VALUE",
    "MISSION_POST_BONUS",
    "MISSION_CONTROL_BONUS",
    "KEYS_PER_POST",
    "PRIVILEGE_VALUE",
    "LOW_PIECES",
    "LOW_PIECES_POST_COST",
    "ACTION_WORTH",
    "TILE_IN_PLAY_WORTH",
    "TILE_SCORE_GROWTH",
    "MARKER_KEEP_DEFAULT",
    "MARKER_KEEP_SHARE",
    "PIECE_WORTH",
    "OPEN_PIECE_WORTH",
    "USE_THRESHOLD",
    "USE_DECISIONS",
    "FRUITLESS_LIMIT",
    "LOOKAHEAD_OPTIONS",
    "SCORE_LOOKAHEAD",
)
