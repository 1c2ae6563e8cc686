"""A generated rule module (written by `hansa build` from the spec; do not edit by hand).

Regenerate with `hansa build`; `hansa build --check` fails when this file no longer matches
the spec.
The game, rule set and board it was built from are named in the comments below.
"""

# game: 'draw-three-hanseatic-45p'
# rules: 'draw_three'
# board: 'hanseatic_45p'
# hansa-generated: spec-sha256=2702ee4ea584e1a68b81fa52eafa072e4d25c4862337c6f110a29f4bb565ee2b
# source: 'spec/bigbox_2021.hansa'
# source: 'spec/boards/hanseatic_45p.hansa'
# source: 'spec/house/draw_three.hansa'

from hansa.runtime import graph, tables
from hansa.runtime.observation import Observations, check_observer
from hansa.runtime.state import GameInfo, TableState
from hansa.runtime.state_json import StateJson
from hansa.runtime.support import Random, bisect_left, insort

# fmt: off
# ---- constants folded from the spec (compact tables: kept out of the formatter's hands)
# this module's identity in logs (`module_hash`)
SPEC_HASH = "spec-sha256=2702ee4ea584e1a68b81fa52eafa072e4d25c4862337c6f110a29f4bb565ee2b"
TRADERS = 27
MERCHANTS = 4
SCORE_MARKER = 0
SETUP_PERSONAL = (4, 1, 1)
ABILITY_NAMES = ('keys', 'actions', 'privilege', 'book', 'bank')
ABILITY_VALUES = ((1, 2, 2, 3, 4), (2, 3, 3, 4, 4, 5), (0, 1, 2, 3), (2, 3, 4, 5), (3, 5, 7, 999))
ABILITY_KIND = (0, 0, 0, 1, 0)
ABILITY_FULL_PP = (0, 4, 4, 4, 4)
ABILITY_MAX = (4, 5, 3, 3, 3)
MAX_PP = 1000000
MAX_ACTIONS_LEFT = 1000
MAX_TURNS = 1000000000
AB_NETWORK_FACTOR = 0
AB_ACTIONS_PER_TURN = 1
AB_POST_PRIVILEGE = 2
AB_MOVE_COUNT = 3
AB_INCOME = 4
ON_TRACKS = (15, 3)
OFF_BOARD = (16, 3)
CITY_NAMES = ('Arnheim', 'Bremen', 'Brunswiek', 'Coellen', 'Dortmund', 'Duisburg', 'Emden',
              'Goslar', 'Göttingen', 'Groningen', 'Halle', 'Hamburg', 'Hannover', 'Hildesheim',
              'Kampen', 'Lübeck', 'Lüneburg', 'Magdeburg', 'Minden', 'Münster', 'Osnabrück',
              'Paderborn', 'Perleberg', 'Quedlinburg', 'Stade', 'Stendal', 'Warburg')
N_CITIES = 27
CITY_SPACES = ((0, 1, 2, 3), (4, 5), (6,), (7, 8), (9, 10, 11), (12,), (13, 14), (15, 16),
               (17, 18, 19), (20, 21), (22, 23), (24, 25, 26), (27, 28), (29, 30), (31, 32),
               (33, 34), (35, 36), (37, 38), (39, 40, 41, 42), (43, 44), (45, 46, 47), (48, 49),
               (50, 51, 52), (53, 54), (55,), (56, 57, 58, 59), (60, 61))
SPACE_ROUND = (0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0,
               0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1,
               0, 1, 0, 0, 0, 0)
SPACE_PRIV = (0, 0, 1, 2, 0, 2, 1, 0, 2, 0, 1, 2, 0, 0, 2, 0, 3, 0, 0, 2, 0, 1, 0, 1, 0, 1, 3, 0,
              2, 0, 3, 1, 3, 0, 2, 1, 3, 0, 1, 0, 1, 2, 3, 0, 1, 0, 1, 3, 0, 3, 0, 2, 3, 1, 2, 0,
              0, 0, 1, 2, 1, 2)
SPACE_COIN = (0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0,
              0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
              0, 0, 0, 0, 0, 0)
N_SPACES = 62
CITY_ABILITIES = ((), (), (), (), (), (), (), (), (1,), (3,), (0,), (), (), (), (), (4,), (), (),
                  (), (), (), (), (), (), (2,), (), ())
ROUTE_CITIES = ((0, 5), (0, 14), (0, 19), (1, 11), (1, 12), (1, 18), (1, 20), (2, 18), (2, 25),
                (3, 26), (4, 5), (4, 21), (6, 9), (6, 20), (6, 24), (7, 13), (7, 17), (7, 23),
                (8, 23), (8, 26), (10, 23), (11, 15), (11, 16), (11, 24), (12, 16), (12, 18),
                (13, 21), (14, 20), (16, 22), (17, 25), (18, 19), (18, 21), (21, 26), (22, 25))
ROUTE_POINTS = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 10, 11, 12), (13, 14, 15), (16, 17, 18),
                (19, 20, 21), (22, 23, 24, 25), (26, 27, 28, 29), (30, 31, 32, 33), (34, 35),
                (36, 37, 38), (39, 40, 41), (42, 43, 44, 45), (46, 47, 48), (49, 50, 51), (52, 53),
                (54, 55, 56, 57), (58, 59, 60), (61, 62, 63), (64, 65, 66, 67), (68, 69, 70),
                (71, 72, 73, 74), (75, 76, 77), (78, 79, 80), (81, 82, 83), (84, 85, 86), (87, 88),
                (89, 90, 91), (92, 93, 94), (95, 96, 97), (98, 99, 100), (101, 102, 103),
                (104, 105, 106))
N_ROUTES = 34
POINT_MERCHANT_ONLY = (0,) * 107
N_POINTS = 107
TAVERN_ROUTES = (6, 15, 28)
EAST_WEST = (25, 0)
BOARD_COMPLETED_CITIES = 10
SPECIAL_ROUTE = 9
SPECIAL_POINTS = (7, 8, 9, 11)
SPECIAL_PRIV = (0, 1, 2, 3)
SPECIAL_CITY = 3
DISPLACE_COST = (1, 2)
COMPENSATION = (1, 2)
FALLBACK = (0, 1, 2)
CONTROL_PP = 1
COIN_PP = True
MERCHANT_ANY_SPACE = False
EAST_WEST_AWARDS = (7, 4, 2)
MARKER_KEYS = ('additional_trading_post', 'exchange_trading_posts', 'develop_ability',
               'plus_3_actions', 'plus_4_actions', 'move_tradesmen')
MARKER_LABELS = ('additional_trading_post', 'exchange_trading_posts', 'develop_ability',
                 'plus_3_actions', 'plus_4_actions', 'move_tradesmen')
