"""Action names and the state JSON of every generated game (docs/state-format.md), from its tables.

A generated module keeps its rules; writing and reading its state and naming its actions only read
its tables, so that code lives here once. The module hands its namespace (`CITY_NAMES`,
`ROUTE_POINTS`, `FRAME_NAMES`, `F_MOVE`, …, its `State` class and the rule functions the checks
ask: `_settle`, `_post_counts`, `_ability_value`) and its `SWITCHES` (which optional
parts of the rules the game has: `permanent`, `pawn`, `favour`, `missions`, …) to `StateJson` once,
at import. Reading checks every field (a located error naming the field's path), then the
invariants of a reachable position: conservation of pieces and markers, counters that agree with
the board, and a decision stack that play can build.
"""

from __future__ import annotations

from . import graph
from .serialize import StateReader

KIND_NAMES = ("trader", "merchant")
FAVOUR_TURN_NAMES = ("may_take", "acted", "taken")
# `end when … after turn | after round`: which end of the game an end trigger has set in motion
END_AFTER_NAMES = ("action", "turn", "round")  # "action": no delayed end pending
PAWN_FREE_MOVE_NAMES = ("before_first_action", "after_last_action", "used")
# No game puts anything near this many PP on the track; a bound keeps 10**30 out of the arithmetic.
TRACK_LIMIT = 1_000_000
# The switches of a generated module this code reads (codegen lists those on in `SWITCHES`)
SWITCH_NAMES = (
    "end_marker_supply_empty",
    "favour",
    "green_cities",
    "green_first_post_completes",
    "missions",
    "option_move_must_place_all",
    "pawn",
    "permanent",
    "permanent_move_tradesmen",
    "permissions",
    "x_chosen_develop",
    "x_draw_keep",
    "x_display",
    "x_end",
    "x_end_later",
    "x_order",
    "x_may_take",
    "x_params",
    "x_setup",
    "x_turns",
)
# The keys a decision frame may have, and the ones each kind of frame needs
FRAME_KEYS = (
    "cost",
    "route",
    "holding",
    "extras_left",
    "whose",
    "left",
    "phase",
    "to",
    "removed",
    "must_own_one",
    "ability",
    "picked",
    "unchanged",
)
FRAME_NEEDS = {
    "F_PAY": ("cost",),
    "F_DISPLACED": ("route", "holding", "extras_left"),
    "F_MOVE": ("whose", "left", "holding", "phase"),
    "F_REMOVE": ("whose", "to", "left", "removed"),
    "F_ROUTE": ("route",),
    "F_EXCHANGE": ("must_own_one",),
    "F_DEVELOP": ("ability",),
    "F_MARKERS": (),
    "F_PERMANENT": ("route", "left", "holding"),
    "F_PAWN": (),
    "F_FLIP": ("tile",),
    "F_TAKE_STOCK": ("left", "kinds"),
    "F_KEEP": ("drawn",),
    "F_DISPLAY": (),
}


class ModuleTables:
    """Attribute access to a generated module's namespace: live (the module's own dict), so a
    table replaced after import is the one read."""

    def __init__(self, namespace: dict) -> None:
        self.__dict__ = namespace


def _piece_name(code: int) -> str | None:
    return None if code < 0 else ("t", "m")[code & 1] + str(code >> 1)


