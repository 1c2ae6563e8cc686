"""A greedy agent that plays like a beginner, for simulations whose games look like real ones.

It creates every route it can, takes the route choice that scores best (a post that wins a city, a
coin, an ability it wants), develops Actions, Bank and Keys early, places its pieces on the route it
is closest to completing, displaces when that route is blocked, uses bonus markers when they
obviously help, and ends its turn when nothing useful is left.

It stays generic and keeps no rule of its own: everything it knows about a game comes from the
tables every generated module carries (`ACTION_RANGES`, `ROUTE_POINTS`, `CITY_SPACES`, the ability
roles `AB_*`) and from the state's public reads and rule facts (`point_pieces`, `space_posts`,
`posts_filled`, `ability_level`, `personal_supply`, `held_pieces`, `city_controller`,
`controller_if_post`, `controller_if_exchange`, `score_total`, …; docs/game-api.md). Those reads
return the state's own lists instead of building `to_dict()`, which keeps a decision fast (`to_dict`
alone costs several hundred microseconds).

What a bonus marker does, it learns by trying it: the use is applied to a clone, the decisions it
asks for are made as this agent would make them, and the difference is read from the game itself —
the score as if the game ended now (every category, those written in words too), the actions left,
ability levels, the pieces in the supply and the routes left open to it. So a marker a house rule
writes in words is played like the catalogue's, and no marker kind is named here. The step-3 choice
of a route creation is checked the same way for its best few options (a scoring category in words,
an `after create_route` rule).
"""

from __future__ import annotations

import random
import sys
from bisect import bisect_left
from types import ModuleType

from hansa.compiler.model.policy import (  # the weights and tables both targets read
    ACTION_WORTH,
    DISPLACE_COST,
    FREE_POINT_COST,
    FRUITLESS_LIMIT,
    KEYS_PER_POST,
    LOOKAHEAD_OPTIONS,
    LOW_PIECES,
    LOW_PIECES_POST_COST,
    MARKER_KEEP_DEFAULT,
    MARKER_KEEP_SHARE,
    MARKER_ON_ROUTE,
    MISSION_CONTROL_BONUS,
    MISSION_POST_BONUS,
    MY_PIECE_WEIGHT,
    NETWORK_BONUS,
    OPEN_PIECE_WORTH,
    PERMANENT_KINDS,
    PERMANENT_ROUTE_VALUE,
    PERMISSION_VALUE,
    PIECE_WORTH,
    PRIVILEGE_VALUE,
    SCORE_LOOKAHEAD,
    TILE_IN_PLAY_WORTH,
    TILE_SCORE_GROWTH,
    USE_DECISIONS,
    USE_THRESHOLD,
    GameTables,
)

_TABLES: dict[type, GameTables] = {}


class UseEffect:
    """What applying an action (and the decisions it asks for) changed for its player, read from
    the game: `score` (the score as if the game ended now), `actions` (left in the turn),
    `develop` (the worth of the abilities it developed), `pieces` (in the personal supply) and
    `open_pieces` (own pieces on routes no opponent blocks)."""

    __slots__ = ("score", "actions", "develop", "pieces", "open_pieces")

    def __init__(self, score: int, actions: int, develop: float, pieces: int, open_pieces: int):
        self.score = score
        self.actions = actions
        self.develop = develop
        self.pieces = pieces
        self.open_pieces = open_pieces

    def worth(self) -> float:
        """Everything but the actions, in PP-like units."""
        return (
            self.score
            + self.develop
            + PIECE_WORTH * self.pieces
            + OPEN_PIECE_WORTH * self.open_pieces
        )


class SortedIds:
    """Membership in a sorted list of action ids by bisection (cheaper than building a set)."""

    __slots__ = ("ids",)

    def __init__(self, ids: list[int]) -> None:
        self.ids = ids

    def __contains__(self, action: int) -> bool:
        ids = self.ids
        i = bisect_left(ids, action)
        return i < len(ids) and ids[i] == action


def native_playout(state, agents: list[GreedyAgent], cap: int) -> int | None:
    """Play greedy decisions on a native `state` in place until the game ends (or `cap`
    decisions), `agents[p]` deciding for player p, in one call of the C policy: the decisions
    the agents would make one by one. None when the state is not native (nothing is played)."""
    ext = getattr(type(state), "_ext", None)
    if ext is None or not all(agent.in_c for agent in agents):
        return None
    twins = tuple(agent.native_twin(ext) for agent in agents)
    return ext.greedy_playout(state, twins, cap)


def module_namespace(state) -> dict:
    """The global namespace of the generated module a state comes from (imported or in memory)."""
    cls = type(state)
    rules = getattr(cls, "python_module", None)  # a native state: its Python rule module
    if isinstance(rules, ModuleType):
        return vars(rules)
    module = sys.modules.get(cls.__module__)
    if isinstance(module, ModuleType) and "ACTION_RANGES" in vars(module):
        return vars(module)
    return cls._legal.__globals__


def tables_for(state) -> GameTables:
    cls = type(state)
    tables = _TABLES.get(cls)
    if tables is None:
        tables = _TABLES[cls] = GameTables(module_namespace(state))
    return tables