MARKER_COUNT = (4, 3, 2, 2, 2, 2)
MARKER_START = (1, 1, 0, 0, 0, 1)
N_MARKER_TYPES = 6
ADDITIONAL_MARKERS = (0,)
EXCHANGE_MARKERS = ((1, True),)
DEVELOP_MARKERS = ((2, -1),)
EXTRA_ACTION_MARKERS = ((3, 3), (4, 4))
MOVE_MARKERS = ((5, 3, 'opponents'),)
REMOVE_MARKERS = ()
END_TRACK_PP = 20
END_COMPLETED_CITIES = 10
SCORE_KEYS = ('A', 'B', 'C', 'D', 'E', 'F')
SCORE_KINDS = ('track', 'full_abilities', 'bonus_markers', 'special_prestige', 'controlled_cities',
               'network')
SECRET_SCORE_KEYS = ()
CITY_CONTROL_PP = 2
TIEBREAK = (('fewest', 'ability', 1), ('most', 'score', 5), ('shared', '', -1))
CITY_GREEN = (False,) * 27
RULE_SOURCES = (('marker_draw', '', 'spec/house/draw_three.hansa:5',
  'at marker draw: draw 3 keep 1'),)
X_TABLE_0 = (0, 1, 3, 3, 6, 6, 10, 10, 15, 15, 21)
A_END_TURN = 0
A_INCOME = 1
A_PLACE = 141
A_DISPLACE = 355
A_MOVE = 569
A_CREATE = 570
A_USE_MARKER = 604
A_PAY = 610
A_PICK = 613
A_DONE_PICKING = 720
A_DROP = 721
A_REMOVE = A_DONE_REMOVING = A_ESTABLISH = 828
A_ADDITIONAL = 882
A_DEVELOP = 936
A_SPECIAL = 941
A_NO_POST = 945
A_EXCHANGE = 946
A_PLACE_DISPLACED = 1008
A_EXTRA = 1115
A_LIFT = 1117
A_DECLINE = 1224
A_PLACE_MARKER = 1225
A_PERM_USE = A_GREEN_POST = A_ROUTE_PLACE = A_COUNTRY_PLACE = A_COUNTRY_LIFT = A_KEEP_MARKER = 1259
NUM_ACTIONS = 1265
ACTION_RANGES = (('END_TURN', 0, 1), ('INCOME', 1, 140), ('PLACE', 141, 214),
                 ('DISPLACE', 355, 214), ('MOVE', 569, 1), ('CREATE', 570, 34),
                 ('USE_MARKER', 604, 6), ('PAY', 610, 3), ('PICK', 613, 107),
                 ('DONE_PICKING', 720, 1), ('DROP', 721, 107), ('ESTABLISH', 828, 54),
                 ('ADDITIONAL', 882, 54), ('DEVELOP', 936, 5), ('SPECIAL', 941, 4),
                 ('NO_POST', 945, 1), ('EXCHANGE', 946, 62), ('PLACE_DISPLACED', 1008, 107),
                 ('EXTRA', 1115, 2), ('LIFT', 1117, 107), ('DECLINE', 1224, 1),
                 ('PLACE_MARKER', 1225, 34), ('KEEP_MARKER', 1259, 6))
F_PAY, F_DISPLACED, F_MOVE, F_REMOVE, F_ROUTE, F_EXCHANGE, F_DEVELOP, F_MARKERS = range(1, 9)
F_KEEP = 9
FRAME_NAMES = ('turn', 'pay_displacement_cost', 'displaced', 'move', 'remove', 'create_route',
               'exchange', 'develop', 'place_markers', 'keep_marker')
GAME_NAME = 'draw-three-hanseatic-45p'
PLAYER_COUNTS = (4, 5)
RULES_NAME = 'draw_three'
BOARD_ID = 'hanseatic_45p'
# the optional parts of the rules this game has, for the generic code (runtime/)
SWITCHES = ('end_marker_supply_empty', 'option_move_must_place_all', 'x_draw_keep', 'x_end')
# fmt: on

# ---- tables derived at import (runtime/tables.py: the model folds them with the same functions)
SPACE_CITY = tables.space_city(CITY_SPACES)
CITY_ROUTES, CITY_NEIGHBORS = tables.city_tables(N_CITIES, ROUTE_CITIES)
POINT_ROUTE, POINT_BIT, FULL_MASK = tables.point_tables(ROUTE_POINTS)
FREE_POINTS, FREE_HOUSE_POINTS = tables.free_points(ROUTE_POINTS, POINT_MERCHANT_ONLY)
NA = len(ABILITY_NAMES)
MARKER_TYPE_OF_KEY = {key: i for i, key in enumerate(MARKER_KEYS)}
ROUTE_CITIES_SORTED = tuple(tuple(sorted(pair)) for pair in ROUTE_CITIES)
ROUTE_ABILITIES = tuple(
    tuple(sorted(set(CITY_ABILITIES[a]) | set(CITY_ABILITIES[b]))) for a, b in ROUTE_CITIES
)
CITY_SIZE = tuple(len(spaces) for spaces in CITY_SPACES)
# PLACE_OPTIONS[route][free mask][supply kinds: 1 trader, 2 merchant, 3 both] -> sorted action ids
PLACE_OPTIONS = tables.place_options(A_PLACE, FREE_POINTS, FREE_HOUSE_POINTS)
HOUSE_POINTS = tuple(x for x in range(N_POINTS) if not POINT_MERCHANT_ONLY[x])

# Routes sharing a city with each route (displacement looks further out breadth-first, at run time,
# so the module grows linearly with the board).
ROUTE_ADJACENT = tables.route_adjacent(ROUTE_CITIES, CITY_ROUTES)
RING_ANY = tables.ids_by_mask(A_PLACE_DISPLACED, FREE_POINTS)
RING_HOUSE = tables.ids_by_mask(A_PLACE_DISPLACED, FREE_HOUSE_POINTS)
# Every (traders, merchants) split of 1..cap pieces the stock allows, as sorted action ids
_income_options = tables.income_options(A_INCOME, MERCHANTS)


# ---- the state
# Frame kinds of the decision stack: F_PAY … and FRAME_NAMES, numbered by the model (above).
WHOSE_NAMES = ("own", "opponents", "any")


class State(TableState):
    """A position of this game: TableState (runtime/state.py) holds the fields every game has."""

    # the fields of this game's optional parts (TableState, runtime/state.py, has the others)
    __slots__ = ()

    def _legal(self) -> list[int]:
        if self.terminal:
            return []
        if self.stack:
            top = self.stack[-1]
            return LEGAL[top[0]](self, top)
        return _legal_turn(self)

    def _apply(self, action: int) -> None:
        if self.stack:
            top = self.stack[-1]
            APPLY[top[0]](self, top, action)
        else:
            _apply_turn(self, action)
        _settle(self)

    def _game_info(self) -> GameInfo:
        return INFO