class StateJson:
    """One game's action names, state JSON writer and checked reader, bound to its tables."""

    def __init__(self, namespace: dict) -> None:
        self.g = g = ModuleTables(namespace)
        switches = namespace["SWITCHES"]
        for name in SWITCH_NAMES:
            setattr(self, name, name in switches)
        self.route_labels = tuple(f"{g.CITY_NAMES[a]}–{g.CITY_NAMES[b]}" for a, b in g.ROUTE_CITIES)
        self.point_labels = tuple(
            f"{self.route_labels[r]} #{g.ROUTE_POINTS[r].index(x) + 1}"
            for x, r in enumerate(g.POINT_ROUTE)
        )
        self.action_names: dict[int, str] = {}
        # a piece's name by its code + 1 (-1, empty, is None): t0 m0 t1 m1 …
        self.piece_names = (None,) + tuple(
            _piece_name(code) for code in range(2 * max(g.PLAYER_COUNTS))
        )
        # per route: its cities' names in the board's order, and its points
        self.route_rows = tuple(
            ((g.CITY_NAMES[a], g.CITY_NAMES[b]), g.ROUTE_POINTS[r])
            for r, (a, b) in enumerate(g.ROUTE_CITIES)
        )
        self.route_index: dict[tuple[str, str], int] = {}
        for r, (a, b) in enumerate(g.ROUTE_CITIES):
            self.route_index[(g.CITY_NAMES[a], g.CITY_NAMES[b])] = r
            self.route_index[(g.CITY_NAMES[b], g.CITY_NAMES[a])] = r
        self.frame_needs = {
            namespace[kind]: need for kind, need in FRAME_NEEDS.items() if kind in namespace
        }
        # the frames whose third field is a route (a route created, a displaced piece's route, a
        # permanent marker's route)
        self.route_frames = tuple(
            namespace[kind]
            for kind in ("F_ROUTE", "F_DISPLACED", "F_PERMANENT")
            if kind in namespace
        )
        self.frame_keys = (
            FRAME_KEYS
            + (("marker",) if self.permanent else ())
            + (("tile",) if self.favour else ())
            + (("kinds",) if self.x_may_take else ())
            + (("drawn",) if self.x_draw_keep else ())
        )

    # ---- the empty position setup and reading start from
    def empty_state(self, num_players: int):
        """A State of `num_players` with nothing placed, supplied, developed or drawn: player 0's
        turn, no actions, no decision pending."""
        g = self.g
        n = num_players
        s = g.State()
        s.num_players = n
        s.player = 0
        s.ending = False
        s.terminal = False
        s.pt = [-1] * g.N_POINTS
        s.mask = list(g.FULL_MASK)
        s.full_owner = [-1] * g.N_ROUTES
        s.post = [-1] * g.N_SPACES
        s.filled = [0] * g.N_CITIES
        s.extra = [()] * g.N_CITIES
        s.special = [-1] * len(g.SPECIAL_POINTS)
        s.rmark = [-1] * g.N_ROUTES
        s.supply = [0] * (2 * n)
        s.stock = [0] * (2 * n)
        s.onboard = [0] * (2 * n)
        s.at = [[] for _ in range(n)]
        s.free = list(range(g.N_POINTS))
        s.free_house = list(g.HOUSE_POINTS)
        s.level = [0] * (g.NA * n)
        s.track = [0] * n
        s.unused = [()] * n
        s.used = [()] * n
        s.fresh = ()
        s.plate = ()
        s.out = ()
        s.completed = 0
        s.ew = ()
        s.stack = []
        if self.permissions:
            s.perm_used = ()  # permission cities used this turn
        if self.x_params:
            s.xparam = list(g.X_PARAM_DEFAULTS) * n
        if self.x_turns:
            s.turns = 1
        if self.x_end_later:
            s.end_after = 0  # an end trigger timed `after turn` (1) or `after round` (2) has fired
        if self.x_order:
            s.played = 1  # a turn order rule: the seats that began a turn this round (bits)
        return s

    # ---- action names
    def describe_action(
        self, kind: str, i: int, routes: tuple[str, ...], points: tuple[str, ...]
    ) -> str:
        g = self.g
        if kind == "END_TURN":
            return "end the turn"
        if kind == "INCOME":
            t, m = divmod(i, g.MERCHANTS + 1)
            return f"income: {t} traders, {m} merchants"
        if kind in ("PLACE", "DISPLACE"):
            x, k = divmod(i, 2)
            return f"{kind.lower()} {KIND_NAMES[k]} on {points[x]}"
        if kind == "MOVE":
            return "move own tradesmen"
        if kind == "CREATE":
            return f"create route {routes[i]}"
        if kind == "USE_MARKER":
            return f"use bonus marker {g.MARKER_LABELS[i]}"
        if kind == "PAY":
            return f"pay the displacement cost with {i} merchants"
        if kind == "PICK":
            return f"pick up the piece on {points[i]}"
        if kind == "DONE_PICKING":
            if not self.option_move_must_place_all:
                return (
                    "stop picking up (or, putting down, send the held pieces to the personal"
                    " supply)"
                )
            return "stop picking up"
        if kind == "DROP":
            return f"put the held piece on {points[i]}"
        if kind == "REMOVE":
            return f"remove the piece on {points[i]}"
        if kind == "DONE_REMOVING":
            return "stop removing"
        if kind in ("ESTABLISH", "ADDITIONAL"):
            c, k = divmod(i, 2)
            what = "a trading post" if kind == "ESTABLISH" else "an additional trading post"
            return f"establish {what} in {g.CITY_NAMES[c]} with a {KIND_NAMES[k]}"
        if kind == "DEVELOP":
            return f"develop {g.ABILITY_NAMES[i]}"
        if kind == "SPECIAL":
            return f"take special prestige space {i + 1} ({g.SPECIAL_POINTS[i]} PP)"
        if kind == "NO_POST":
            return "neither post nor ability: all route pieces to the stock"
        if kind == "EXCHANGE":
            c = g.SPACE_CITY[i]
            j = g.CITY_SPACES[c].index(i)
            return f"exchange the posts on spaces {j + 1} and {j + 2} of {g.CITY_NAMES[c]}"
        if kind == "PLACE_DISPLACED":
            return f"place the displaced piece on {points[i]}"
        if kind == "EXTRA":
            return f"take an extra {KIND_NAMES[i]}"
        if kind == "LIFT":
            return f"take the extra piece from {points[i]}"
        if kind == "DECLINE":
            if self.permanent:
                return "decline (further extra pieces, or the permanent marker)"
            return "decline further extra pieces"
        if self.permanent:
            if kind == "PERM_USE":
                return "use the permanent marker of the route just created"
            if kind == "GREEN_POST":
                c, k = divmod(i, 2)
                return f"establish a post in green city {g.CITY_NAMES[c]} with a {KIND_NAMES[k]}"
            if kind == "ROUTE_PLACE":
                x, k = divmod(i, 2)
                return f"put a {KIND_NAMES[k]} of the created route on {points[x]}"
            if kind == "COUNTRY_PLACE":
                x, k = divmod(i, 2)
                return f"put an own {KIND_NAMES[k]} on {points[x]}"
            if kind == "COUNTRY_LIFT":
                return f"take the own piece on {points[i]} to put it down elsewhere"
        if self.pawn:
            if kind == "PAWN":
                return f"pawn to {g.REGION_LABELS[i]}"
            if kind == "PAWN_PAY":
                return "move the pawn any distance (costs an action)"
        if self.favour:
            if kind == "FAVOUR":
                return f"take favour tile {g.FAVOUR_NAMES[i]!r} (flip 2 unused markers; no actions)"
            if kind == "FLIP":
                a, b = g.FLIP_PAIRS[i]
                return (
                    f"flip bonus markers {g.MARKER_LABELS[a]} and {g.MARKER_LABELS[b]} "
                    "for the favour tile"
                )
        if self.x_may_take and kind == "TAKE_PIECE":
            if i == 0:
                return "take no (further) piece from the general stock"
            return f"take a {KIND_NAMES[i - 1]} from the general stock to the personal supply"
        if self.x_draw_keep and kind == "KEEP_MARKER":
            return f"keep the drawn marker {g.MARKER_LABELS[i]} (the others go back to the supply)"
        if self.x_display and kind == "DISPLAY_MARKER":
            return f"take the face-up marker {g.MARKER_LABELS[i]} from the display"
        return f"place the drawn marker on {routes[i]}"

    def action_text(
        self,
        action: int,
        routes: tuple[str, ...] | None = None,
        points: tuple[str, ...] | None = None,
    ) -> str:
        """The text of an action id written with the given route and point labels (a game log's
        key names every route in one direction); `action_name` is it with the module's own
        labels."""
        routes = self.route_labels if routes is None else routes
        points = self.point_labels if points is None else points
        for kind, base, size in self.g.ACTION_RANGES:
            if base <= action < base + size:
                return self.describe_action(kind, action - base, routes, points)
        return f"<no action {action!r}>"

    def action_name(self, action: int) -> str:
        """A readable name for an action id (independent of the state), made when first asked
        for."""
        if (
            isinstance(action, bool)
            or not isinstance(action, int)
            or not 0 <= action < self.g.NUM_ACTIONS
        ):
            return f"<no action {action!r}>"
        name = self.action_names.get(action)
        if name is None:
            name = self.action_names[action] = self.action_text(action)
        return name

    # ---- writing
    def _marker_names(self, markers: tuple[int, ...]) -> list[str]:
        keys = self.g.MARKER_KEYS
        return [keys[m] for m in markers]

    def _route_cities(self, r: int) -> list[str]:
        g = self.g
        return [g.CITY_NAMES[c] for c in g.ROUTE_CITIES[r]]

    def _point_ref(self, x: int, code: int) -> dict:
        g = self.g
        r = g.POINT_ROUTE[x]
        return {
            "route": self._route_cities(r),
            "point": g.ROUTE_POINTS[r].index(x),
            "piece": _piece_name(code),
        }

    def _frame_to_dict(self, top: tuple) -> dict:
        g = self.g
        kind = top[0]
        out = {"frame": g.FRAME_NAMES[kind], "player": top[1]}
        if kind == g.F_PAY:
            out["cost"] = top[2]
        elif kind == g.F_DISPLACED:
            out["route"] = self._route_cities(top[2])
            out["holding"] = None if top[3] < 0 else KIND_NAMES[top[3]]
            out["extras_left"] = top[4]
        elif kind == g.F_MOVE:
            out["whose"] = g.WHOSE_NAMES[top[2]]
            out["left"] = top[3]
            out["holding"] = [_piece_name(c) for c in top[4]]
            out["phase"] = ("pick", "drop")[top[5]]
            out["picked"] = [self._point_ref(x, code) for x, code in top[6]]
            out["unchanged"] = top[7]
        elif kind == g.F_REMOVE:
            out["whose"] = g.WHOSE_NAMES[top[2]]
            out["to"] = ("personal_supply", "stock")[top[3]]
            out["left"] = top[4]
            out["removed"] = top[5]
        elif kind == g.F_ROUTE:
            out["route"] = self._route_cities(top[2])
        elif kind == g.F_EXCHANGE:
            out["must_own_one"] = top[2]
        elif kind == g.F_DEVELOP:
            out["ability"] = "any" if top[2] < 0 else g.ABILITY_NAMES[top[2]]
        elif self.permanent and kind == g.F_PERMANENT:
            out["route"] = self._route_cities(top[2])
            out["marker"] = g.PERMANENT_NAMES[g.ROUTE_PERMANENT[top[2]]]
            out["left"] = top[3]
            out["holding"] = None if top[4] < 0 else KIND_NAMES[top[4]]
        elif self.favour and kind == g.F_FLIP:
            out["tile"] = g.FAVOUR_NAMES[top[2]]
        elif self.x_may_take and kind == g.F_TAKE_STOCK:
            out["left"] = top[2]
            out["kinds"] = [KIND_NAMES[k] for k in (0, 1) if top[3] >> k & 1]
        elif self.x_draw_keep and kind == g.F_KEEP:
            out["drawn"] = [g.MARKER_KEYS[m] for m in top[2]]  # hidden from others (observation)
        return out

    def _routes_to_list(self, s) -> list[dict]:
        """Each route's cities, the pieces on its points and its marker (new lists every time:
        callers may change what they get)."""
        piece = self.piece_names
        keys = self.g.MARKER_KEYS
        pt, rmark = s.pt, s.rmark
        return [
            {
                "cities": list(pair),
                "points": [piece[pt[x] + 1] for x in points],
                "marker": None if rmark[r] < 0 else keys[rmark[r]],
            }
            for r, (pair, points) in enumerate(self.route_rows)
        ]

    def _cities_to_list(self, s) -> list[dict]:
        """Each city's posts from the left and its additional posts (a green city: its posts)."""
        g = self.g
        piece = self.piece_names
        post, extra = s.post, s.extra
        green = g.CITY_GREEN if self.green_cities else None
        out = []
        for c, (name, spaces) in enumerate(zip(g.CITY_NAMES, g.CITY_SPACES, strict=True)):
            if green is not None and green[c]:
                out.append({"name": name, "green": True, "posts": [piece[x + 1] for x in extra[c]]})
            else:
                out.append(
                    {
                        "name": name,
                        "posts": [piece[post[x] + 1] for x in spaces],
                        "additional_posts": [piece[code + 1] for code in extra[c]],
                    }
                )
        return out

    def to_dict(self, s) -> dict:
        """The state's JSON form (docs/state-format.md)."""
        g = self.g
        na = g.NA
        marker_names = self._marker_names
        piece = self.piece_names
        n = s.num_players
        players = []
        for p in range(n):
            players.append(
                {
                    "supply": {"traders": s.supply[2 * p], "merchants": s.supply[2 * p + 1]},
                    "stock": {"traders": s.stock[2 * p], "merchants": s.stock[2 * p + 1]},
                    "abilities": {g.ABILITY_NAMES[a]: s.level[p * na + a] for a in range(na)},
                    "track": s.track[p],
                    "markers": {
                        "unused": marker_names(s.unused[p]),
                        "used": marker_names(s.used[p]),
                    },
                }
            )
            if self.missions:
                players[-1]["mission"] = s.mission[p] + 1
            if self.x_params:
                players[-1]["parameters"] = {
                    name: s.xparam[p * g.N_X_PARAMS + i] for i, name in enumerate(g.X_PARAM_NAMES)
                }
        turn = {
            "player": s.player,
            "actions_left": s.actions_left,
            "game_ends_after_action": s.ending,
            "game_over": s.terminal,
            "markers_taken_this_action": marker_names(s.fresh),
            "markers_to_place": marker_names(s.plate),
        }
        if self.permissions:
            turn["permissions_used"] = [g.CITY_NAMES[c] for c in s.perm_used]
        if self.x_turns:
            turn["number"] = s.turns
        if self.x_end_later:
            turn["game_ends_after"] = END_AFTER_NAMES[s.end_after]
        if self.x_order:  # a turn order rule: who played this round, who plays next
            turn["played_this_round"] = [q for q in range(n) if s.played >> q & 1]
            turn["next_player"] = g._next_in_order(s)
        out = {
            "format": "hansa-state",
            "version": 1,
            "game": g.GAME_NAME,
            "players": n,
            "turn": turn,
            "player_state": players,
            "marker_supply": marker_names(s.msupply),
            "markers_out_of_game": marker_names(s.out),
            "completed_cities": s.completed,
            "east_west": list(s.ew),
            "routes": self._routes_to_list(s),
            "cities": self._cities_to_list(s),
            "special_prestige": [piece[code + 1] for code in s.special],
            "stack": [self._frame_to_dict(top) for top in s.stack],
        }
        if self.pawn:
            out["pawn"] = {
                "region": None if s.pawn < 0 else s.pawn,
                "free_move": PAWN_FREE_MOVE_NAMES[s.pawn_turn],
            }
        if self.x_display:  # the face-up markers: the first of the supply (public)
            out["marker_display"] = marker_names(s.msupply[: g.DISPLAY_SIZE])
        if self.favour:
            out["favour"] = {
                "face_up": [g.FAVOUR_NAMES[t] for t in s.fav_shown],
                "held": [[g.FAVOUR_NAMES[t] for t in s.fav_held[p]] for p in range(n)],
                "this_turn": FAVOUR_TURN_NAMES[s.fav_turn],
            }
        return out

    # ---- reading: every field checked, then the invariants of a reachable position
    @staticmethod
    def _read_piece(rd: StateReader, value, path: str, n: int) -> int:
        if value is None:
            return -1
        if isinstance(value, str) and len(value) >= 2 and value[0] in "tm" and value[1:].isdigit():
            p = int(value[1:])
            if p < n and str(p) == value[1:]:
                return 2 * p + (value[0] == "m")
        raise rd.fail(
            path,
            f"expected a piece like 't0' (trader of player 0) or 'm{n - 1}', or null, "
            f"got {rd.describe(value)}",
        )

    def _read_markers(self, rd: StateReader, value, path: str) -> tuple[int, ...]:
        items = rd.array(value, path)
        keys = self.g.MARKER_KEYS
        return tuple(sorted(rd.choice(v, f"{path}[{i}]", keys) for i, v in enumerate(items)))

    def _read_route(self, rd: StateReader, value, path: str) -> int:
        return self._read_route_direction(rd, value, path)[0]

    def _read_route_direction(self, rd: StateReader, value, path: str) -> tuple[int, bool]:
        """The route between two named cities, and whether they were named against the board's
        order."""
        g = self.g
        pair = rd.array(value, path, 2)
        key = (pair[0], pair[1])
        if not all(isinstance(v, str) for v in pair) or key not in self.route_index:
            raise rd.fail(
                path, f"no route between {rd.describe(pair[0])} and {rd.describe(pair[1])}"
            )
        r = self.route_index[key]
        return r, g.CITY_NAMES[g.ROUTE_CITIES[r][0]] != pair[0]

    def _read_point_ref(self, rd: StateReader, value, path: str, n: int) -> tuple[int, int]:
        g = self.g
        ref = rd.object(value, path, ("route", "point", "piece"))
        r, flipped = self._read_route_direction(rd, ref["route"], path + ".route")
        points = g.ROUTE_POINTS[r][::-1] if flipped else g.ROUTE_POINTS[r]
        j = rd.integer(ref["point"], path + ".point", 0, len(points) - 1)
        code = self._read_piece(rd, ref["piece"], path + ".piece", n)
        if code < 0:
            raise rd.fail(path + ".piece", "a picked piece cannot be null")
        return points[j], code

    def _read_frame(self, rd: StateReader, value, path: str, n: int) -> tuple:
        g = self.g
        head = rd.object(value, path, ("frame", "player"), self.frame_keys)
        kind = rd.choice(head["frame"], path + ".frame", g.FRAME_NAMES[1:]) + 1
        player = rd.integer(head["player"], path + ".player", 0, n - 1)
        need = self.frame_needs[kind]
        optional = ("picked", "unchanged") if kind == g.F_MOVE else ()
        if self.permanent and kind == g.F_PERMANENT:
            optional = ("marker",)
        rd.object(value, path, ("frame", "player") + need, optional)
        if kind == g.F_PAY:
            return (kind, player, rd.integer(head["cost"], path + ".cost", 1, max(g.DISPLACE_COST)))
        if kind == g.F_DISPLACED:
            route = self._read_route(rd, head["route"], path + ".route")
            holding = head["holding"]
            held = -1 if holding is None else rd.choice(holding, path + ".holding", KIND_NAMES)
            # a rule may raise a player's compensation (parameters): any count up to all pieces
            most = g.TRADERS + g.MERCHANTS if self.x_params else max(g.COMPENSATION)
            left = rd.integer(head["extras_left"], path + ".extras_left", 0, most)
            return (kind, player, route, held, left)
        if kind == g.F_MOVE:
            whose = rd.choice(head["whose"], path + ".whose", g.WHOSE_NAMES)
            left = rd.integer(head["left"], path + ".left", 0, g.N_POINTS)
            items = rd.array(head["holding"], path + ".holding")
            held = tuple(
                self._read_piece(rd, v, f"{path}.holding[{i}]", n) for i, v in enumerate(items)
            )
            if -1 in held:
                raise rd.fail(path + ".holding", "a held piece cannot be null")
            phase = rd.choice(head["phase"], path + ".phase", ("pick", "drop"))
            items = rd.array(head.get("picked", []), path + ".picked")
            picked = tuple(
                self._read_point_ref(rd, v, f"{path}.picked[{i}]", n) for i, v in enumerate(items)
            )
            unchanged = rd.boolean(head.get("unchanged", False), path + ".unchanged")
            return (kind, player, whose, left, held, phase, picked, unchanged)
        if kind == g.F_REMOVE:
            whose = rd.choice(head["whose"], path + ".whose", g.WHOSE_NAMES[1:]) + 1
            to = rd.choice(head["to"], path + ".to", ("personal_supply", "stock"))
            left = rd.integer(head["left"], path + ".left", 0, g.N_POINTS)
            removed = rd.integer(head["removed"], path + ".removed", 0, g.N_POINTS)
            return (kind, player, whose, to, left, removed)
        if kind == g.F_ROUTE:
            return (kind, player, self._read_route(rd, head["route"], path + ".route"))
        if kind == g.F_EXCHANGE:
            return (kind, player, rd.boolean(head["must_own_one"], path + ".must_own_one"))
        if kind == g.F_DEVELOP:
            which = rd.choice(head["ability"], path + ".ability", ("any",) + g.ABILITY_NAMES) - 1
            return (kind, player, which)
        if self.permanent and kind == g.F_PERMANENT:
            route = self._read_route(rd, head["route"], path + ".route")
            if g.ROUTE_PERMANENT[route] < 0:
                raise rd.fail(path + ".route", "this route has no permanent marker")
            left = rd.integer(head["left"], path + ".left", 0, g.N_POINTS)
            holding = head["holding"]
            held = -1 if holding is None else rd.choice(holding, path + ".holding", KIND_NAMES)
            return (kind, player, route, left, held)
        if self.favour and kind == g.F_FLIP:
            return (kind, player, rd.choice(head["tile"], path + ".tile", g.FAVOUR_NAMES))
        if self.x_may_take and kind == g.F_TAKE_STOCK:
            return self._read_take_stock(rd, head, path, kind, player)
        if self.x_draw_keep and kind == g.F_KEEP:
            return (kind, player, self._read_markers(rd, head["drawn"], path + ".drawn"))
        return (kind, player)

    def _read_take_stock(self, rd: StateReader, head: dict, path: str, kind: int, player: int):
        """A choice left by `you may take N pieces from the stock`: how many, and of which kinds."""
        left = rd.integer(head["left"], path + ".left", 1, self.g.TRADERS + self.g.MERCHANTS)
        items = rd.array(head["kinds"], path + ".kinds")
        kinds = 0
        for i, v in enumerate(items):
            bit = 1 << rd.choice(v, f"{path}.kinds[{i}]", KIND_NAMES)
            if kinds & bit:
                raise rd.fail(f"{path}.kinds[{i}]", "a kind is listed twice")
            kinds |= bit
        if not kinds:
            raise rd.fail(path + ".kinds", "name the kinds that may be taken")
        return (kind, player, left, kinds)

    def from_dict(self, data: dict, num_players: int):
        """Build a State from its JSON form, checking every field and then every invariant."""
        g = self.g
        rd = StateReader()
        top = rd.object(
            data,
            "",
            ("format", "version", "game", "players", "turn", "player_state"),
            (
                "marker_supply",
                "markers_out_of_game",
                "completed_cities",
                "east_west",
                "routes",
                "cities",
                "special_prestige",
                "stack",
            )
            + (("pawn",) if self.pawn else ())
            + (("favour",) if self.favour else ())
            + (("marker_display",) if self.x_display else ()),
        )
        if top["format"] != "hansa-state":
            raise rd.fail("format", f"expected 'hansa-state', got {rd.describe(top['format'])}")
        rd.integer(top["version"], "version", 1, 1)
        if top["game"] != g.GAME_NAME:
            raise rd.fail(
                "game", f"this is the module of {g.GAME_NAME!r}, not {rd.describe(top['game'])}"
            )
        n = rd.integer(top["players"], "players", 2, 5)
        if n != num_players:
            raise rd.fail(
                "players", f"the state has {n} players but the game was loaded for {num_players}"
            )
        if n not in g.PLAYER_COUNTS:
            raise rd.fail("players", f"{g.GAME_NAME} is not played by {n}")
        s = self.empty_state(n)
        self._read_turn(rd, s, top)
        self._read_players(rd, s, top["player_state"])
        self._read_routes(rd, s, top.get("routes", []))
        self._read_cities(rd, s, top.get("cities", []))
        special = rd.array(
            top.get("special_prestige", [None] * len(g.SPECIAL_POINTS)),
            "special_prestige",
            len(g.SPECIAL_POINTS),
        )
        s.special = [
            self._read_piece(rd, v, f"special_prestige[{j}]", n) for j, v in enumerate(special)
        ]
        for j, code in enumerate(s.special):
            if code >= 0 and not code & 1:
                raise rd.fail(
                    f"special_prestige[{j}]", "special prestige spaces hold merchants only"
                )
        s.stack = [
            self._read_frame(rd, v, f"stack[{i}]", n)
            for i, v in enumerate(rd.array(top.get("stack", []), "stack"))
        ]
        if self.pawn:
            self._read_pawn(
                rd, s, top.get("pawn", {"region": 0, "free_move": "before_first_action"})
            )
        if self.favour:
            self._read_favour(rd, s, top.get("favour", {}))
        self._check_invariants(rd, s)
        return s

    @staticmethod
    def _read_played(rd: StateReader, turn: dict, player: int, n: int) -> int:
        """`turn.played_this_round` (a turn order rule): distinct seats, the current player
        among them (default: the seats up to the current player, as in seat order)."""
        path = "turn.played_this_round"
        seats = rd.array(turn.get("played_this_round", list(range(player + 1))), path)
        played = 0
        for i, seat in enumerate(seats):
            q = rd.integer(seat, f"{path}[{i}]", 0, n - 1)
            if played >> q & 1:
                raise rd.fail(f"{path}[{i}]", f"seat {q} is listed twice")
            played |= 1 << q
        if not played >> player & 1:
            raise rd.fail(path, f"must list the player whose turn it is ({player})")
        return played

    def _read_turn(self, rd: StateReader, s, top: dict) -> None:
        """`turn`, the bonus markers in play and out of it, completed cities, East-West."""
        g = self.g
        n = s.num_players
        turn = rd.object(
            top["turn"],
            "turn",
            ("player", "actions_left"),
            (
                "game_ends_after_action",
                "game_over",
                "markers_taken_this_action",
                "markers_to_place",
            )
            + (("permissions_used",) if self.permissions else ())
            + (("number",) if self.x_turns else ())
            + (("game_ends_after",) if self.x_end_later else ())
            + (("played_this_round", "next_player") if self.x_order else ()),
        )
        if self.x_turns:
            s.turns = rd.integer(turn.get("number", 1), "turn.number", 1, 10**9)
        if self.x_end_later:
            s.end_after = rd.choice(
                turn.get("game_ends_after", "action"), "turn.game_ends_after", END_AFTER_NAMES
            )
        s.player = rd.integer(turn["player"], "turn.player", 0, n - 1)
        if self.x_order:
            s.played = self._read_played(rd, turn, s.player, n)
        s.actions_left = rd.integer(turn["actions_left"], "turn.actions_left", 0, 1000)
        s.ending = rd.boolean(
            turn.get("game_ends_after_action", False), "turn.game_ends_after_action"
        )
        s.terminal = rd.boolean(turn.get("game_over", False), "turn.game_over")
        s.fresh = self._read_markers(
            rd, turn.get("markers_taken_this_action", []), "turn.markers_taken_this_action"
        )
        plate = rd.array(turn.get("markers_to_place", []), "turn.markers_to_place")
        s.plate = tuple(
            rd.choice(v, f"turn.markers_to_place[{i}]", g.MARKER_KEYS) for i, v in enumerate(plate)
        )
        supply = rd.array(top.get("marker_supply", []), "marker_supply")
        s.msupply = tuple(
            rd.choice(v, f"marker_supply[{i}]", g.MARKER_KEYS) for i, v in enumerate(supply)
        )
        if self.x_display and "marker_display" in top:  # optional: the supply says it already
            shown = rd.array(top["marker_display"], "marker_display")
            if shown != supply[: g.DISPLAY_SIZE]:
                raise rd.fail(
                    "marker_display",
                    f"the display is the first {g.DISPLAY_SIZE} markers of marker_supply",
                )
        if self.permissions:
            used = rd.array(turn.get("permissions_used", []), "turn.permissions_used")
            grantors = tuple(g.CITY_NAMES[c] for c, _bits in g.PERMISSION_CITIES)
            s.perm_used = tuple(
                g.PERMISSION_CITIES[rd.choice(v, f"turn.permissions_used[{i}]", grantors)][0]
                for i, v in enumerate(used)
            )
            if len(set(s.perm_used)) != len(s.perm_used):
                raise rd.fail("turn.permissions_used", "a permission city is listed twice")
        s.out = self._read_markers(rd, top.get("markers_out_of_game", []), "markers_out_of_game")
        s.completed = rd.integer(top.get("completed_cities", 0), "completed_cities", 0, g.N_CITIES)
        ew = rd.array(top.get("east_west", []), "east_west")
        s.ew = tuple(rd.integer(v, f"east_west[{i}]", 0, n - 1) for i, v in enumerate(ew))

    def _read_players(self, rd: StateReader, s, value) -> None:
        """`player_state`: supplies, abilities, track, markers (and mission, parameters)."""
        g = self.g
        n = s.num_players
        na = g.NA
        players = rd.array(value, "player_state", n)
        missions: list[int] = []
        optional = (
            ("markers",)
            + (("mission",) if self.missions else ())
            + (("parameters",) if self.x_params else ())
        )
        for p, entry in enumerate(players):
            path = f"player_state[{p}]"
            entry = rd.object(entry, path, ("supply", "stock", "abilities", "track"), optional)
            if self.missions:
                missions.append(
                    rd.integer(
                        entry.get("mission", p + 1), f"{path}.mission", 1, len(g.MISSION_CARDS)
                    )
                    - 1
                )
            if self.x_params:
                given = rd.object(
                    entry.get("parameters", {}), f"{path}.parameters", (), g.X_PARAM_NAMES
                )
                # each value's range: a parameter -1..1,000; a declared counter 0..1,000 and a
                # flag 0..1 (X_PARAM_LOW/HIGH, written when a rule set declares one)
                low = getattr(g, "X_PARAM_LOW", (-1,) * g.N_X_PARAMS)
                high = getattr(g, "X_PARAM_HIGH", (1000,) * g.N_X_PARAMS)
                for i, name in enumerate(g.X_PARAM_NAMES):
                    s.xparam[p * g.N_X_PARAMS + i] = rd.integer(
                        given.get(name, g.X_PARAM_DEFAULTS[i]),
                        f"{path}.parameters.{name}",
                        low[i],
                        high[i],
                    )
            for zone, target in (("supply", s.supply), ("stock", s.stock)):
                counts = rd.object(entry[zone], f"{path}.{zone}", ("traders", "merchants"))
                target[2 * p] = rd.integer(
                    counts["traders"], f"{path}.{zone}.traders", 0, g.TRADERS
                )
                target[2 * p + 1] = rd.integer(
                    counts["merchants"], f"{path}.{zone}.merchants", 0, g.MERCHANTS
                )
            abilities = rd.object(entry["abilities"], f"{path}.abilities", g.ABILITY_NAMES)
            for a, name in enumerate(g.ABILITY_NAMES):
                s.level[p * na + a] = rd.integer(
                    abilities[name], f"{path}.abilities.{name}", 0, g.ABILITY_MAX[a]
                )
            s.track[p] = rd.integer(entry["track"], f"{path}.track", 0, TRACK_LIMIT)
            markers = rd.object(
                entry.get("markers", {"unused": [], "used": []}),
                f"{path}.markers",
                (),
                ("unused", "used"),
            )
            s.unused[p] = self._read_markers(
                rd, markers.get("unused", []), f"{path}.markers.unused"
            )
            s.used[p] = self._read_markers(rd, markers.get("used", []), f"{path}.markers.used")
        if self.missions:
            if len(set(missions)) != n:
                raise rd.fail("player_state", "each player holds a different mission card")
            s.mission = tuple(missions)

    def _read_routes(self, rd: StateReader, s, value) -> None:
        """`routes`: the pieces on each route's points (in either direction) and its marker."""
        g = self.g
        n = s.num_players
        seen_routes = set()
        for i, entry in enumerate(rd.array(value, "routes")):
            path = f"routes[{i}]"
            entry = rd.object(entry, path, ("cities",), ("points", "marker"))
            r, flipped = self._read_route_direction(rd, entry["cities"], path + ".cities")
            if r in seen_routes:
                raise rd.fail(path, f"route {self.route_labels[r]} is listed twice")
            seen_routes.add(r)
            points = rd.array(
                entry.get("points", [None] * len(g.ROUTE_POINTS[r])),
                path + ".points",
                len(g.ROUTE_POINTS[r]),
            )
            order = g.ROUTE_POINTS[r][::-1] if flipped else g.ROUTE_POINTS[r]
            for j, value in enumerate(points):
                code = self._read_piece(rd, value, f"{path}.points[{j}]", n)
                x = order[j]
                if code >= 0:
                    if g.POINT_MERCHANT_ONLY[x] and not code & 1:
                        raise rd.fail(f"{path}.points[{j}]", "a ship point holds merchants only")
                    g._put(s, x, code)
            marker = entry.get("marker")
            if marker is not None:
                s.rmark[r] = rd.choice(marker, path + ".marker", g.MARKER_KEYS)

    def _read_cities(self, rd: StateReader, s, value) -> None:
        """`cities`: posts from the left without gaps, additional posts (green cities: posts)."""
        g = self.g
        n = s.num_players
        seen_cities = set()
        keys = ("posts", "additional_posts") + (("green",) if self.green_cities else ())
        for i, entry in enumerate(rd.array(value, "cities")):
            path = f"cities[{i}]"
            entry = rd.object(entry, path, ("name",), keys)
            c = rd.choice(entry["name"], path + ".name", g.CITY_NAMES)
            if c in seen_cities:
                raise rd.fail(path, f"city {g.CITY_NAMES[c]} is listed twice")
            seen_cities.add(c)
            if self.green_cities:
                if g.CITY_GREEN[c]:  # a green city: its posts, left to right, without spaces
                    rd.object(entry, path, ("name",), ("posts", "green"))
                    posts = rd.array(entry.get("posts", []), path + ".posts")
                    s.extra[c] = tuple(
                        self._read_piece(rd, v, f"{path}.posts[{j}]", n)
                        for j, v in enumerate(posts)
                    )
                    if -1 in s.extra[c]:
                        raise rd.fail(path + ".posts", "a green city's post cannot be null")
                    continue
                if "green" in entry:
                    raise rd.fail(path + ".green", f"{g.CITY_NAMES[c]} is not a green city")
            spaces = g.CITY_SPACES[c]
            posts = rd.array(entry.get("posts", [None] * len(spaces)), path + ".posts", len(spaces))
            filled = 0
            for j, value in enumerate(posts):
                code = self._read_piece(rd, value, f"{path}.posts[{j}]", n)
                if code >= 0:
                    if j != filled:
                        raise rd.fail(
                            f"{path}.posts[{j}]", "posts fill a city from the left, without gaps"
                        )
                    filled += 1
                    s.post[spaces[j]] = code
            s.filled[c] = filled
            extra = rd.array(entry.get("additional_posts", []), path + ".additional_posts")
            s.extra[c] = tuple(
                self._read_piece(rd, v, f"{path}.additional_posts[{j}]", n)
                for j, v in enumerate(extra)
            )
            if -1 in s.extra[c]:
                raise rd.fail(path + ".additional_posts", "an additional post cannot be null")
            if s.extra[c] and not filled:
                raise rd.fail(
                    path + ".additional_posts", "additional posts need the leftmost space occupied"
                )

    def _read_favour(self, rd: StateReader, s, value) -> None:
        """`favour`: the face-up tiles, each player's tiles, and whether a tile may still be
        taken."""
        names = self.g.FAVOUR_NAMES
        favour = rd.object(value, "favour", (), ("face_up", "held", "this_turn"))
        shown = rd.array(favour.get("face_up", []), "favour.face_up")
        s.fav_shown = tuple(
            sorted(rd.choice(v, f"favour.face_up[{i}]", names) for i, v in enumerate(shown))
        )
        held = rd.array(favour.get("held", [[]] * s.num_players), "favour.held", s.num_players)
        s.fav_held = []
        for p, tiles in enumerate(held):
            tiles = rd.array(tiles, f"favour.held[{p}]")
            s.fav_held.append(
                tuple(
                    sorted(
                        rd.choice(v, f"favour.held[{p}][{i}]", names) for i, v in enumerate(tiles)
                    )
                )
            )
        every = list(s.fav_shown) + [t for tiles in s.fav_held for t in tiles]
        if len(set(every)) != len(every):
            raise rd.fail("favour", "a favour tile is listed twice (face up or held)")
        s.fav_turn = rd.choice(
            favour.get("this_turn", "may_take"), "favour.this_turn", FAVOUR_TURN_NAMES
        )
        if s.fav_turn == 2 and s.actions_left:
            raise rd.fail(
                "favour.this_turn", "a player who took a tile this turn has no actions left"
            )

    def _read_pawn(self, rd: StateReader, s, value) -> None:
        """`pawn`: its region (null while the last seat is still to place it) and the free move."""
        pawn = rd.object(value, "pawn", ("region",), ("free_move",))
        region = pawn["region"]
        s.pawn = (
            -1 if region is None else rd.integer(region, "pawn.region", 0, self.g.N_REGIONS - 1)
        )
        s.pawn_turn = rd.choice(
            pawn.get("free_move", "before_first_action"), "pawn.free_move", PAWN_FREE_MOVE_NAMES
        )
        if s.pawn < 0 and (
            s.player != s.num_players - 1 or s.actions_left or s.stack or s.pawn_turn
        ):
            raise rd.fail(
                "pawn.region",
                "the pawn is unplaced only at setup: turn.player is the last seat, with 0 actions"
                " left, no pending decisions and free_move before_first_action",
            )

    # ---- the invariants of a reachable position
    def _check_invariants(self, rd: StateReader, s) -> None:
        """Conservation of pieces and markers and the counters a reachable position agrees with."""
        g = self.g
        self._check_frame_players(rd, s)
        self._check_pieces(rd, s)
        self._check_markers(rd, s)
        if self.green_cities:
            if self.green_first_post_completes:
                complete = sum(
                    1
                    for c in range(g.N_CITIES)
                    if (bool(s.extra[c]) if g.CITY_GREEN[c] else s.filled[c] == g.CITY_SIZE[c])
                )
            else:
                complete = sum(
                    1
                    for c in range(g.N_CITIES)
                    if not g.CITY_GREEN[c] and s.filled[c] == g.CITY_SIZE[c]
                )
        else:
            complete = sum(1 for c in range(g.N_CITIES) if s.filled[c] == g.CITY_SIZE[c])
        if complete != s.completed:
            raise rd.fail(
                "completed_cities", f"{s.completed} given but {complete} cities are complete"
            )
        if len(set(s.ew)) != len(s.ew) or len(s.ew) > len(g.EAST_WEST_AWARDS):
            raise rd.fail(
                "east_west", "each player completes the East-West connection at most once"
            )
        for p in s.ew:
            counts = g._post_counts(s, p)
            if not graph.connected(counts, g.CITY_NEIGHBORS, g.EAST_WEST[0], g.EAST_WEST[1]):
                raise rd.fail("east_west", f"player {p} has no East-West connection")
        if s.terminal and s.stack:
            raise rd.fail("stack", "a finished game has no pending decisions")
        if (s.terminal or s.ending) and not self._end_condition_met(s):
            field = "turn.game_over" if s.terminal else "turn.game_ends_after_action"
            raise rd.fail(field, "no end condition of the game is met in this position")
        self._check_stack_shape(rd, s)
        if not s.terminal:
            # A hand-written position may leave a forced step pending (an empty frame, a turn with
            # no actions left): resolve it the way play would, then it must offer a decision.
            g._settle(s)
            if not s.terminal and not s._legal():
                raise rd.fail("stack", "the position has no legal decision")

    def _check_frame_players(self, rd: StateReader, s) -> None:
        """Only the active player decides a frame (a displaced piece's owner excepted)."""
        g = self.g
        # A rule at setup may leave each seat an ability to choose (a develop frame of any seat).
        any_seat = (g.F_DISPLACED, g.F_DEVELOP) if self.x_setup and self.x_chosen_develop else None
        for i, top in enumerate(s.stack):
            if self.x_may_take and top[0] == g.F_TAKE_STOCK:
                continue  # a triggered effect's choice may be any player's
            if any_seat is not None:
                other = top[0] not in any_seat and top[1] != s.player
            else:
                other = top[0] != g.F_DISPLACED and top[1] != s.player
            if other:
                raise rd.fail(
                    f"stack[{i}].player", f"only the active player {s.player} decides this frame"
                )

    def _held_pieces(self, s) -> list[int]:
        """Per piece code, the pieces held by pending decisions (displaced, moved, permanent)."""
        g = self.g
        held = [0] * (2 * s.num_players)
        for top in s.stack:
            if top[0] == g.F_DISPLACED and top[3] >= 0:
                held[2 * top[1] + top[3]] += 1
            if top[0] == g.F_MOVE:
                for code in top[4]:
                    held[code] += 1
            if self.permanent and top[0] == g.F_PERMANENT and top[4] >= 0:
                held[2 * top[1] + top[4]] += 1
        return held

    def _check_pieces(self, rd: StateReader, s) -> None:
        """Each player's pieces in all zones add up to the pieces the player owns."""
        g = self.g
        n = s.num_players
        na = g.NA
        held = self._held_pieces(s)
        on_posts = [0] * (2 * n)
        for code in s.post:
            if code >= 0:
                on_posts[code] += 1
        for codes in s.extra:
            for code in codes:
                on_posts[code] += 1
        for code in s.special:
            if code >= 0:
                on_posts[code] += 1
        for p in range(n):
            for kind, total, name in ((0, g.TRADERS, "traders"), (1, g.MERCHANTS, "merchants")):
                code = 2 * p + kind
                on_tracks = sum(
                    g.ABILITY_MAX[a] - s.level[p * na + a]
                    for a in range(na)
                    if g.ABILITY_KIND[a] == kind
                )
                marker = 1 if g.SCORE_MARKER == kind else 0
                count = (
                    s.supply[code]
                    + s.stock[code]
                    + s.onboard[code]
                    + on_posts[code]
                    + held[code]
                    + on_tracks
                    + marker
                )
                if count != total:
                    raise rd.fail(
                        f"player_state[{p}]",
                        f"player {p} has {count} {name} in all zones (supply, stock, routes, "
                        f"posts, ability tracks, score marker, held) but owns exactly {total}",
                    )

    def _check_markers(self, rd: StateReader, s) -> None:
        """Each bonus-marker type is in play exactly as often as the game has it."""
        g = self.g
        counts = [0] * g.N_MARKER_TYPES
        drawn = [top[2] for top in s.stack if self.x_draw_keep and top[0] == g.F_KEEP]
        for group in [s.fresh, s.plate, s.msupply, s.out, *s.unused, *s.used, *drawn]:
            for m in group:
                counts[m] += 1
        for m in s.rmark:
            if m >= 0:
                counts[m] += 1
        for m in range(g.N_MARKER_TYPES):
            if counts[m] != g.MARKER_COUNT[m]:
                raise rd.fail(
                    "marker_supply",
                    f"{counts[m]} bonus markers {g.MARKER_KEYS[m]!r} in all places (supply, "
                    f"routes, players, plate, drawn, out of game) but the game has"
                    f" {g.MARKER_COUNT[m]}",
                )

    def _end_condition_met(self, s) -> bool:
        """Whether some end trigger of the rule set holds (what a game over or ending needs)."""
        if self.end_marker_supply_empty and not s.msupply:
            return True
        if self.x_end_later and s.end_after:  # a timed trigger fired earlier in the turn/round
            return True
        return bool(self.x_end and self.g._x_end(s, s.player))

    def _frame_problem(self, s, top: tuple) -> tuple[str, str] | None:
        """(field, problem) when a frame is not one the rules can build: a move or removal bigger
        than the Book or the marker allows, or a marker frame without a used marker of that type."""
        g = self.g
        kind, p = top[0], top[1]
        used = set(s.used[p])
        if kind == g.F_MOVE:
            _, _, whose, left, held, _phase, picked, _ = top
            if whose == 0:
                limit = g._ability_value(s, p, g.AB_MOVE_COUNT)
                source = f"the Book allows {limit}"
            else:
                limits = [
                    c for m, c, w in g.MOVE_MARKERS if m in used and g.WHOSE_NAMES.index(w) == whose
                ]
                if self.permanent_move_tradesmen:
                    # a permanent marker's move (it replaces the marker's frame; no marker is used)
                    limits += [a for k, a, w in g.PERMANENT if k == g.PK_MOVE and w == whose]
                if not limits:
                    return (
                        "whose",
                        f"no used move marker of player {p} moves {g.WHOSE_NAMES[whose]}",
                    )
                limit = max(limits)
                source = f"the marker allows {limit}"
            if left + max(len(picked), len(held)) > limit:
                return ("left", f"{left} left and {len(picked)} picked, but {source}")
            codes = tuple(code for _x, code in picked)
            if picked and codes[len(codes) - len(held) :] != held:
                return ("holding", "the held pieces are the last ones picked, in order")
            if whose == 1 and any(code >> 1 == p for code in codes):
                return ("picked", "this move picks opponents' pieces only")
        elif kind == g.F_REMOVE:
            _, _, whose, to, left, removed = top
            limits = [
                c
                for m, c, w, t in g.REMOVE_MARKERS
                if m in used
                and g.WHOSE_NAMES.index(w) == whose
                and ("personal", "stock").index(t) == to
            ]
            if not limits:
                return ("whose", f"no used remove marker of player {p} fits this frame")
            if left + removed > max(limits):
                limit = max(limits)
                return ("left", f"{left} left and {removed} removed, but the marker allows {limit}")
        elif kind == g.F_DEVELOP:
            if self.x_chosen_develop and top[2] == -1:
                return None  # a rule in words lets the player choose (`develop an ability`)
            if not any(m in used and which == top[2] for m, which in g.DEVELOP_MARKERS):
                return ("ability", f"no used develop marker of player {p} develops that")
        elif kind == g.F_EXCHANGE:
            if not any(m in used and must == top[2] for m, must in g.EXCHANGE_MARKERS):
                return ("must_own_one", f"no used exchange marker of player {p} fits this frame")
        elif self.x_may_take and kind == g.F_TAKE_STOCK:
            return g._take_stock_problem(s, top)
        return None

    def _check_stack_shape(self, rd: StateReader, s) -> None:
        """Only stacks play builds: one frame, or a displacement payment above its displaced
        frame."""
        g = self.g
        kinds = [top[0] for top in s.stack]
        # Below them, choices left by triggered effects and `after` hooks wait for the action
        # to finish: pieces to take, an ability to choose.
        later = {g.F_TAKE_STOCK} if self.x_may_take else set()
        if self.x_chosen_develop:
            later.add(g.F_DEVELOP)
        waiting = 0
        while waiting < len(kinds) - 1 and kinds[waiting] in later:
            waiting += 1
        if waiting:
            kinds = kinds[waiting:]
        if self.x_chosen_develop and kinds and all(k == g.F_DEVELOP for k in kinds):
            # rules in words: each seat chooses an ability at setup, or one rule after another
            return
        # `draw N keep 1`: the choice of the drawn marker comes before the route's step 3
        drawing = [[g.F_ROUTE, g.F_KEEP]] if self.x_draw_keep else []
        if self.x_display:  # likewise the choice from the display
            drawing = [[g.F_ROUTE, g.F_DISPLAY]]
        if len(kinds) > 2 or (
            len(kinds) == 2 and kinds != [g.F_DISPLACED, g.F_PAY] and kinds not in drawing
        ):
            shown = ", ".join(g.FRAME_NAMES[k] for k in kinds)
            raise rd.fail("stack", f"no play leaves the decisions [{shown}] pending")
        if kinds == [g.F_PAY]:
            raise rd.fail(
                "stack[0]", "a displacement cost is paid while the displaced piece is held"
            )
        if kinds == [g.F_DISPLACED, g.F_PAY]:
            below, pay = s.stack[-2:] if self.x_may_take else s.stack
            if (
                below[3] < 0
                or pay[2] != g.DISPLACE_COST[below[3]]
                or below[4] != g.COMPENSATION[below[3]]
            ):
                raise rd.fail(
                    "stack", "a pending payment keeps the displaced piece, cost and extras"
                )
        for i, top in enumerate(s.stack):
            self._check_frame(rd, s, top, f"stack[{i}]")
        fresh_kinds = (
            ([g.F_ROUTE], [g.F_PERMANENT], [g.F_MOVE]) if self.permanent else ([g.F_ROUTE],)
        ) + tuple(drawing)
        if s.fresh and kinds not in fresh_kinds:
            raise rd.fail(
                "turn.markers_taken_this_action", "markers are only taken while creating a route"
            )

    def _check_frame(self, rd: StateReader, s, top: tuple, path: str) -> None:
        """One frame of the stack: what its kind says of the position around it."""
        g = self.g
        problem = self._frame_problem(s, top)
        if problem is not None:
            raise rd.fail(f"{path}.{problem[0]}", problem[1])
        if top[0] == g.F_DISPLACED and top[1] == s.player:
            raise rd.fail(path + ".player", "the turn player cannot be the displaced player")
        if top[0] == g.F_ROUTE:
            owner = s.full_owner[top[2]]
            if owner != top[1]:
                raise rd.fail(path + ".route", "the route must be full of the creator's pieces")
        if top[0] == g.F_MOVE and top[5] == 1 and not top[4]:
            raise rd.fail(path + ".holding", "the drop phase of a move holds pieces")
        if top[0] == g.F_MOVE:
            for _x, code in top[6]:
                if top[2] == 0 and code >> 1 != top[1]:
                    raise rd.fail(path + ".picked", "a move picks the mover's own pieces")
        if self.pawn and top[0] == g.F_PAWN and (top[1] != s.player or s.pawn < 0):
            raise rd.fail(path, "only the turn player moves the placed pawn")
        if top[0] == g.F_MARKERS and not s.plate:
            raise rd.fail(path, "no drawn markers to place (turn.markers_to_place is empty)")
        if self.x_draw_keep and top[0] == g.F_KEEP and len(set(top[2])) < 2:
            raise rd.fail(path + ".drawn", "a choice of the marker kept needs two kinds drawn")
        if self.x_display and top[0] == g.F_DISPLAY:
            if len(set(s.msupply[: g.DISPLAY_SIZE])) < 2:
                raise rd.fail(path, "a choice from the display needs two kinds face up")
            if top[1] != s.player:
                raise rd.fail(path + ".player", "the turn player chooses from the display")
        if self.favour and top[0] == g.F_FLIP:
            if top[1] != s.player or s.fav_turn != 2 or top[2] not in s.fav_held[top[1]]:
                raise rd.fail(
                    path,
                    "markers are flipped by the turn player for the tile taken this turn"
                    " (favour.this_turn 'taken', the tile among the player's)",
                )
            if len(s.unused[top[1]]) < 2:
                raise rd.fail(path, "flipping needs 2 unused markers")