class GreedyAgent:
    """A beginner: one-step greedy on a hand-written value of routes, posts and abilities.

    Ties are broken by its own seeded generator, so two greedy agents with different seeds play
    different (equally plausible) games.
    """

    # On a native state the policy runs in C (its twin, `native_twin`); a subclass with False
    # runs this Python policy there too, reading the native state (how it was measured before).
    in_c = True

    def __init__(self, seed: int | None = 0) -> None:
        self.rng = random.Random(seed)
        self._city_cache: tuple[tuple, tuple[list[float], list[float]]] | None = None
        self._post_cache: dict[tuple, float] = {}
        self._target: int | None = None  # the route it is building
        self._marker_worth: dict[int, float] = {}  # marker type -> what its last tried use brought
        self._tried: dict[tuple, UseEffect] = {}  # the last try of each marker use, by position
        self._helper: GreedyAgent | None = None  # makes the decisions of a tried use, on the clone
        # route -> times it was created for nothing: two players building such routes in turn
        # would never end the game (seen in the 2-player variant, where the pawn keeps them there)
        self._fruitless: dict[int, int] = {}
        # (native module, this agent's C twin there): on a native state the policy runs in C
        self._native: tuple[ModuleType, object] | None = None

    def forget(self) -> None:
        """Forget the game played so far. The caches assume one game in which posts are only ever
        added (a count of posts names them); a search that plays from another position (a
        different rollout of the same root) calls this first."""
        self._city_cache = None
        self._post_cache.clear()
        self._target = None
        self._tried.clear()
        self._marker_worth.clear()
        self._helper = None
        self._fruitless.clear()
        if self._native is not None:
            self._native[1].forget()

    def native_twin(self, ext: ModuleType):
        """This agent's C twin in the native module `ext` (templates/greedy.c.j2): the same
        policy, carrying on from this agent's generator. An agent plays one backend at a time:
        moving to another carries the generator over and starts with nothing remembered."""
        native = self._native
        if native is not None and native[0] is ext:
            return native[1]
        self._leave_native()
        self._forget_python()
        twin = ext.Greedy(self.rng.getstate()[1])
        self._native = (ext, twin)
        return twin

    def _leave_native(self) -> None:
        """Back from a C twin: its generator becomes this agent's again."""
        if self._native is not None:
            version, _words, gauss = self.rng.getstate()
            self.rng.setstate((version, self._native[1].words(), gauss))
            self._native = None
            self._forget_python()

    def _forget_python(self) -> None:
        native, self._native = self._native, None
        self.forget()
        self._native = native

    # ---- entry point
    def step(self, state, legal_actions: list[int]) -> int:
        if len(legal_actions) == 1:
            return legal_actions[0]
        ext = getattr(type(state), "_ext", None)
        if ext is not None and self.in_c:  # a native state: the C twin decides
            return self.native_twin(ext).step(state, legal_actions)
        if self._native is not None:
            self._leave_native()
        t = tables_for(state)
        me = state.current_player()
        first = t.kind_of[legal_actions[0]]
        last = t.kind_of[legal_actions[-1]]
        if first == "END_TURN":
            return self._turn(state, t, me, legal_actions)
        if last == "NO_POST":
            return self._route_choice(state, t, me, legal_actions)
        if first == "PAY":
            return legal_actions[0]  # pay with as few merchants as possible
        if last in PERMANENT_KINDS:
            return self._permanent(state, t, me, legal_actions)
        if first in ("PLACE_DISPLACED", "EXTRA", "LIFT", "DECLINE"):
            return self._displaced(state, t, me, legal_actions)
        if first in ("PICK", "DONE_PICKING"):
            return self._pick(state, t, me, legal_actions, "PICK", "DONE_PICKING")
        if first in ("REMOVE", "DONE_REMOVING"):
            return self._pick(state, t, me, legal_actions, "REMOVE", "DONE_REMOVING")
        if first == "DROP":
            return self._drop(state, t, me, legal_actions)
        if first == "DEVELOP":
            return self._best_develop(state, t, me, legal_actions)
        if first == "EXCHANGE":
            best = self._best_exchange(state, t, me, legal_actions)
            return best if best is not None else legal_actions[0]
        if first == "PLACE_MARKER":
            return self._place_marker(state, t, me, legal_actions)
        if first == "PAWN":  # the pawn's setup region, or where a paid move takes it
            return self._pawn_region(state, t, me, legal_actions)
        if first == "FLIP":
            return self._flip_choice(t, legal_actions)
        if first == "TAKE_PIECE":
            return self._take_piece(state, t, me, legal_actions)
        if first in ("KEEP_MARKER", "DISPLAY_MARKER"):
            return self._keep_drawn(t, first, legal_actions)
        return legal_actions[self._pick_index(len(legal_actions))]

    def _pick_index(self, n: int) -> int:
        return int(self.rng.random() * n)

    def _noise(self) -> float:
        return self.rng.random() * 0.1

    # ---- reading the position
    @staticmethod
    def _route_counts(state, t: GameTables, me: int) -> tuple[list[int], list[int], list[int]]:
        """Per route: my pieces, opponents' pieces, free points."""
        n = t.n_routes
        mine, opp = [0] * n, [0] * n
        free = list(t.route_sizes)
        point_route = t.point_route
        for x, code in enumerate(state.point_pieces()):
            if code >= 0:
                r = point_route[x]
                free[r] -= 1
                if code >> 1 == me:
                    mine[r] += 1
                else:
                    opp[r] += 1
        return mine, opp, free

    @staticmethod
    def _level(state, t: GameTables, me: int, ability: int) -> int:
        return state.ability_level(me, ability)

    def _privilege(self, state, t: GameTables, me: int) -> int:
        ab = t.role["privilege"]
        return t.ability_values[ab][self._level(state, t, me, ab)]

    def _progress(self, state, t: GameTables) -> float:
        """How near the game is to its end (0 at the start, 1 at a trigger): the nearest of the
        spec's PP and completed-cities triggers."""
        progress = 0.0
        if t.end_track_pp:
            progress = max(state.track_pp()) / t.end_track_pp
        if t.end_completed:
            progress = max(progress, state.completed_cities() / t.end_completed)
        return min(1.0, progress)

    def _ending_near(self, state, t: GameTables) -> float:
        """Like `_progress`, and also how far the marker supply is drawn (an empty one ends the
        game in the editions that say so): 1 when the game may end any moment."""
        progress = self._progress(state, t)
        if t.marker_supply_start:
            drawn = 1.0 - state.marker_supply_size() / t.marker_supply_start
            progress = max(progress, drawn)
        return min(1.0, progress)

    # ---- values
    def _develop_value(self, state, t: GameTables, me: int, ability: int) -> float:
        level = self._level(state, t, me, ability)
        if level >= t.ability_max[ability]:
            return -1.0
        values = t.ability_values[ability]
        gain = values[level + 1] - values[level]
        role = t.role
        if ability == role["actions"]:
            value = 2.0 + 3.0 * gain
        elif ability == role["income"]:
            value = (4.0, 3.0, 2.0)[min(level, 2)]
        elif ability == role["network"]:
            # Each Keys step multiplies the network: worth about one PP per post I hold.
            posts = sum(1 for code in state.space_posts() if code >> 1 == me)
            value = 1.0 + KEYS_PER_POST * gain * posts
        elif ability == role["privilege"]:
            value = PRIVILEGE_VALUE if self._privilege_blocks(state, t, me) else 1.0
        else:
            value = 0.5
        value *= 1.0 - 0.6 * self._progress(state, t)
        if level + 1 == t.ability_max[ability]:
            value += t.ability_full_pp[ability]
        return value

    def _privilege_blocks(self, state, t: GameTables, me: int) -> bool:
        """Whether some city's next vacant space needs a better privilege than mine."""
        privilege = self._privilege(state, t, me)
        all_filled = state.posts_filled()
        for c, spaces in enumerate(t.city_spaces):
            filled = all_filled[c]
            if filled < len(spaces) and t.space_priv[spaces[filled]] > privilege:
                return True
        return False

    def _my_cities(self, state, t: GameTables, me: int) -> set[int]:
        space_city = t.space_city
        cities = {space_city[i] for i, code in enumerate(state.space_posts()) if code >> 1 == me}
        for c, codes in enumerate(state.additional_posts()):
            if codes and any(code >> 1 == me for code in codes):
                cities.add(c)
        return cities

    def _city_values(
        self, state, t: GameTables, me: int
    ) -> tuple[list[float], list[float], list[float]]:
        """Per city, the best step-3 value there with the pieces a route holds: (traders only,
        traders and a merchant, merchants only). A square space takes a trader, a round one a
        merchant (and a square one too under `space_shapes merchant_anywhere`).

        Only new posts, my abilities and the game's progress change these, so the last answer is
        kept until one of them does (posts are only ever added, so their count tells).
        """
        n = t.n_abilities
        extra = state.additional_posts()
        posts = sum(state.posts_filled()) + sum(map(len, extra))
        progress = int(10 * self._progress(state, t))
        key = (me, posts, tuple(state.ability_level(me, a) for a in range(n)), progress)
        if self._city_cache is not None and self._city_cache[0] == key:
            return self._city_cache[1]
        my_cities = self._my_cities(state, t, me)
        near_cities = set(my_cities)
        for c in my_cities:
            near_cities.update(t.city_neighbors[c])
        privilege = self._privilege(state, t, me)
        develop = [self._develop_value(state, t, me, a) for a in range(n)]
        post_cache = self._post_cache  # a city's posts only grow, so (filled, extra) name them
        mission = state.mission_cities(me)  # fixed for the game, but another game deals anew
        now: list[int] = []
        city_abilities, city_spaces = t.city_abilities, t.city_spaces
        space_priv, space_round, all_filled = t.space_priv, t.space_round, state.posts_filled()
        merchant_any_space = t.merchant_any_space
        by_trader, by_both, by_merchant = [], [], []
        for c in range(t.n_cities):
            best = 0.0
            for a in city_abilities[c]:
                if develop[a] > best:
                    best = develop[a]
            with_trader = with_both = with_merchant = best
            spaces = city_spaces[c]
            filled = all_filled[c]
            if filled < len(spaces) and space_priv[spaces[filled]] <= privilege:
                near = c in near_cities
                city_key = (me, c, filled, len(extra[c]), near, mission)
                post = post_cache.get(city_key)
                if post is None:
                    if not now:
                        now.append(state.score_total(me))
                    post = self._post_value(state, t, me, c, False, near, now[0])
                    post_cache[city_key] = post
                if post > best:
                    with_both = post
                    if space_round[spaces[filled]]:
                        with_merchant = post
                    else:
                        with_trader = post
                        if merchant_any_space:
                            with_merchant = post
            by_trader.append(with_trader)
            by_both.append(with_both)
            by_merchant.append(with_merchant)
        values = (by_trader, by_both, by_merchant)
        self._city_cache = (key, values)
        return values

    def _route_value(
        self, state, t: GameTables, r: int, trader: bool, merchant: bool, values: tuple
    ) -> float:
        """What creating route r would bring me: the best step-3 choice plus its marker."""
        table = values[1] if trader and merchant else values[2] if merchant else values[0]
        a, b = t.route_cities[r]
        best = max(table[a], table[b])
        if r == t.special_route and merchant and t.special_points:
            best = max(best, 0.5 * max(t.special_points))
        if state.route_markers()[r] >= 0:
            best += MARKER_ON_ROUTE
        if r in t.permanent_routes:
            best += PERMANENT_ROUTE_VALUE
        return best

    # ---- the turn
    def _turn(self, state, t: GameTables, me: int, legal: list[int]) -> int:
        by_kind: dict[str, list[int]] = {}
        for kind, base, size in t.turn_ranges:  # legal is sorted, each kind is one id range
            i = bisect_left(legal, base)
            j = bisect_left(legal, base + size, i)
            if i < j:
                by_kind[kind] = legal[i:j]
        creates = by_kind.get("CREATE")
        if creates:
            return self._best_create(state, t, me, creates)
        tiles = by_kind.get("FAVOUR")  # Emperor's Favour: legal only at the start of a turn
        if tiles:
            for a in by_kind.get("USE_MARKER", ()):
                self._try_use(state, t, me, a, [])  # what each marker a tile would flip is worth
            tile = self._favour_tile(state, t, me, tiles)
            if tile is not None:
                return tile
        if t.region_routes and state.pawn_free_move_before_acting():
            free = [a for a in legal if t.kind_of[a] == "PAWN"]
            if free:  # before the first action: bring the pawn to the route it wants
                wanted = self._wanted_route(state, t, me)
                if wanted not in t.region_routes[state.pawn_region()]:
                    moved = self._pawn_region(state, t, me, free, wanted, stay=True)
                    if moved is not None:
                        return moved
        if t.region_routes and "PAWN_PAY" in by_kind and state.actions_remaining() >= 2:
            full_owner = state.route_full_owners()
            if me in full_owner:  # a route to create elsewhere: pay, then create it
                if full_owner.index(me) not in t.region_routes[state.pawn_region()]:
                    return by_kind["PAWN_PAY"][0]
        markers = by_kind.get("USE_MARKER")
        # Held markers are looked at as the turn starts, once its actions are spent, and before
        # it ends early (a try costs a copy of the game and two scorings, see `_try_use`).
        if markers and (
            state.actions_remaining() >= state.ability_value(me, t.role["actions"])
            or not any(k not in ("END_TURN", "USE_MARKER", "PAWN") for k in by_kind)
        ):
            chosen = self._marker_to_use(state, t, me, markers, by_kind)
            if chosen is not None:
                return chosen
            markers = None  # looked at: no use now
        supply_t, supply_m = state.personal_supply(me)
        incomes = by_kind.get("INCOME")
        if incomes and supply_t + supply_m < 2:
            return self._best_income(state, t, me, incomes)
        places = by_kind.get("PLACE")
        displaces = by_kind.get("DISPLACE")
        if places or displaces:
            choice = self._best_placement(state, t, me, places or [], displaces or [])
            if choice is not None:
                return choice
        if t.region_routes and supply_t + supply_m and "PAWN_PAY" in by_kind:
            if self._wanted_route(state, t, me) not in t.region_routes[state.pawn_region()]:
                return by_kind["PAWN_PAY"][0]  # nothing to do here: pay to move the pawn
        if incomes and supply_t + supply_m < 4:
            return self._best_income(state, t, me, incomes)
        if "MOVE" in by_kind and not supply_t + supply_m and not incomes:
            # Out of pieces: gather those left on half-built routes onto the most advanced one.
            target = self._gathering_target(state, t, me)
            if target is not None:
                self._target = target
                return by_kind["MOVE"][0]
        if markers:
            chosen = self._marker_to_use(state, t, me, markers, by_kind)
            if chosen is not None:
                return chosen
        return by_kind["END_TURN"][0]

    # ---- Emperor's Favour: tiles, the markers they flip, pieces a tile offers
    def _favour_tile(self, state, t: GameTables, me: int, tiles: list[int]) -> int | None:
        """The tile worth more than the turn it costs, if any. A tile's worth is what it adds to
        my final score now (played out on a copy), growing over the rest of the game; a tile
        that adds nothing now changes play (more actions, pieces, …) and is worth more early."""
        progress = self._progress(state, t)
        unused = sorted(self._keep_value(t, m) for m in state.unused_markers(me))
        cost = ACTION_WORTH * state.actions_remaining() + sum(unused[:2])
        before = sum(state.score_breakdown()[me].values())
        best, best_worth = None, cost
        for a in tiles:
            after = state.clone()
            after.apply_action(a)
            while not after.is_terminal() and after.current_player() == me:
                legal = after.legal_actions()
                if t.kind_of[legal[0]] != "FLIP":
                    break
                after.apply_action(self._flip_choice(t, legal))
            gain = sum(after.score_breakdown()[me].values()) - before
            if gain > 0:
                worth = gain * (1.0 + TILE_SCORE_GROWTH * (1.0 - progress))
            else:
                worth = TILE_IN_PLAY_WORTH * (1.0 - progress)
            worth += self._noise()
            if worth > best_worth:
                best, best_worth = a, worth
        return best

    def _keep_value(self, t: GameTables, marker: int) -> float:
        """What an unused marker is worth keeping: a share of what its use brought when last
        tried (`_try_use`)."""
        return self._marker_worth.get(marker, MARKER_KEEP_DEFAULT)

    def _flip_choice(self, t: GameTables, legal: list[int]) -> int:
        """Flip the two markers least worth keeping for their use (they score the same)."""
        base = t.base["FLIP"]
        pairs = t.flip_pairs
        return min(
            legal,
            key=lambda a: (
                self._keep_value(t, pairs[a - base][0]) + self._keep_value(t, pairs[a - base][1]),
                a,
            ),
        )

    def _keep_drawn(self, t: GameTables, kind: str, legal: list[int]) -> int:
        """Of the markers drawn (`draw N keep 1`) or face up in the display, take the one most
        worth having: it goes next to my posts at the end of the turn (`_place_marker`), where I
        may take it again."""
        base = t.base[kind]
        return max(legal, key=lambda a: (self._keep_value(t, a - base), -a))

    def _take_piece(self, state, t: GameTables, me: int, legal: list[int]) -> int:
        """A free piece always helps: a merchant when my supply has none, else a trader."""
        base = t.base["TAKE_PIECE"]
        offered = {a - base: a for a in legal}
        if 2 in offered and (state.personal_supply(me)[1] == 0 or 1 not in offered):
            return offered[2]
        return offered.get(1, offered.get(2, legal[0]))

    def _wanted_route(self, state, t: GameTables, me: int) -> int:
        """The route the pawn should border: a route of mine to create, else the best to build."""
        full_owner = state.route_full_owners()
        if me in full_owner:
            return full_owner.index(me)
        fruitless = self._fruitless
        if self._target is not None and fruitless.get(self._target, 0) < FRUITLESS_LIMIT:
            return self._target
        mine, opp, free = self._route_counts(state, t, me)
        by_trader, _by_merchant, _merchants_only = self._city_values(state, t, me)
        rmark = state.route_markers()
        best, best_value = 0, -1e9
        for r in range(t.n_routes):
            if opp[r] or not free[r] or fruitless.get(r, 0) >= FRUITLESS_LIMIT:
                continue
            a, b = t.route_cities[r]
            value = max(by_trader[a], by_trader[b]) + MY_PIECE_WEIGHT * mine[r]
            value += (MARKER_ON_ROUTE if rmark[r] >= 0 else 0) - FREE_POINT_COST * free[r]
            if value > best_value:
                best, best_value = r, value
        return best

    def _pawn_region(
        self, state, t: GameTables, me: int, legal: list[int], wanted=None, stay=False
    ) -> int | None:
        """A region bordering the wanted route (the one bordering most of my routes among them);
        `stay`: None when no legal region borders it."""
        if wanted is None:
            wanted = self._wanted_route(state, t, me)
        mine, _opp, _free = self._route_counts(state, t, me)
        base = t.base["PAWN"]
        best, best_key = None, None
        for a in legal:
            routes = t.region_routes[a - base]
            key = (wanted in routes, sum(mine[r] for r in routes), self._noise())
            if best_key is None or key > best_key:
                best, best_key = a, key
        if stay and best_key is not None and not best_key[0]:
            return None
        return best

    def _gathering_target(self, state, t: GameTables, me: int) -> int | None:
        """The route to complete with pieces moved from other routes, if there are enough."""
        mine, opp, free = self._route_counts(state, t, me)
        merchants = [0] * t.n_routes  # my merchants per route; free ship points per route
        free_ships = [0] * t.n_routes
        for x, code in enumerate(state.point_pieces()):
            r = t.point_route[x]
            if code < 0 and t.merchant_only[x]:
                free_ships[r] += 1
            elif code >= 0 and code >> 1 == me and code & 1:
                merchants[r] += 1
        best, best_key = None, None
        for r in range(t.n_routes):
            if opp[r] or not free[r]:
                continue
            sources = [o for o in range(t.n_routes) if o != r and mine[o]]
            sources = [o for o in sources if t.can_move_between(o, r)]
            if sum(mine[o] for o in sources) < free[r]:
                continue
            if sum(merchants[o] for o in sources) < free_ships[r]:
                continue  # ship points take merchants only
            key = (mine[r] - free[r], mine[r])
            if best_key is None or key > best_key:
                best, best_key = r, key
        return best

    def _best_create(self, state, t: GameTables, me: int, creates: list[int]) -> int:
        values = self._city_values(state, t, me)
        pt = state.point_pieces()
        base = t.base["CREATE"]
        best, best_value = creates[0], -1e9
        for a in creates:
            r = a - base
            codes = [pt[x] for x in t.route_points[r] if pt[x] >= 0]
            merchant = any(code & 1 for code in codes)
            trader = not all(code & 1 for code in codes)
            value = self._route_value(state, t, r, trader, merchant, values) + self._noise()
            if value > best_value:
                best, best_value = a, value
        return best

    def _best_income(self, state, t: GameTables, me: int, incomes: list[int]) -> int:
        base = t.base["INCOME"]
        per = t.merchants_owned + 1
        want_merchant = state.personal_supply(me)[1] == 0

        def value(a: int) -> tuple[int, int]:
            traders, merchants = divmod(a - base, per)
            return (traders + merchants, merchants if want_merchant else traders)

        if "after_income" not in t.rule_hooks or len(incomes) < 2:
            return max(incomes, key=value)
        # A rule acts after Income (on the pieces it takes): what each split does to my score
        # first, as the game computes it.
        now = state.score_total(me)

        def scored(a: int) -> tuple[int, int, int]:
            after = state.clone()
            after.apply_action(a)
            return (after.score_total(me) - now, *value(a))

        return max(incomes, key=scored)

    def _marker_to_use(
        self, state, t: GameTables, me: int, markers: list[int], by_kind: dict[str, list[int]]
    ) -> int | None:
        """The marker whose use is worth it now, tried on a clone (see `_try_use`).

        A use that adds actions waits until the turn's own actions are spent (and pieces are left
        to act with); any other gain must beat a bar that falls to nothing as the game nears its
        end, so a marker whose use gains something is used before the game ends, and one whose
        gain grows (PP per city controlled) waits a while first.
        """
        actions_left = any(k not in ("END_TURN", "USE_MARKER", "PAWN") for k in by_kind)
        pieces = sum(state.personal_supply(me)) + sum(state.general_stock(me))
        bar = USE_THRESHOLD * (1.0 - self._ending_near(state, t))
        if "FAVOUR" in t.base:  # a tile is paid for with unused markers: keep them for one
            bar += 0.5 * TILE_IN_PLAY_WORTH * (1.0 - self._progress(state, t))
        best, best_worth = None, 0.0
        now: list[int] = []  # my score as if the game ended now, read once for all markers
        for a in markers:
            effect = self._try_use(state, t, me, a, now)
            worth = effect.worth()
            if effect.actions > 0 and not actions_left and pieces >= 3:
                worth += ACTION_WORTH * effect.actions
            elif worth <= bar:
                continue
            if worth > best_worth:
                best, best_worth = a, worth
        return best

    def _try_use(self, state, t: GameTables, me: int, action: int, now: list[int]) -> UseEffect:
        """Apply `action` to a clone, make the decisions it asks of me (as this agent would) until
        the turn decision is back, and read the difference. Kept per position and marker (the
        position named by the posts, the track and the face-down supply), so a held marker is
        tried about once per turn. `now` holds my score before the use once read (or nothing
        yet), shared by the tries of one decision."""
        posts = sum(state.posts_filled()) + sum(map(len, state.additional_posts()))
        key = (
            me,
            action,
            posts,
            tuple(state.track_pp()),
            state.marker_supply_size(),
        )
        effect = self._tried.get(key)
        if effect is not None:
            return effect
        levels = [state.ability_level(me, a) for a in range(t.n_abilities)]
        after = state.clone()
        after.apply_action(action)
        helper = self._helper
        if helper is None:
            helper = self._helper = GreedyAgent(self.rng.random())
        helper.forget()
        for _ in range(USE_DECISIONS):
            if after.is_terminal() or after.current_player() != me:
                break
            legal = after.legal_actions()
            if t.kind_of[legal[0]] == "END_TURN":
                break  # the turn decision again: the use is over
            after.apply_action(helper.step(after, legal))
        my_turn_still = (  # the use ended back at my turn decision (not at the next turn)
            not after.is_terminal()
            and after.current_player() == me
            and t.kind_of[after.legal_actions()[0]] == "END_TURN"
        )
        develop = 0.0
        for a in range(t.n_abilities):
            gained = after.ability_level(me, a) - levels[a]
            if gained > 0:
                develop += gained * max(self._develop_value(state, t, me, a), 0.5)
        if not now:
            now.append(state.score_total(me))
        effect = UseEffect(
            score=after.score_total(me) - now[0],
            actions=after.actions_remaining() - state.actions_remaining() if my_turn_still else 0,
            develop=develop,
            pieces=sum(after.personal_supply(me)) - sum(state.personal_supply(me)),
            open_pieces=self._open_pieces(after, t, me) - self._open_pieces(state, t, me),
        )
        if len(self._tried) > 256:
            self._tried.clear()
        self._tried[key] = effect
        marker = action - t.base["USE_MARKER"]
        gain = effect.worth() + ACTION_WORTH * max(effect.actions, 0)
        self._marker_worth[marker] = MARKER_KEEP_SHARE * max(gain, 0.0)
        return effect

    def _open_pieces(self, state, t: GameTables, me: int) -> int:
        """My pieces on routes where no opponent has one (progress nobody blocks)."""
        mine, opp, _free = self._route_counts(state, t, me)
        return sum(m for m, o in zip(mine, opp, strict=True) if not o)

    def _best_placement(
        self, state, t: GameTables, me: int, places: list[int], displaces: list[int]
    ) -> int | None:
        """Place towards the most promising route; displace when that route is blocked.

        Like a beginner it sticks to the route it chose until that route is full or blocked, and
        only then looks over the whole board again (which is also what keeps a decision cheap).
        """
        pt = state.point_pieces()
        my_merchant = 2 * me + 1
        target = self._target
        fruitless = self._fruitless
        if target is not None and fruitless.get(target, 0) >= FRUITLESS_LIMIT:
            target = self._target = None
        if target is not None:
            codes = [pt[x] for x in t.route_points[target]]
            mine_there = sum(1 for code in codes if code >> 1 == me)
            if -1 in codes and mine_there and all(code < 0 or code >> 1 == me for code in codes):
                action = self._place_on(
                    state, t, me, target, my_merchant in codes, SortedIds(places), t.base["PLACE"]
                )
                if action is not None:
                    return action
            self._target = None
        mine, opp, free = self._route_counts(state, t, me)
        by_trader, by_merchant, _merchants_only = self._city_values(state, t, me)
        rmark = state.route_markers()
        has_merchant_supply = state.personal_supply(me)[1] > 0
        special_value = 0.5 * max(t.special_points) if t.special_points else 0.0
        offset = self.rng.random()
        candidates = []
        for r in range(t.n_routes):
            if fruitless and fruitless.get(r, 0) >= FRUITLESS_LIMIT:
                continue
            m, o, f = mine[r], opp[r], free[r]
            if o:
                if not (displaces and o == 1):
                    continue
            elif not f:
                continue
            merchant = has_merchant_supply or (
                m > 0 and any(pt[x] == my_merchant for x in t.route_points[r])
            )
            table = by_merchant if merchant else by_trader
            a, b = t.route_cities[r]
            value = table[a] if table[a] > table[b] else table[b]
            if r == t.special_route and merchant and special_value > value:
                value = special_value
            if rmark[r] >= 0:
                value += MARKER_ON_ROUTE
            value += MY_PIECE_WEIGHT * m - FREE_POINT_COST * f + 0.1 * ((r * 0.618 + offset) % 1)
            if o:
                value -= DISPLACE_COST + FREE_POINT_COST
            candidates.append((value, r))
        candidates.sort(reverse=True)
        legal_places = legal_displaces = None
        place_base, displace_base = t.base["PLACE"], t.base.get("DISPLACE", -1)
        for _value, r in candidates:
            if opp[r]:
                if legal_displaces is None:
                    legal_displaces = SortedIds(displaces)
                action = self._displace_on(state, t, me, r, legal_displaces, displace_base)
            else:
                if legal_places is None:
                    legal_places = SortedIds(places)
                merchant_on = any(pt[x] == my_merchant for x in t.route_points[r])
                action = self._place_on(state, t, me, r, merchant_on, legal_places, place_base)
                if action is not None:
                    self._target = r
            if action is not None:
                return action
        return None

    def _place_on(
        self,
        state,
        t: GameTables,
        me: int,
        r: int,
        merchant_on: bool,
        legal: SortedIds,
        base: int,
    ) -> int | None:
        """A legal placement on route r: a trader on a house point, a merchant where needed."""
        want_merchant = not merchant_on and self._route_wants_merchant(state, t, me, r)
        fallback = None
        pt = state.point_pieces()
        for x in t.route_points[r]:
            if pt[x] >= 0:
                continue
            trader, merchant = base + 2 * x, base + 2 * x + 1
            if want_merchant and merchant in legal:
                return merchant
            if trader in legal:
                return trader
            if merchant in legal and fallback is None:
                fallback = merchant
        return fallback

    def _route_wants_merchant(self, state, t: GameTables, me: int, r: int) -> bool:
        """Whether the post I could take at an end of route r needs a merchant (a round space)."""
        privilege = self._privilege(state, t, me)
        all_filled = state.posts_filled()
        for c in t.route_cities[r]:
            spaces = t.city_spaces[c]
            filled = all_filled[c]
            if filled < len(spaces):
                space = spaces[filled]
                if t.space_priv[space] <= privilege:
                    return bool(t.space_round[space])
        return r == t.special_route

    def _displace_on(
        self, state, t: GameTables, me: int, r: int, legal: SortedIds, base: int
    ) -> int | None:
        """Displace the cheapest opponent piece on route r if I can pay for it and keep a spare."""
        supply = sum(state.personal_supply(me))
        pt = state.point_pieces()
        for x in t.route_points[r]:
            code = pt[x]
            if code < 0 or code >> 1 == me:
                continue
            if supply < 2 + t.displace_cost[code & 1]:
                continue
            for action in (base + 2 * x, base + 2 * x + 1):
                if action in legal:
                    return action
        return None

    # ---- step 3 of creating a route
    def _route_choice(self, state, t: GameTables, me: int, legal: list[int]) -> int:
        my_cities = self._my_cities(state, t, me)
        best = legal[-1]  # no post (worth 0), unless an option is worth more
        # Nearly out of pieces (every other one a post): develop instead, which frees a piece,
        # so that two such players cannot leave a game stuck with nothing to place.
        route = state.decision_route()
        back = max(t.route_sizes[route] - 1, 0) if route >= 0 else 0
        short = sum(state.personal_supply(me)) + sum(state.general_stock(me)) + back
        post_penalty = LOW_PIECES_POST_COST if short < LOW_PIECES else 0.0
        options: list[tuple[float, int]] = []
        for a in legal:
            kind = t.kind_of[a]
            if kind in ("ESTABLISH", "ADDITIONAL"):
                c, piece = divmod(a - t.base[kind], 2)
                value = self._post_value(state, t, me, c, kind == "ADDITIONAL", my_cities)
                value -= 0.05 * piece  # keep merchants for round spaces when a trader will do
                value -= post_penalty
            elif kind == "DEVELOP":
                value = self._develop_value(state, t, me, a - t.base[kind])
            elif kind == "SPECIAL":
                value = 0.6 * t.special_points[a - t.base[kind]]
            else:
                continue
            value += self._noise()
            if value > 0.0:
                options.append((value, a))
        if options:
            options.sort(reverse=True)
            choice = self._score_checked(state, me, options[:LOOKAHEAD_OPTIONS], best)
        else:
            choice = best
        if choice == best and route >= 0:
            self._fruitless[route] = self._fruitless.get(route, 0) + 1
        return choice

    def _score_checked(
        self, state, me: int, options: list[tuple[float, int]], fallback: int
    ) -> int:
        """The best of a few (value, action) options, or `fallback` (worth 0) when none is worth
        more, once each value also counts what applying the action does to my score as the game
        computes it (a category or rule in words the heuristic cannot know of)."""
        now = state.score_total(me)
        best, best_value = fallback, 0.0
        for value, a in options:
            after = state.clone()
            after.apply_action(a)
            value += SCORE_LOOKAHEAD * (after.score_total(me) - now)
            if value > best_value:
                best, best_value = a, value
        return best

    def _post_value(
        self,
        state,
        t: GameTables,
        me: int,
        c: int,
        additional: bool,
        near: bool | set[int],
        now: int | None = None,
    ) -> float:
        """A post in city c: base and coin, winning the city's control, growing my network, and
        (given my score `now`) a share of what it adds to my score as the game computes it.

        `near` says whether c is in or next to my network (or is my set of cities, to find out).
        """
        if isinstance(near, set):
            near = c in near or any(d in near for d in t.city_neighbors[c])
        before = state.city_controller(c)
        after = state.controller_if_post(c, me, additional)
        if additional:
            value = 2.5
        else:
            space = t.city_spaces[c][state.posts_filled()[c]]
            value = 3.0 + 2.0 * t.space_coin[space]
            if c in t.permission_cities:
                value += PERMISSION_VALUE  # the rightmost post grants the permission
        if after == me and before != me:
            value += 2.5
        if near:
            value += NETWORK_BONUS
        if c in state.mission_cities(me):  # my secret mission card: a post, then control of all
            if not any(code >> 1 == me for code in state.city_posts(c)):
                value += MISSION_POST_BONUS
            if after == me and before != me:
                value += MISSION_CONTROL_BONUS
        if now is not None:
            value += SCORE_LOOKAHEAD * (state.score_if_post(c, me, additional) - now)
        return value

    # ---- a displaced player's placements
    def _displaced(self, state, t: GameTables, me: int, legal: list[int]) -> int:
        extra_base = t.base.get("EXTRA", -1)
        kinds = {t.kind_of[a] for a in legal}
        if "PLACE_DISPLACED" in kinds:
            mine, opp, _free = self._route_counts(state, t, me)
            base = t.base["PLACE_DISPLACED"]
            return max(
                (a for a in legal if t.kind_of[a] == "PLACE_DISPLACED"),
                key=lambda a: (
                    mine[t.point_route[a - base]] - 2 * opp[t.point_route[a - base]],
                    -a,
                ),
            )
        if extra_base in legal:  # an extra trader from the stock or supply: free progress
            return extra_base
        if extra_base + 1 in legal:
            return extra_base + 1
        return legal[-1]  # decline rather than pull own pieces off the board

    # ---- moving and removing pieces
    def _pick(self, state, t: GameTables, me: int, legal: list[int], pick: str, done: str) -> int:
        mine, opp, free = self._route_counts(state, t, me)
        base = t.base[pick]
        target = self._target
        held = self._held(state)
        gathering = target is not None and not opp[target] and len(held) < free[target]
        pt = state.point_pieces()
        best, best_value = None, 0.0
        for a in legal:
            if t.kind_of[a] != pick:
                continue
            x = a - base
            r = t.point_route[x]
            code = pt[x]
            if code >> 1 == me:
                value = 0.5 * opp[r]  # own piece stuck on a blocked route
                if gathering and r != target and t.can_move_between(r, target):
                    value += 10.0 - mine[r]  # from the least advanced route first
            else:
                value = float(mine[r])  # an opponent blocking my route
            if value > best_value:
                best, best_value = a, value
        if best is not None:
            return best
        done_id = t.base.get(done, -1)
        if done_id in legal:
            return done_id
        return legal[0]

    def _drop(self, state, t: GameTables, me: int, legal: list[int]) -> int:
        mine, opp, free = self._route_counts(state, t, me)
        base = t.base["DROP"]
        held = self._held_piece(state)
        own = held is not None and held >> 1 == me
        best, best_value = legal[0], -1e9
        for a in legal:
            r = t.point_route[a - base]
            if own:
                value = MY_PIECE_WEIGHT * mine[r] - 2 * opp[r] - 0.3 * free[r]
                if r == self._target:
                    value += 20.0  # the route it gathers its pieces on
            else:
                value = -3.0 * mine[r] + opp[r]
            value += self._noise()
            if value > best_value:
                best, best_value = a, value
        return best

    @staticmethod
    def _held(state) -> tuple:
        """The pieces a move frame holds (it puts down the first one next), if readable."""
        return tuple(state.held_pieces())

    def _held_piece(self, state) -> int | None:
        held = self._held(state)
        return held[0] if held else None

    # ---- markers
    def _best_develop(self, state, t: GameTables, me: int, legal: list[int]) -> int:
        base = t.base["DEVELOP"]
        options = [a for a in legal if t.kind_of[a] == "DEVELOP"]
        return max(options, key=lambda a: self._develop_value(state, t, me, a - base))

    def _permanent(self, state, t: GameTables, me: int, legal: list[int]) -> int:
        """A permanent marker's decision: use it (move, post in a green city, put pieces down)."""
        if t.base.get("PERM_USE", -1) in legal:
            return t.base["PERM_USE"]
        kinds = {t.kind_of[a] for a in legal}
        if "DEVELOP" in kinds:
            return self._best_develop(state, t, me, legal)
        mine, opp, free = self._route_counts(state, t, me)
        my_cities = self._my_cities(state, t, me)
        best, best_value = legal[-1], -1e9
        for a in legal:
            kind = t.kind_of[a]
            if kind == "GREEN_POST":
                c, piece = divmod(a - t.base[kind], 2)
                value = 3.0 - 0.5 * piece
                if state.controller_if_post(c, me) == me:
                    value += 2.5
                if c in my_cities or any(d in my_cities for d in t.city_neighbors[c]):
                    value += 1.0
            elif kind in ("ROUTE_PLACE", "COUNTRY_PLACE"):
                x, piece = divmod(a - t.base[kind], 2)
                r = t.point_route[x]
                value = MY_PIECE_WEIGHT * mine[r] - 2 * opp[r] - 0.3 * free[r] - 0.2 * piece
            elif kind == "COUNTRY_LIFT":
                r = t.point_route[a - t.base[kind]]
                value = opp[r] - mine[r]  # a piece stuck on a route others block
            else:
                continue
            value += self._noise()
            if value > best_value:
                best, best_value = a, value
        return best

    def _best_swap(self, state, t: GameTables, me: int) -> tuple[float, int]:
        """(gain, space) of the best swap of two adjacent posts for me; gain 0 when none helps."""
        best = (0.0, -1)
        all_filled = state.posts_filled()
        post = state.space_posts()
        for c, spaces in enumerate(t.city_spaces):
            filled = all_filled[c]
            if filled < 2:
                continue
            before = state.city_controller(c)
            for i in range(filled - 1):
                if post[spaces[i]] >> 1 == post[spaces[i + 1]] >> 1:
                    continue
                after = state.controller_if_exchange(spaces[i])
                gain = (after == me) - (before == me)
                if gain > best[0]:
                    best = (float(gain), spaces[i])
        return best

    def _best_exchange(self, state, t: GameTables, me: int, legal: list[int]) -> int | None:
        gain, space = self._best_swap(state, t, me)
        action = t.base["EXCHANGE"] + space
        if gain > 0 and action in legal:
            return action
        return None

    def _place_marker(self, state, t: GameTables, me: int, legal: list[int]) -> int:
        """Put a drawn marker on a route next to my posts, where I may pick it up again."""
        my_cities = self._my_cities(state, t, me)
        base = t.base["PLACE_MARKER"]
        best, best_value = legal[0], -1e9
        for a in legal:
            a_city, b_city = t.route_cities[a - base]
            value = (a_city in my_cities) + (b_city in my_cities) + self._noise()
            if value > best_value:
                best, best_value = a, value
        return best