def new_initial_state(num_players: int, seed: int) -> State:
    """Setup: seat-dependent supplies, start markers on the taverns, the shuffled marker supply."""
    rng = Random(seed)
    s = _state_json.empty_state(num_players)
    n = num_players
    # setup: spec/bigbox_2021.hansa:8
    personal_traders, per_seat_traders, personal_merchants = SETUP_PERSONAL
    for p in range(n):
        seat = p + 1
        s.supply[2 * p] = personal_traders + per_seat_traders * seat
        s.supply[2 * p + 1] = personal_merchants
        s.stock[2 * p] = TRADERS - OFF_BOARD[0] - s.supply[2 * p]
        s.stock[2 * p + 1] = MERCHANTS - OFF_BOARD[1] - s.supply[2 * p + 1]
    start = [m for m in range(N_MARKER_TYPES) for _ in range(MARKER_START[m])]
    rng.shuffle(start)
    for route, marker in zip(TAVERN_ROUTES, start, strict=True):
        s.rmark[route] = marker
    rest = [m for m in range(N_MARKER_TYPES) for _ in range(MARKER_COUNT[m] - MARKER_START[m])]
    rng.shuffle(rest)
    s.msupply = tuple(rest)
    s.actions_left = _actions_value(s, 0)
    _settle(s)
    return s


# ---- pieces, abilities, cities
def _put(s: State, x: int, code: int) -> None:
    """Put piece `code` on the free connection point `x`, keeping the route tables current."""
    s.pt[x] = code
    r = POINT_ROUTE[x]
    mask = s.mask[r] & ~POINT_BIT[x]
    s.mask[r] = mask
    s.onboard[code] += 1
    free = s.free
    del free[bisect_left(free, x)]
    if not POINT_MERCHANT_ONLY[x]:
        free = s.free_house
        del free[bisect_left(free, x)]
    insort(s.at[code >> 1], x)
    if mask == 0:
        owner = code >> 1
        pt = s.pt
        for y in ROUTE_POINTS[r]:
            if pt[y] >> 1 != owner:
                return
        s.full_owner[r] = owner


def _take(s: State, x: int) -> int:
    """Lift the piece off connection point `x` and return its code."""
    code = s.pt[x]
    s.pt[x] = -1
    r = POINT_ROUTE[x]
    s.mask[r] |= POINT_BIT[x]
    s.full_owner[r] = -1
    s.onboard[code] -= 1
    insort(s.free, x)
    if not POINT_MERCHANT_ONLY[x]:
        insort(s.free_house, x)
    at = s.at[code >> 1]
    del at[bisect_left(at, x)]
    return code


def _ability_value(s: State, p: int, ability: int) -> int:
    return ABILITY_VALUES[ability][s.level[p * NA + ability]]


def _actions_value(s: State, p: int) -> int:
    return ABILITY_VALUES[AB_ACTIONS_PER_TURN][s.level[p * NA + AB_ACTIONS_PER_TURN]]


def _can_develop(s: State, p: int, ability: int) -> bool:
    return s.level[p * NA + ability] < ABILITY_MAX[ability]


def _develop(s: State, p: int, ability: int) -> None:
    """Move the track's leftmost piece to the personal supply; a new Actions value counts now."""
    i = p * NA + ability
    old = ABILITY_VALUES[ability][s.level[i]]
    s.level[i] += 1
    s.supply[2 * p + ABILITY_KIND[ability]] += 1
    if ability == AB_ACTIONS_PER_TURN and p == s.player:
        more = ABILITY_VALUES[ability][s.level[i]] - old
        s.actions_left = min(MAX_ACTIONS_LEFT, s.actions_left + more)


def _posts_left_to_right(s: State, c: int) -> list[int]:
    """The post codes of city `c` from lowest to highest value: additional posts, then spaces."""
    spaces = CITY_SPACES[c]
    post = s.post
    return list(s.extra[c]) + [post[spaces[i]] for i in range(s.filled[c])]


def _controller(s: State, c: int) -> int:
    """Who controls city `c`: most posts; a tie goes to the tied player with the rightmost post."""
    # One pass from left to right (scoring asks this of every city, so it is kept cheap): the
    # last player whose count reaches the most so far holds the rightmost post among those tied.
    filled = s.filled[c]
    extra = s.extra[c]
    if not extra:
        if not filled:
            return -1
        if filled == 1:
            return s.post[CITY_SPACES[c][0]] >> 1
    counts = [0] * s.num_players
    controller = -1
    most = 0
    for code in extra:
        q = code >> 1
        n = counts[q] = counts[q] + 1
        if n >= most:
            controller, most = q, n
    post = s.post
    for space in CITY_SPACES[c][:filled]:
        q = post[space] >> 1
        n = counts[q] = counts[q] + 1
        if n >= most:
            controller, most = q, n
    return controller


def _post_counts(s: State, p: int) -> list[int]:
    """Posts player `p` holds in each city."""
    counts = [0] * N_CITIES
    # Every score and network asks this, so it runs over the spaces once instead of city by
    # city, passing a vacant one (-1) over before it reads an owner.
    for space, code in enumerate(s.post):
        if code >= 0 and code >> 1 == p:
            counts[SPACE_CITY[space]] += 1
    for c, extra in enumerate(s.extra):
        if extra:
            counts[c] += [code >> 1 for code in extra].count(p)
    return counts


def _check_east_west(s: State, p: int) -> None:
    """Award the next East-West prize if player p has just linked the two East-West cities."""
    # create_route east-west awards: spec/bigbox_2021.hansa:23
    if p in s.ew or len(s.ew) >= len(EAST_WEST_AWARDS):
        return
    if graph.connected(_post_counts(s, p), CITY_NEIGHBORS, EAST_WEST[0], EAST_WEST[1]):
        s.track[p] = min(MAX_PP, s.track[p] + EAST_WEST_AWARDS[len(s.ew)])
        s.ew += (p,)


# ---- the turn decision and the settle loop
def _legal_turn(s: State) -> list[int]:
    """The active player's decision between actions: an action, a bonus marker, or the end."""
    p = s.player
    acts = [A_END_TURN]
    if s.actions_left > 0:
        _legal_income(s, p, acts)
        _legal_place(s, p, acts)
        _legal_displace(s, p, acts)
        _legal_move(s, p, acts)
        _legal_create_route(s, p, acts)
    if s.unused[p]:
        _legal_marker_uses(s, p, acts)
    return acts


def _apply_turn(s: State, action: int) -> None:
    p = s.player
    if action == A_END_TURN:
        _end_turn(s)
    elif action >= A_USE_MARKER:
        _use_marker(s, p, action - A_USE_MARKER)
    else:
        s.actions_left -= 1
        if action < A_PLACE:
            _apply_income(s, p, action)
        elif action < A_DISPLACE:
            _apply_place(s, p, action)
        elif action < A_MOVE:
            _apply_displace(s, p, action)
        elif action == A_MOVE:
            _apply_move(s, p, action)
        else:
            _apply_create_route(s, p, action)


def _end_turn(s: State) -> None:
    """End of turn: place the drawn markers, then the next player's turn begins."""
    if s.plate:
        s.stack.append((F_MARKERS, s.player))
    else:
        _next_player(s)


def _next_player(s: State) -> None:
    s.player = (s.player + 1) % s.num_players
    s.actions_left = _actions_value(s, s.player)


def _settle(s: State) -> None:
    """Resolve everything that needs no choice, until a player has a real decision or the game ends.

    A frame's SETTLE function returns True when it changed the state (popped itself, applied the
    only possibility); the loop then looks again.
    """
    stack = s.stack
    while True:
        if stack:
            top = stack[-1]
            if SETTLE[top[0]](s, top):
                continue
            return
        # Between actions: markers taken in the finished action become usable.
        if s.fresh:
            p = s.player
            s.unused[p] = tuple(sorted(s.unused[p] + s.fresh))
            s.fresh = ()
        if not s.ending and _x_end(s, s.player):
            s.ending = True
        if s.ending:
            s.terminal = True
            return
        if s.actions_left <= 0 and not _any_marker_use(s, s.player):
            _end_turn(s)
            continue
        return


def _settle_never(s: State, top: tuple) -> bool:
    return False


# ---- rules in words: helpers the compiled expressions call, then the compiled rules
def _x_markers(s: State, p: int) -> int:
    count = len(s.unused[p]) + len(s.used[p])
    if p == s.player:
        count += len(s.fresh)
    return count


def _x_largest_network(s: State, p: int) -> int:
    """Posts in p's largest connected group of cities (the network category reads it)."""
    return max(graph.group_sizes(_post_counts(s, p), CITY_NEIGHBORS), default=0)


# How often each of RULE_SOURCES applied, over every state of this process (play counts the
# difference across one decision of the game it follows; docs/play.md, "Which rules fired").
RULE_FIRED = [0] * len(RULE_SOURCES)


# fmt: off
def _x_marker_draw(s: State, p: int) -> None:
    RULE_FIRED[0] += 1
    _x_draw_keep(s, p, 3)


def _x_end(s: State, p: int) -> bool:
    return (max(s.track) >= 20) or (s.completed >= 10)


def _x_ends_met(s: State, p: int) -> list[str]:
    return [name for name, met in (('track_pp', (max(s.track) >= 20)), ('completed_cities', (s.completed >= 10)), ) if met]  # noqa: E501


def _score_A(s: State, p: int) -> int:
    return s.track[p]


def _score_B(s: State, p: int) -> int:
    return sum(ABILITY_FULL_PP[a1] for a1 in range(NA) if (s.level[p * NA + a1] >= ABILITY_MAX[a1]))


def _score_C(s: State, p: int) -> int:
    return X_TABLE_0[min(max(_x_markers(s, p), 0), 10)]


def _score_D(s: State, p: int) -> int:
    return sum(SPECIAL_POINTS[j] for j, h in enumerate(s.special) if h >= 0 and h >> 1 == p)


def _score_E(s: State, p: int) -> int:
    return sum(CITY_CONTROL_PP for c1 in range(N_CITIES) if (_controller(s, c1) == p))


def _score_F(s: State, p: int) -> int:
    return (_x_largest_network(s, p) * _ability_value(s, p, 0))


# fmt: on


# ---- the marker draw (Create Route, step 2): `at marker draw:` (rules in words)
def _marker_drawn(s: State, p: int) -> None:
    """The replacement marker is drawn: the rules of the moment act first, then the usual draw of
    one marker, unless `draw N keep 1` drew instead (it takes the markers off the supply)."""
    before = len(s.msupply)
    _x_marker_draw(s, p)
    if len(s.msupply) == before and s.msupply:
        s.plate += s.msupply[:1]
        s.msupply = s.msupply[1:]


# Frame (F_KEEP, player, drawn): the markers drawn, sorted; only that player sees them
# (runtime/observation.py). One action per marker type offered: that one stays to be placed at
# the end of the turn, the others go back into the face-down supply (`_return_marker`).
def _x_draw_keep(s: State, p: int, count: int) -> None:
    count = max(1, min(count, len(s.msupply)))
    drawn = tuple(sorted(s.msupply[:count]))
    s.msupply = s.msupply[count:]
    if len(set(drawn)) == 1:
        _keep_marker(s, drawn, drawn[0])  # all of one type: nothing to choose
    else:
        s.stack.append((F_KEEP, p, drawn))


def _keep_marker(s: State, drawn: tuple, m: int) -> None:
    """Marker `m` waits to be placed; each other drawn marker goes back into the face-down supply
    where `option returned_marker` puts it (`_return_marker`)."""
    s.plate += (m,)
    rest = list(drawn)
    rest.remove(m)
    for back in rest:
        _return_marker(s, back, (back,))


def _legal_keep(s: State, top: tuple) -> list[int]:
    return [A_KEEP_MARKER + m for m in sorted(set(top[2]))]


def _apply_keep(s: State, top: tuple, action: int) -> None:
    s.stack.pop()
    _keep_marker(s, top[2], action - A_KEEP_MARKER)


def _settle_keep(s: State, top: tuple) -> bool:
    return False


# ---- end trigger: a replacement marker must be drawn from the empty supply
# spec/bigbox_2021.hansa:38
def _end_marker_supply_empty(s: State) -> None:
    """The game ends after this action; the marker just taken is never usable."""
    s.ending = True


# ---- action: income
# spec/bigbox_2021.hansa:18
def _legal_income(s: State, p: int, acts: list[int]) -> None:
    stock = s.stock
    if stock[2 * p] or stock[2 * p + 1]:
        cap = _ability_value(s, p, AB_INCOME)
        acts += _income_options(cap, stock[2 * p], stock[2 * p + 1])


def _apply_income(s: State, p: int, action: int) -> None:
    traders, merchants = divmod(action - A_INCOME, MERCHANTS + 1)
    s.stock[2 * p] -= traders
    s.supply[2 * p] += traders
    s.stock[2 * p + 1] -= merchants
    s.supply[2 * p + 1] += merchants


# ---- action: place
# spec/bigbox_2021.hansa:19
def _legal_place(s: State, p: int, acts: list[int]) -> None:
    avail = (s.supply[2 * p] > 0) | ((s.supply[2 * p + 1] > 0) << 1)
    if avail:
        mask = s.mask
        for r in range(N_ROUTES):
            acts += PLACE_OPTIONS[r][mask[r]][avail]


def _apply_place(s: State, p: int, action: int) -> None:
    x, kind = divmod(action - A_PLACE, 2)
    s.supply[2 * p + kind] -= 1
    _put(s, x, 2 * p + kind)


# ---- action: displace
# spec/bigbox_2021.hansa:20
def _legal_displace(s: State, p: int, acts: list[int]) -> None:
    traders = s.supply[2 * p]
    merchants = s.supply[2 * p + 1]
    total = traders + merchants
    if total <= MIN_DISPLACE_COST:
        return
    pt = s.pt
    for x in _pickable(s, p, 1):
        code = pt[x]
        if total > DISPLACE_COST[code & 1]:
            if traders and not POINT_MERCHANT_ONLY[x]:
                acts.append(A_DISPLACE + 2 * x)
            if merchants:
                acts.append(A_DISPLACE + 2 * x + 1)


MIN_DISPLACE_COST = min(DISPLACE_COST)


def _apply_displace(s: State, p: int, action: int) -> None:
    """Replace an opponent's piece; its owner then places it nearby; the displacer pays the cost."""
    x, kind = divmod(action - A_DISPLACE, 2)
    victim = _take(s, x)
    s.supply[2 * p + kind] -= 1
    _put(s, x, 2 * p + kind)
    victim_kind = victim & 1
    frame = (F_DISPLACED, victim >> 1, POINT_ROUTE[x], victim_kind, COMPENSATION[victim_kind])
    s.stack.append(frame)
    cost = DISPLACE_COST[victim_kind]
    low, high = _payment_range(s, p, cost)
    if low == high:
        _pay(s, p, cost, low)
    else:
        s.stack.append((F_PAY, p, cost))


def _payment_range(s: State, p: int, cost: int) -> tuple[int, int]:
    """The fewest and most merchants the displacer can pay `cost` pieces with."""
    return max(0, cost - s.supply[2 * p]), min(cost, s.supply[2 * p + 1])


def _pay(s: State, p: int, cost: int, merchants: int) -> None:
    s.supply[2 * p] -= cost - merchants
    s.stock[2 * p] += cost - merchants
    s.supply[2 * p + 1] -= merchants
    s.stock[2 * p + 1] += merchants


def _legal_pay(s: State, top: tuple) -> list[int]:
    low, high = _payment_range(s, top[1], top[2])
    return [A_PAY + m for m in range(low, high + 1)]


def _apply_pay(s: State, top: tuple, action: int) -> None:
    s.stack.pop()
    _pay(s, top[1], top[2], action - A_PAY)


# The displaced player's frame: (F_DISPLACED, owner, route, holding kind or -1, extras left).
def _ring_points(s: State, route: int, kind: int) -> list[int]:
    """PLACE_DISPLACED ids of the free points a piece of `kind` may take on the nearest routes (by
    distance from `route`) that have one; each ring lists its routes in order, so the ids come
    sorted. Rings beyond the first are found breadth-first over ROUTE_ADJACENT."""
    mask = s.mask
    table = RING_ANY if kind else RING_HOUSE
    ring = ROUTE_ADJACENT[route]
    seen = None
    while ring:
        found = []
        for r in ring:
            found += table[r][mask[r]]
        if found:
            return found
        if seen is None:
            seen = set(ring)
            seen.add(route)
        nxt = set()
        for r in ring:
            for r2 in ROUTE_ADJACENT[r]:
                if r2 not in seen:
                    nxt.add(r2)
        seen |= nxt
        ring = sorted(nxt)
    return []


def _first_zone(s: State, p: int, sources: tuple[int, ...], kinds: int) -> int:
    """The first zone in `sources` order (0 general stock, 1 personal supply, 2 own pieces on
    routes) holding any of p's pieces (kinds 1: of p's traders), or -1."""
    zones = (s.stock, s.supply, s.onboard)
    for source in sources:
        zone = zones[source]
        if zone[2 * p] or (kinds > 1 and zone[2 * p + 1]):
            return source
    return -1


def _extra_source(s: State, q: int) -> int:
    """The zone the displaced owner's next extra piece comes from, in FALLBACK order.
    The owner then chooses the kind among the pieces of that zone."""
    return _first_zone(s, q, FALLBACK, 2)


def _legal_displaced(s: State, top: tuple) -> list[int]:
    _, q, route, holding, left = top
    if holding >= 0:
        return _ring_points(s, route, holding)
    acts = []
    lifts = []
    source = _extra_source(s, q)
    zone = (s.stock, s.supply, s.onboard)[source]
    for kind in (0, 1):
        if source < 0 or not zone[2 * q + kind]:
            continue
        room = bool(_ring_points(s, route, kind))
        if source < 2:
            if room:
                acts.append(A_EXTRA + kind)
        else:
            code = 2 * q + kind
            for x in s.at[q]:
                if s.pt[x] == code and (room or POINT_ROUTE[x] != route):
                    lifts.append(A_LIFT + x)
    if lifts:
        acts += sorted(lifts)
    acts.append(A_DECLINE)
    return acts


def _settle_displaced(s: State, top: tuple) -> bool:
    _, q, route, holding, left = top
    if holding >= 0:
        if _ring_points(s, route, holding):
            return False
        # Decision displaced_piece_without_point = personal_supply: no point anywhere takes it.
        s.supply[2 * q + holding] += 1
        s.stack[-1] = (F_DISPLACED, q, route, -1, left)
        return True
    if left <= 0 or _legal_displaced(s, top) == [A_DECLINE]:
        s.stack.pop()
        return True
    return False


def _apply_displaced(s: State, top: tuple, action: int) -> None:
    _, q, route, holding, left = top
    if action < A_EXTRA:
        _put(s, action - A_PLACE_DISPLACED, 2 * q + holding)
        s.stack[-1] = (F_DISPLACED, q, route, -1, left)
    elif action < A_EXTRA + 2:
        kind = action - A_EXTRA
        if _extra_source(s, q) == 0:
            s.stock[2 * q + kind] -= 1
        else:
            s.supply[2 * q + kind] -= 1
        s.stack[-1] = (F_DISPLACED, q, route, kind, left - 1)
    elif action < A_DECLINE:
        code = _take(s, action - A_LIFT)
        s.stack[-1] = (F_DISPLACED, q, route, code & 1, left - 1)
    else:
        s.stack.pop()


# ---- action: move (also Move-N-tradesmen)
# spec/bigbox_2021.hansa:22
# Frame: (F_MOVE, mover, whose 0 own / 1 opponents / 2 any, picks left, held codes,
#         phase 0 pick / 1 drop, picked (point, code) pairs, unchanged so far)
# Decision no_op_actions = illegal: the last drop may not restore the board as it was (unless
# nothing else is possible).
def _legal_move(s: State, p: int, acts: list[int]) -> None:
    if s.onboard[2 * p] or s.onboard[2 * p + 1]:
        acts.append(A_MOVE)


def _apply_move(s: State, p: int, action: int) -> None:
    count = _ability_value(s, p, AB_MOVE_COUNT)
    s.stack.append((F_MOVE, p, 0, count, (), 0, (), True))


def _pickable(s: State, p: int, whose: int) -> list[int]:
    """Sorted points with pieces the player may pick: own (0), opponents' (1), anyone's (2)."""
    if whose == 0:
        return s.at[p]
    found = []
    for q in range(s.num_players):
        if q != p or whose == 2:
            found += s.at[q]
    found.sort()
    return found


def _drop_points(s: State, whose: int, picked: tuple, held: tuple) -> list[int]:
    """DROP ids for the first held piece that still leave house points for the held traders."""
    free = s.free
    free_house = s.free_house
    traders_after = 0
    for code in held[1:]:
        if not code & 1:
            traders_after += 1
    if len(free_house) > traders_after:
        return [A_DROP + x for x in (free if held[0] & 1 else free_house)]
    if held[0] & 1:  # a merchant must leave the house points to the held traders
        return [A_DROP + x for x in free if POINT_MERCHANT_ONLY[x]]
    return []


def _legal_move_frame(s: State, top: tuple) -> list[int]:
    _, p, whose, left, held, phase, picked, unchanged = top
    if phase == 0:
        acts = [A_PICK + x for x in _pickable(s, p, whose)] if left > 0 else []
        if held:
            acts.append(A_DONE_PICKING)
        return acts
    acts = _drop_points(s, whose, picked, held)
    if unchanged and len(held) == 1:
        restoring = {A_DROP + x for x, code in picked if code == held[0]}
        changing = [a for a in acts if a not in restoring]
        if changing:
            return changing
    return acts


def _settle_move(s: State, top: tuple) -> bool:
    _, p, whose, left, held, phase, picked, unchanged = top
    if phase == 0:
        if left > 0 and _pickable(s, p, whose):
            return False
        if held:
            s.stack[-1] = (F_MOVE, p, whose, left, held, 1, picked, unchanged)
        else:
            s.stack.pop()
        return True
    if held:
        return False
    s.stack.pop()
    return True


def _apply_move_frame(s: State, top: tuple, action: int) -> None:
    _, p, whose, left, held, phase, picked, unchanged = top
    if action == A_DONE_PICKING:
        s.stack[-1] = (F_MOVE, p, whose, left, held, 1, picked, unchanged)
    elif action < A_DONE_PICKING:
        x = action - A_PICK
        code = _take(s, x)
        s.stack[-1] = (F_MOVE, p, whose, left - 1, held + (code,), 0, picked + ((x, code),), True)
    else:
        x = action - A_DROP
        _put(s, x, held[0])
        unchanged = unchanged and (x, held[0]) in picked
        s.stack[-1] = (F_MOVE, p, whose, left, held[1:], 1, picked, unchanged)


# ---- action: create a trade route
# spec/bigbox_2021.hansa:23
def _legal_create_route(s: State, p: int, acts: list[int]) -> None:
    full_owner = s.full_owner
    if p in full_owner:
        for r in range(N_ROUTES):
            if full_owner[r] == p:
                acts.append(A_CREATE + r)


def _apply_create_route(s: State, p: int, action: int) -> None:
    """Steps 1 (prestige for city control) and 2 (bonus marker); step 3 is the player's choice."""
    r = action - A_CREATE
    for c in ROUTE_CITIES[r]:
        owner = _controller(s, c)
        if owner >= 0:
            s.track[owner] = min(MAX_PP, s.track[owner] + CONTROL_PP)
    marker = s.rmark[r]
    if marker >= 0:
        s.rmark[r] = -1
        s.fresh += (marker,)
        drawing = bool(s.msupply)
        if not drawing:
            _end_marker_supply_empty(s)
    s.stack.append((F_ROUTE, p, r))
    if marker >= 0 and drawing:
        _marker_drawn(s, p)  # the draw's decision (if any) comes before step 3


def _route_kinds(s: State, r: int) -> tuple[bool, bool]:
    """Whether the route holds a trader, a merchant."""
    pt = s.pt
    has_trader = has_merchant = False
    for x in ROUTE_POINTS[r]:
        if pt[x] & 1:
            has_merchant = True
        else:
            has_trader = True
    return has_trader, has_merchant


def _legal_route(s: State, top: tuple) -> list[int]:
    _, p, r = top
    has_trader, has_merchant = _route_kinds(s, r)
    acts = []
    privilege = _ability_value(s, p, AB_POST_PRIVILEGE)
    for c in ROUTE_CITIES_SORTED[r]:
        filled = s.filled[c]
        if filled < CITY_SIZE[c]:
            space = CITY_SPACES[c][filled]
            if SPACE_PRIV[space] <= privilege:
                if has_trader and not SPACE_ROUND[space]:
                    acts.append(A_ESTABLISH + 2 * c)
                if has_merchant and SPACE_ROUND[space]:  # strict: square = trader, round = merchant
                    acts.append(A_ESTABLISH + 2 * c + 1)
    if _has_usable_marker(s, p, ADDITIONAL_MARKERS):
        for c in ROUTE_CITIES_SORTED[r]:
            if s.filled[c] > 0:
                if has_trader:
                    acts.append(A_ADDITIONAL + 2 * c)
                if has_merchant:
                    acts.append(A_ADDITIONAL + 2 * c + 1)
    for ability in ROUTE_ABILITIES[r]:
        if _can_develop(s, p, ability):
            acts.append(A_DEVELOP + ability)
    if r == SPECIAL_ROUTE and has_merchant:
        for j, holder in enumerate(s.special):
            if holder < 0 and SPECIAL_PRIV[j] <= privilege:
                acts.append(A_SPECIAL + j)
    acts.append(A_NO_POST)
    return acts


def _lift_kind_from_route(s: State, r: int, kind: int) -> int:
    for x in ROUTE_POINTS[r]:
        if s.pt[x] >= 0 and s.pt[x] & 1 == kind:
            return _take(s, x)
    raise AssertionError("no piece of that kind on the route")


def _apply_route(s: State, top: tuple, action: int) -> None:
    """Step 3, then every piece left on the route goes to the general stock."""
    _, p, r = top
    s.stack.pop()
    if A_ESTABLISH <= action < A_ESTABLISH + 2 * N_CITIES:
        c, kind = divmod(action - A_ESTABLISH, 2)
        code = _lift_kind_from_route(s, r, kind)
        space = CITY_SPACES[c][s.filled[c]]
        s.post[space] = code
        s.filled[c] += 1
        s.track[p] = min(MAX_PP, s.track[p] + SPACE_COIN[space])
        if s.filled[c] == CITY_SIZE[c]:
            s.completed += 1
        _check_east_west(s, p)
    if A_ADDITIONAL <= action < A_ADDITIONAL + 2 * N_CITIES:
        c, kind = divmod(action - A_ADDITIONAL, 2)
        _spend_marker(s, p, ADDITIONAL_MARKERS)
        code = _lift_kind_from_route(s, r, kind)
        s.extra[c] = (code,) + s.extra[c]
        _check_east_west(s, p)
    if A_DEVELOP <= action < A_DEVELOP + NA:
        _develop(s, p, action - A_DEVELOP)
    if A_SPECIAL <= action < A_SPECIAL + len(SPECIAL_POINTS):
        s.special[action - A_SPECIAL] = _lift_kind_from_route(s, r, 1)
    stock = s.stock
    for x in ROUTE_POINTS[r]:
        if s.pt[x] >= 0:
            stock[_take(s, x)] += 1


# ---- marker: additional trading post
# Used only inside step 3 of creating a route (see create_route), never on its own.
def _usable_additional_trading_post(s: State, p: int, m: int) -> bool:
    return False


def _effect_additional_trading_post(s: State, p: int, m: int) -> None:
    raise AssertionError("the additional trading post is used while creating a route")


# ---- marker: exchange trading posts
# Swap the pieces of two adjacent occupied spaces of one city (shape and colour ignored); with
# must_own_one the user owns one of them. Additional posts are not spaces and never swap.
EXCHANGE_MUST_OWN = dict(EXCHANGE_MARKERS)


def _exchange_options(s: State, p: int, must_own: bool) -> list[int]:
    post = s.post
    found = []
    for c in range(N_CITIES):
        spaces = CITY_SPACES[c]
        for i in range(s.filled[c] - 1):
            left, right = post[spaces[i]], post[spaces[i + 1]]
            if left != right and (not must_own or left >> 1 == p or right >> 1 == p):
                found.append(A_EXCHANGE + spaces[i])
    return found


def _usable_exchange_trading_posts(s: State, p: int, m: int) -> bool:
    return bool(_exchange_options(s, p, EXCHANGE_MUST_OWN[m]))


def _effect_exchange_trading_posts(s: State, p: int, m: int) -> None:
    s.stack.append((F_EXCHANGE, p, EXCHANGE_MUST_OWN[m]))


def _legal_exchange(s: State, top: tuple) -> list[int]:
    return _exchange_options(s, top[1], top[2])


def _apply_exchange(s: State, top: tuple, action: int) -> None:
    s.stack.pop()
    space = action - A_EXCHANGE
    s.post[space], s.post[space + 1] = s.post[space + 1], s.post[space]


# ---- marker: develop an ability
DEVELOP_WHICH = dict(DEVELOP_MARKERS)  # marker type -> ability index, -1 = any


def _develop_options(s: State, p: int, which: int) -> list[int]:
    abilities = range(NA) if which < 0 else (which,)
    return [A_DEVELOP + a for a in abilities if _can_develop(s, p, a)]


def _usable_develop_ability(s: State, p: int, m: int) -> bool:
    return bool(_develop_options(s, p, DEVELOP_WHICH[m]))


def _effect_develop_ability(s: State, p: int, m: int) -> None:
    s.stack.append((F_DEVELOP, p, DEVELOP_WHICH[m]))


def _legal_develop(s: State, top: tuple) -> list[int]:
    return _develop_options(s, top[1], top[2])


def _settle_develop(s: State, top: tuple) -> bool:
    """A develop decision with no ability left to develop (of several pending) is dropped."""
    if _develop_options(s, top[1], top[2]):
        return False
    s.stack.pop()
    return True


def _apply_develop(s: State, top: tuple, action: int) -> None:
    s.stack.pop()
    _develop(s, top[1], action - A_DEVELOP)


# ---- marker: extra actions this turn
EXTRA_ACTIONS = dict(EXTRA_ACTION_MARKERS)


def _usable_extra_actions(s: State, p: int, m: int) -> bool:
    return True


def _effect_extra_actions(s: State, p: int, m: int) -> None:
    s.actions_left = min(MAX_ACTIONS_LEFT, s.actions_left + EXTRA_ACTIONS[m])


# ---- marker: move other players' tradesmen
# Runs the move frame with `whose` = opponents (1) or any (2); swaps allowed, no displacing.
MOVE_MARKER_PARAMS = {
    m: (count, 1 if whose == "opponents" else 2) for m, count, whose in MOVE_MARKERS
}


def _usable_move_tradesmen(s: State, p: int, m: int) -> bool:
    return bool(_pickable(s, p, MOVE_MARKER_PARAMS[m][1]))


def _effect_move_tradesmen(s: State, p: int, m: int) -> None:
    count, whose = MOVE_MARKER_PARAMS[m]
    s.stack.append((F_MOVE, p, whose, count, (), 0, (), True))


# ---- using bonus markers
# A taken marker may be used once on its owner's turn between actions (never in the action that took
# it: those wait in `fresh` until the action ends). Each type's kind gives its usability and effect.
# bonus marker additional_trading_post (additional_trading_post): spec/bigbox_2021.hansa:28
# bonus marker exchange_trading_posts (exchange_trading_posts): spec/bigbox_2021.hansa:29
# bonus marker develop_ability (develop_ability): spec/bigbox_2021.hansa:30
# bonus marker plus_3_actions (extra_actions): spec/bigbox_2021.hansa:31
# bonus marker plus_4_actions (extra_actions): spec/bigbox_2021.hansa:32
# bonus marker move_tradesmen (move_tradesmen): spec/bigbox_2021.hansa:33
# per marker type: whether it can be used now, what using it does
MARKER_USABLE, MARKER_EFFECT = zip(
    (_usable_additional_trading_post, _effect_additional_trading_post),
    (_usable_exchange_trading_posts, _effect_exchange_trading_posts),
    (_usable_develop_ability, _effect_develop_ability),
    (_usable_extra_actions, _effect_extra_actions),
    (_usable_extra_actions, _effect_extra_actions),
    (_usable_move_tradesmen, _effect_move_tradesmen),
    strict=True,
)


def _legal_marker_uses(s: State, p: int, acts: list[int]) -> None:
    last = -1
    for m in s.unused[p]:  # kept sorted
        if m != last and MARKER_USABLE[m](s, p, m):
            acts.append(A_USE_MARKER + m)
        last = m


def _any_marker_use(s: State, p: int) -> bool:
    for m in s.unused[p]:
        if MARKER_USABLE[m](s, p, m):
            return True
    return False


def _has_usable_marker(s: State, p: int, types: tuple[int, ...]) -> bool:
    for m in s.unused[p]:
        if m in types:
            return True
    return False


def _spend_marker(s: State, p: int, types: tuple[int, ...]) -> None:
    """Flip one unused marker of the given types: it moves to the used pile (it still scores)."""
    unused = list(s.unused[p])
    for i, m in enumerate(unused):
        if m in types:
            del unused[i]
            s.unused[p] = tuple(unused)
            s.used[p] = tuple(sorted(s.used[p] + (m,)))
            return
    raise AssertionError("no such marker")


def _use_marker(s: State, p: int, m: int) -> None:
    _spend_marker(s, p, (m,))
    MARKER_EFFECT[m](s, p, m)


# ---- end of turn: placing drawn markers
# spec/bigbox_2021.hansa:34
def _marker_routes(s: State) -> list[int]:
    """Routes a drawn marker may go to (conditions: 3).

    no_marker, no_pieces, vacant_space_in_a_city
    """
    found = []
    filled = s.filled
    for r in range(N_ROUTES):
        if s.rmark[r] >= 0:
            continue
        if s.mask[r] != FULL_MASK[r]:
            continue
        a, b = ROUTE_CITIES[r]
        if filled[a] >= CITY_SIZE[a] and filled[b] >= CITY_SIZE[b]:
            continue
        found.append(r)
    return found


def _legal_markers(s: State, top: tuple) -> list[int]:
    return [A_PLACE_MARKER + r for r in _marker_routes(s)]


def _settle_markers(s: State, top: tuple) -> bool:
    if not s.plate:
        s.stack.pop()
        _next_player(s)
        return True
    if not _marker_routes(s):
        # Decision unplaceable_marker = out_of_game.
        s.out = tuple(sorted(s.out + s.plate[:1]))
        s.plate = s.plate[1:]
        return True
    return False


def _apply_markers(s: State, top: tuple, action: int) -> None:
    s.rmark[action - A_PLACE_MARKER] = s.plate[0]
    s.plate = s.plate[1:]


def _return_marker(s: State, m: int, salt: tuple) -> None:
    """Marker `m` goes back into the face-down supply (under a display's face-up markers)
    at a position drawn from a generator seeded by the state itself and `salt` (so replays
    and JSON round trips reproduce it); option returned_marker = shuffled."""
    low = 0
    key = repr((s.msupply, s.plate, s.track, s.rmark, *salt))
    order = low + Random(key).randrange(len(s.msupply) - low + 1)
    s.msupply = s.msupply[:order] + (m,) + s.msupply[order:]


# ---- final scoring
SCORERS = (_score_A, _score_B, _score_C, _score_D, _score_E, _score_F)


def score_breakdown(s: State) -> list[dict[str, int]]:
    """Per player, the points of each scoring category (as if the game ended now)."""
    return [
        {key: scorer(s, p) for key, scorer in zip(SCORE_KEYS, SCORERS, strict=True)}
        for p in range(s.num_players)
    ]


# ---- winners and the tie-break chain
# spec/bigbox_2021.hansa:48
def winners(s: State) -> list[int]:
    """Players with the most points; ties go down the TIEBREAK chain (ability or score)."""
    breakdown = score_breakdown(s)
    totals = [sum(b.values()) for b in breakdown]
    best = max(totals)
    alive = [p for p in range(s.num_players) if totals[p] == best]
    for rule, what, index in TIEBREAK:
        if len(alive) == 1 or rule == "shared":
            break
        if what == "ability":
            values = {p: s.level[p * NA + index] for p in alive}
        else:
            values = {p: breakdown[p][SCORE_KEYS[index]] for p in alive}
        target = min(values.values()) if rule == "fewest" else max(values.values())
        alive = [p for p in alive if values[p] == target]
    return alive


# ---- names and state JSON (docs/state-format.md): generic code (runtime/state_json.py) reads
# the tables above and SWITCHES
_state_json = StateJson(globals())
action_text = _state_json.action_text
action_name = _state_json.action_name
_action_names = _state_json.action_names
state_from_dict = _state_json.from_dict


# ---- what one player may see (docs/game-api.md, "Observations"), the observation tensor and the
# rule facts: generic code (runtime/observation.py, observation_tensor.py) reads the tables above
# and the module's own control rule
_views = Observations(globals(), _state_json)
State._json = _state_json
State._views = _views
tensor_codec = _views.tensor_codec
observation_tensor_layout = _views.observation_tensor_layout
observation_tensor_size = _views.observation_tensor_size


def observation_tensor(s: State, player: int, out=None):
    """The observation as a flat float32 numpy vector laid out by `observation_tensor_layout`
    (written into `out` when given; numpy is asked for only here, the runtime never imports it)."""
    check_observer(s, player)
    if out is None:
        import numpy

        out = numpy.empty(observation_tensor_size(s.num_players), numpy.float32)
    return tensor_codec(s.num_players).encode(s, player, out)


# ---- dispatch by frame kind
def _legal_none(s: State, top: tuple) -> list[int]:
    return []


def _apply_none(s: State, top: tuple, action: int) -> None:
    raise AssertionError("no decision of this kind in this game")


# Per frame kind (F_*, numbered by the model: FRAME_NAMES): its legal actions, how an action
# applies, and what settles without a choice (kind 0, the turn: _legal_turn, _apply_turn,
# _settle).
FRAMES = (
    (None, None, None),  # the turn
    (_legal_pay, _apply_pay, _settle_never),  # F_PAY
    (_legal_displaced, _apply_displaced, _settle_displaced),  # F_DISPLACED
    (_legal_move_frame, _apply_move_frame, _settle_move),  # F_MOVE
    (_legal_none, _apply_none, _settle_never),  # F_REMOVE
    (_legal_route, _apply_route, _settle_never),  # F_ROUTE
    (_legal_exchange, _apply_exchange, _settle_never),  # F_EXCHANGE
    (_legal_develop, _apply_develop, _settle_develop),  # F_DEVELOP
    (_legal_markers, _apply_markers, _settle_markers),  # F_MARKERS
    (_legal_keep, _apply_keep, _settle_keep),  # F_KEEP
)
LEGAL, APPLY, SETTLE = zip(*FRAMES, strict=True)
INFO = GameInfo.from_tables(globals())
