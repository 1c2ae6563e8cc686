"""The observation tensor of every generated game, written from the module's own tables.

A generated module keeps its rules; what every game shares about the tensor lives here. The module
hands its namespace (its tables: `N_POINTS`, `FRAME_NAMES`, `F_MOVE`, … and, where the game has
them, `MISSION_CARDS`, `N_FAVOUR`/`F_FLIP`, `F_TAKE_STOCK`) to `TensorCodec`, which knows the layout
(docs/game-api.md, "Observations") and the state's field conventions (the template's `pt`, `post`,
`stack`, …).

Two ways to write a tensor into a float32 buffer (a numpy array, or a memoryview of one), with
the same values:
- `TensorCodec.encode(state, player, out)`: one tensor, from nothing.
- `TensorWriter.write(state, player, out)`: for a learner stepping a game. The writer keeps,
  per observer, a buffer and the state's fields as it last wrote them, and patches only what
  changed since (a decision changes a point or two, the decision frame and a counter). Any state
  may be passed at any time (another game, a clone, a reset): the writer compares values, never
  trusts identity of the state object, so it is exact for every sequence of states.

Owners are relative to the observer (owner 0 = the observer, 1 = the next seat, …), so the same
fact lands at different offsets for different observers; each observer has its own buffer.
Standard library only, like all of the runtime: the buffers are the caller's (the generated
module's `observation_tensor` makes a numpy array when none is given) or `array.array`s.
"""

from __future__ import annotations

import array
import operator

from .errors import HansaError

EMPTY = -1  # an empty point or space (the template's piece code)
COUNT_LIMIT = float(1 << 24)  # the largest whole number a float32 holds exactly
FRAME_MEMO = 4096  # frames whose spans are remembered per observer (then it starts again)
_KIND_AND_PLAYER = operator.itemgetter(0, 1)
# The blocks whose entries are 0 or 1 (the others count)
FLAG_BLOCKS = frozenset(
    (
        "points",
        "city_spaces",
        "special_prestige",
        "route_markers",
        "east_west",
        "turn_player",
        "game_ends_after_action",
        "decision",
        "deciding_player",
        "frame_route",
        "frame_whose",
        "frame_ability",
        "own_mission",
        "favour_face_up",
        "favour_held",
        "favour_this_turn",
        "frame_tile",
    )
)
# The decision frames the tensor shows more of than their kind and player: the module's constant
# for the kind, and the fields of the frame tuple it shows (`_Differ._frame_entries`).
FRAME_FIELDS = {
    "F_PAY": (2,),
    "F_DISPLACED": (2, 3, 4),
    "F_MOVE": (2, 3, 4, 5, 7),
    "F_REMOVE": (2, 4),
    "F_ROUTE": (2,),
    "F_EXCHANGE": (2,),
    "F_DEVELOP": (2,),
    "F_FLIP": (2,),
    "F_TAKE_STOCK": (2, 3),
}
# The state's tuples of marker types and the blocks that count them
MARKER_GROUPS = (
    ("fresh", "markers_taken_this_action"),
    ("plate", "markers_to_place"),
    ("msupply", "marker_supply"),
    ("out", "markers_out_of_game"),
)
# The blocks that describe the current decision (written together, per frame)
FRAME_BLOCKS = (
    "decision",
    "deciding_player",
    "frame_route",
    "frame_holding",
    "frame_numbers",
    "frame_whose",
    "frame_ability",
    "frame_tile",
    "frame_take",
)


def drawn_markers(state, keep_frame: int | None) -> tuple[int, ...]:
    """The markers drawn and not yet kept (a `draw N keep 1` choice pending): as unseen by the
    other players as the face-down supply, so every observer counts them with it."""
    if keep_frame is None:
        return ()
    return tuple(m for top in state.stack if top[0] == keep_frame for m in top[2])


def face_down(state) -> tuple[int, ...]:
    """The face-down marker supply as sorted marker types: what is public of it (its contents,
    which every other marker's being visible gives away), not its order."""
    return tuple(sorted(state.msupply))


def _size(shape: tuple[int, ...]) -> int:
    size = 1
    for dim in shape:
        size *= dim
    return size


class TensorCodec:
    """The layout of one game for one player count, and a from-nothing encoder."""

    def __init__(self, tables: dict, num_players: int) -> None:
        self.tables = tables
        self.n = n = num_players
        self.na = tables["NA"]
        self.k = tables["N_MARKER_TYPES"]
        self.n_points = tables["N_POINTS"]
        self.n_spaces = tables["N_SPACES"]
        self.n_cities = tables["N_CITIES"]
        self.n_routes = tables["N_ROUTES"]
        self.n_special = len(tables["SPECIAL_POINTS"])
        self.missions = "MISSION_CARDS" in tables
        self.favour = "F_FLIP" in tables
        self.n_favour = tables.get("N_FAVOUR", 0)
        self.take_stock = "F_TAKE_STOCK" in tables
        self.keep_frame = tables.get("F_KEEP")  # `draw N keep 1` (None: the game has none)
        # `choose from N on display`: the supply's first N markers are face up (0: no display)
        self.display = tables.get("DISPLAY_SIZE", 0)
        # the missions' and favour tiles' fields are checked on every write (few games have them)
        self.more_fields = self.missions or self.favour
        self.layout = self._layout()
        self.offset = {name: offset for name, offset, _shape, _meaning in self.layout}
        self.point_offset = [self.offset["points"] + 2 * n * x for x in range(self.n_points)]
        name, offset, shape, _meaning = self.layout[-1]
        self.size = offset + _size(shape)
        # rel[p][q]: where owner q sits for observer p
        self.rel = tuple(tuple((q - p) % n for q in range(n)) for p in range(n))
        self.frame_spans = self._spans(FRAME_BLOCKS)
        # per observer, decision frames (by the fields shown) -> the frame spans' content; shared
        # by every writer of this game, as the content depends only on frame and observer
        self.frame_memo: list[dict] = [{} for _ in range(n)]
        self.zeros = memoryview(array.array("f", bytes(4 * self.size)))
        # frame kind -> the fields a differ remembers that frame's spans under
        self.frame_kinds = {name: tables[name] for name in FRAME_FIELDS if name in tables}
        self.frame_fields = {
            tables[name]: operator.itemgetter(0, 1, *fields)
            for name, fields in FRAME_FIELDS.items()
            if name in tables
        }

    def _spans(self, names: tuple) -> tuple:
        """The offsets of the named blocks as contiguous (start, stop) spans, adjacent merged."""
        spans: list = []
        for name, offset, shape, _meaning in self.layout:
            if name in names:
                stop = offset + _size(shape)
                if spans and spans[-1][1] == offset:
                    spans[-1] = (spans[-1][0], stop)
                else:
                    spans.append((offset, stop))
        return tuple(spans)

    def _layout(self) -> tuple:
        t = self.tables
        n, k, na = self.n, self.k, self.na
        frames = len(t["FRAME_NAMES"])
        points, spaces, cities, routes = self.n_points, self.n_spaces, self.n_cities, self.n_routes
        blocks = [
            ("points", (points, 2, n), "point × kind (trader, merchant) × owner: 1 if it holds it"),
            ("city_spaces", (spaces, 2, n), "space × kind × owner: 1 if it holds that post"),
            ("additional_posts", (cities, n), "city × owner: additional trading posts held"),
            ("special_prestige", (self.n_special, n), "special space × owner: 1 if taken"),
            ("route_markers", (routes, k), "route × marker type: 1 if that marker lies on it"),
            ("abilities", (n, na), "owner × ability: times developed"),
            ("supply", (n, 2), "owner × kind: pieces in the personal supply"),
            ("stock", (n, 2), "owner × kind: pieces in the general stock"),
            ("track", (n,), "owner: PP on the score track"),
            ("markers_unused", (n, k), "owner × marker type: taken, not yet used"),
            ("markers_used", (n, k), "owner × marker type: used"),
            ("east_west", (n,), "owner: 1 if they have completed the East-West connection"),
            ("turn_player", (n,), "owner: 1 for the player whose turn it is"),
            ("actions_left", (1,), "actions left in the turn"),
            ("game_ends_after_action", (1,), "1 once an end condition is met"),
            ("markers_taken_this_action", (k,), "marker type: taken in the running action"),
            ("markers_to_place", (k,), "marker type: drawn, to be placed at the end of the turn"),
            (
                "marker_supply",
                (k,),
                "marker type: face down in the supply (under a display), or drawn and not yet"
                " kept (counts)",
            ),
            ("markers_out_of_game", (k,), "marker type: set aside"),
            ("completed_cities", (1,), "cities whose every space holds a post"),
            ("decision", (frames,), "kind of the current decision (FRAME_NAMES; one-hot)"),
            ("deciding_player", (n,), "owner: 1 for the player who decides now"),
            ("frame_route", (routes,), "route of a displaced/create_route decision"),
            ("frame_holding", (n, 2), "owner × kind: pieces held by the current decision"),
            ("frame_numbers", (6,), "cost, extras, picks left, dropping, own one, unchanged"),
            ("frame_whose", (3,), "move/remove may touch: own, opponents', any"),
            ("frame_ability", (na + 1,), "ability a develop decision allows (last: any)"),
        ]
        if self.missions:
            cards = len(t["MISSION_CARDS"])
            blocks.append(("own_mission", (cards,), "mission card: 1 for the observer's own card"))
        if self.favour:
            f = self.n_favour
            blocks += [
                ("favour_face_up", (f,), "favour tile: 1 if it lies face up (may be taken)"),
                ("favour_held", (n, f), "owner × favour tile: 1 if they hold it"),
                ("favour_this_turn", (3,), "the turn player: may take a tile, has acted, took one"),
                ("frame_tile", (f,), "favour tile whose 2 markers a flip decision chooses"),
            ]
        if self.take_stock:
            blocks.append(
                (
                    "frame_take",
                    (3,),
                    "take-from-stock decision: pieces left, trader, merchant offered",
                )
            )
        if self.display:
            blocks.append(("marker_display", (k,), "marker type: face up in the display (counts)"))
        layout = []
        offset = 0
        for name, shape, meaning in blocks:
            layout.append((name, offset, shape, meaning))
            offset += _size(shape)
        return tuple(layout)

    def high(self) -> list[float]:
        """Per entry, the most it can hold: 1 in the 0/1 blocks (`FLAG_BLOCKS`), else the largest
        whole number a float32 holds exactly (counts, levels and PP are raw numbers)."""
        high = []
        for name, _offset, shape, _meaning in self.layout:
            high += [1.0 if name in FLAG_BLOCKS else COUNT_LIMIT] * _size(shape)
        return high

    def encode(self, state, player: int, out):
        """`player`'s tensor of `state`, written into `out` (returned)."""
        mv = self.buffer_view(out)
        mv[:] = self.zeros
        _Differ(self, player, mv).sync(state)
        return out

    def buffer_view(self, out) -> memoryview:
        """`out` as a writable memoryview of `size` float32 values (else HansaError)."""
        try:
            mv = out if out.__class__ is memoryview else memoryview(out)
        except TypeError:
            mv = None
        if mv is None or mv.format != "f" or mv.nbytes != 4 * self.size or mv.readonly:
            raise HansaError(
                f"the tensor needs a writable float32 vector of {self.size} values, got "
                f"{type(out).__name__}"
            )
        if not mv.contiguous:
            raise HansaError("the tensor needs a contiguous float32 vector (a row, not a column)")
        return mv

    def writer(self) -> TensorWriter:
        return TensorWriter(self)


class TensorWriter:
    """Tensors of a stream of states, each observer's patched from the last one it was given.

    Each observer has its own buffer and differ: one that was not asked for a while catches up in
    one pass (a point changed five times since is patched once).
    """

    def __init__(self, codec: TensorCodec) -> None:
        self.codec = codec
        self.size = codec.size
        self._differs = [
            _Differ(codec, p, memoryview(array.array("f", bytes(4 * codec.size))))
            for p in range(codec.n)
        ]
        self.home: memoryview | None = None
        self._home_player: int | None = None
        self._out = self._out_view = None

    def set_home(self, out) -> None:
        """The buffer `write_home` writes (once, before the first `write_home`)."""
        if self._home_player is not None:
            raise HansaError("the writer's home buffer is set once")
        self.home = self.codec.buffer_view(out)

    def write(self, state, player: int, out):
        """`player`'s tensor of `state`, copied into `out` (returned)."""
        if self._home_player == player:  # its differ writes the home: give it its own buffer
            self._park()
        differ = self._differs[player]
        differ.sync(state)
        if out is not self._out:  # the same buffer as last time: its checked view
            self._out, self._out_view = out, self.codec.buffer_view(out)
        self._out_view[:] = differ.mv
        return out

    def view(self, state, player: int) -> memoryview:
        """`player`'s tensor of `state` as the writer's own buffer, a float32 memoryview (valid
        until the next write for `player`; read only what you need, do not modify it)."""
        if self._home_player == player:
            self._park()
        differ = self._differs[player]
        differ.sync(state)
        return differ.mv

    def write_home(self, state, player: int) -> None:
        """`player`'s tensor of `state` into the writer's home buffer (`home`, set once: a row of
        an environment's observations that nothing else writes). The observer whose tensor the
        home holds patches it in place; another observer's is copied in (and the previous one's
        kept), so a decision of the same observer as the last costs no copy."""
        differ = self._differs[player]
        if self._home_player != player:
            self._park()
            self.home[:] = differ.mv
            differ.mv = self.home
            self._home_player = player
        differ.sync(state)

    def _park(self) -> None:
        """The home's observer back on its own buffer (a copy of the home)."""
        if self._home_player is not None:
            parked = self._differs[self._home_player]
            parked.own[:] = self.home
            parked.mv = parked.own
            self._home_player = None


class _Differ:
    """One observer's tensor and the field values it was written from (all zero = empty)."""

    __slots__ = (
        "c",
        "player",
        "mv",
        "own",
        "rel",
        "code_at",
        "pt",
        "at",
        "post",
        "extra",
        "special",
        "rmark",
        "level",
        "supply",
        "stock",
        "track",
        "unused",
        "used",
        "ew",
        "turn_player",
        "actions_left",
        "ending",
        "completed",
        "fresh",
        "plate",
        "msupply",
        "msupply_shown",
        "display_shown",
        "out",
        "turn_offset",
        "actions_offset",
        "mission",
        "fav_shown",
        "fav_held",
        "fav_turn",
        "frame_top",
        "frame_terminal",
        "frame_player",
        "frame_fields",
        "frame_memo",
    )

    def __init__(self, codec: TensorCodec, player: int, mv: memoryview) -> None:
        self.c = codec
        self.player = player
        self.mv = mv  # a float32 memoryview: item assignment is cheaper than numpy's
        self.own = mv  # its own buffer (mv may be a writer's home for a while)
        self.rel = codec.rel[player]
        n = codec.n
        self.pt = [EMPTY] * codec.n_points
        self.at = [[] for _ in range(n)]
        # code (player * 2 + kind) -> its entry within a point's or space's kind × owner block
        self.code_at = [(code & 1) * n + self.rel[code >> 1] for code in range(2 * n)]
        self.post = [EMPTY] * codec.n_spaces
        self.extra = [()] * codec.n_cities
        self.special = [EMPTY] * codec.n_special
        self.rmark = [EMPTY] * codec.n_routes
        self.level = [0] * (n * codec.na)
        self.supply = [0] * (2 * n)
        self.stock = [0] * (2 * n)
        self.track = [0] * n
        self.unused = [()] * n
        self.used = [()] * n
        self.ew = ()
        self.turn_player = None
        self.actions_left = 0
        self.ending = False
        self.completed = 0
        self.fresh = self.plate = self.msupply = self.out = ()  # the marker groups (tuples)
        self.msupply_shown = ()  # what the marker_supply block counts (the drawn ones too)
        self.display_shown = ()  # what the marker_display block counts
        self.turn_offset = codec.offset["turn_player"]
        self.actions_offset = codec.offset["actions_left"]
        self.mission = None
        self.fav_shown = ()
        self.fav_held = [()] * n
        self.fav_turn = None
        self.frame_top = self.frame_terminal = self.frame_player = None  # the frame written
        self.frame_fields = codec.frame_fields
        self.frame_memo = codec.frame_memo[player]  # shown frame fields -> spans' content

    def sync(self, s) -> None:
        """Patch the tensor to `s`: an unchanged field costs one comparison."""
        mv = self.mv
        rel = self.rel
        if s.pt != self.pt:
            self._points(s, mv, rel)
        if s.player != self.turn_player:
            base = self.turn_offset
            if self.turn_player is not None:
                mv[base + rel[self.turn_player]] = 0.0
            mv[base + rel[s.player]] = 1.0
            self.turn_player = s.player
        if s.actions_left != self.actions_left:
            mv[self.actions_offset] = self.actions_left = s.actions_left
        if (
            s.supply != self.supply
            or s.stock != self.stock
            or s.track != self.track
            or s.post != self.post
            or s.extra != self.extra
            or s.special != self.special
            or s.rmark != self.rmark
            or s.level != self.level
            or s.unused != self.unused
            or s.used != self.used
            or s.ew is not self.ew
            or s.ending != self.ending
            or s.completed != self.completed
            or s.fresh is not self.fresh
            or s.plate is not self.plate
            or s.msupply is not self.msupply
            or s.out is not self.out
            or self.c.more_fields
        ):
            self._rare(s, mv, rel)
        stack = s.stack
        top = stack[-1] if stack else None
        if (
            top is not self.frame_top
            or s.terminal != self.frame_terminal
            or (top is None and s.player != self.frame_player)
        ):
            self._frame(s, top, mv)

    def _rare(self, s, mv, rel) -> None:
        """The fields a decision seldom changes."""
        c = self.c
        off = c.offset
        if s.post != self.post:
            self._codes(s.post, self.post, off["city_spaces"], mv, rel)
        if s.extra != self.extra:
            self._counts_per_owner(s.extra, self.extra, off["additional_posts"], c.n, mv, rel)
            self.extra = s.extra[:]
        if s.special != self.special:
            self._spaces_owned(s.special, self.special, off["special_prestige"], mv, rel)
            self.special = s.special[:]
        if s.rmark != self.rmark:
            self._route_markers(s, mv)
        if s.level != self.level:
            self._per_owner(s.level, self.level, c.na, off["abilities"], mv, rel)
            self.level = s.level[:]
        if s.supply != self.supply:
            self._per_owner(s.supply, self.supply, 2, off["supply"], mv, rel)
            self.supply = s.supply[:]
        if s.stock != self.stock:
            self._per_owner(s.stock, self.stock, 2, off["stock"], mv, rel)
            self.stock = s.stock[:]
        if s.track != self.track:
            self._per_owner(s.track, self.track, 1, off["track"], mv, rel)
            self.track = s.track[:]
        if s.unused != self.unused:
            self._markers_held(s.unused, self.unused, off["markers_unused"], mv, rel)
            self.unused = s.unused[:]
        if s.used != self.used:
            self._markers_held(s.used, self.used, off["markers_used"], mv, rel)
            self.used = s.used[:]
        if s.ew is not self.ew:
            self._one_hot_owners(self.ew, s.ew, off["east_west"], mv, rel)
            self.ew = s.ew
        if s.ending != self.ending:
            self.ending = s.ending
            mv[off["game_ends_after_action"]] = float(s.ending)
        if s.completed != self.completed:
            mv[off["completed_cities"]] = self.completed = s.completed
        if (
            s.fresh is not self.fresh
            or s.plate is not self.plate
            or s.msupply is not self.msupply
            or s.out is not self.out
        ):
            self._marker_groups(s, mv)
        if c.missions and s.mission is not self.mission:
            base = off["own_mission"]
            if self.mission is not None:
                mv[base + self.mission[self.player]] = 0.0
            mv[base + s.mission[self.player]] = 1.0
            self.mission = s.mission
        if c.favour:
            self._favour(s, mv, rel)

    # ---- the board
    def _points(self, s, mv, rel) -> None:
        """Patch the points that changed: those entering or leaving a player's sorted list of
        points (`at`), then any left (a piece replaced by one of the same owner), by a scan."""
        old = self.pt
        pt = s.pt
        snap_at = self.at
        if s.at != snap_at:
            at = self.c.point_offset
            code_at = self.code_at
            for q, points in enumerate(s.at):
                if points == snap_at[q]:
                    continue
                for x in set(points).symmetric_difference(snap_at[q]):
                    was = old[x]
                    code = pt[x]
                    if was >= 0:
                        mv[at[x] + code_at[was]] = 0.0
                    if code >= 0:
                        mv[at[x] + code_at[code]] = 1.0
                    old[x] = code
                snap_at[q] = points[:]
        if pt != old:
            self._codes(pt, old, self.c.offset["points"], mv, rel)

    def _codes(self, codes: list, old: list, base: int, mv, rel) -> None:
        """A block place × kind × owner of pieces coded player * 2 + kind (-1 empty): patch the
        places whose code differs from `old` (updated in place)."""
        n = self.c.n
        for x, code in enumerate(codes):
            was = old[x]
            if code != was:
                if was >= 0:
                    i = base + 2 * n * x + (was & 1) * n + rel[was >> 1]
                    mv[i] = 0.0
                if code >= 0:
                    i = base + 2 * n * x + (code & 1) * n + rel[code >> 1]
                    mv[i] = 1.0
                old[x] = code

    @staticmethod
    def _spaces_owned(codes: list, old: list, base: int, mv, rel) -> None:
        """A block place × owner: 1 where the place holds a piece of that owner."""
        n = len(rel)
        for x, code in enumerate(codes):
            was = old[x]
            if code != was:
                if was >= 0:
                    i = base + n * x + rel[was >> 1]
                    mv[i] = 0.0
                if code >= 0:
                    i = base + n * x + rel[code >> 1]
                    mv[i] = 1.0

    @staticmethod
    def _counts_per_owner(groups: list, old: list, base: int, n: int, mv, rel) -> None:
        """A block place × owner counting the pieces (codes) in each place's tuple."""
        for x, codes in enumerate(groups):
            if codes is not old[x]:
                for code in old[x]:
                    i = base + n * x + rel[code >> 1]
                    mv[i] = 0.0
                for code in codes:
                    i = base + n * x + rel[code >> 1]
                    mv[i] += 1.0

    def _route_markers(self, s, mv) -> None:
        base = self.c.offset["route_markers"]
        k = self.c.k
        old = self.rmark
        for r, m in enumerate(s.rmark):
            was = old[r]
            if m != was:
                if was >= 0:
                    mv[base + k * r + was] = 0.0
                if m >= 0:
                    mv[base + k * r + m] = 1.0
                old[r] = m

    @staticmethod
    def _per_owner(values: list, old: list, width: int, base: int, mv, rel) -> None:
        """A block owner × `width` of raw numbers, from a list indexed player * width + i."""
        for j, value in enumerate(values):
            if value != old[j]:
                q, r = divmod(j, width)
                i = base + width * rel[q] + r
                mv[i] = value

    @staticmethod
    def _one_hot_owners(was: tuple, now: tuple, base: int, mv, rel) -> None:
        for q in was:
            mv[base + rel[q]] = 0.0
        for q in now:
            mv[base + rel[q]] = 1.0

    def _markers_held(self, held: list, old: list, base: int, mv, rel) -> None:
        """A block owner × marker type counting the markers in each player's tuple."""
        k = self.c.k
        for q, markers in enumerate(held):
            if markers is not old[q]:
                row = base + k * rel[q]
                for m in old[q]:
                    mv[row + m] = 0.0
                for m in markers:
                    mv[row + m] += 1.0

    def _marker_groups(self, s, mv) -> None:
        off = self.c.offset
        for name, block in MARKER_GROUPS:
            markers = getattr(s, name)
            was = getattr(self, name)
            if markers is not was:
                base = off[block]
                shown = markers
                if name == "msupply":
                    was = self.msupply_shown
                    face_up = self.c.display
                    shown = markers[face_up:] + drawn_markers(s, self.c.keep_frame)
                    self.msupply_shown = shown
                    if face_up:
                        self._display(markers[:face_up], off["marker_display"], mv)
                for m in was:
                    mv[base + m] = 0.0
                for m in shown:
                    mv[base + m] += 1.0
                setattr(self, name, markers)

    def _display(self, face_up: tuple, base: int, mv) -> None:
        """The marker_display block: the face-up markers by type."""
        for m in self.display_shown:
            mv[base + m] = 0.0
        for m in face_up:
            mv[base + m] += 1.0
        self.display_shown = face_up

    def _favour(self, s, mv, rel) -> None:
        off = self.c.offset
        if s.fav_shown is not self.fav_shown:
            base = off["favour_face_up"]
            for t in self.fav_shown:
                mv[base + t] = 0.0
            for t in s.fav_shown:
                mv[base + t] = 1.0
            self.fav_shown = s.fav_shown
        if s.fav_held != self.fav_held:
            f = self.c.n_favour
            for q, tiles in enumerate(s.fav_held):
                if tiles is not self.fav_held[q]:
                    row = off["favour_held"] + f * rel[q]
                    for t in self.fav_held[q]:
                        mv[row + t] = 0.0
                    for t in tiles:
                        mv[row + t] = 1.0
            self.fav_held = s.fav_held[:]
        if s.fav_turn != self.fav_turn:
            base = off["favour_this_turn"]
            if self.fav_turn is not None:
                mv[base + self.fav_turn] = 0.0
            mv[base + s.fav_turn] = 1.0
            self.fav_turn = s.fav_turn

    # ---- the decision: the top of the stack (or the turn), nothing once the game is over
    def _frame(self, s, top, mv) -> None:
        """Write the decision's spans (`TensorCodec.frame_spans`) whole, remembered per frame by
        the fields the tensor shows of it (`TensorCodec.frame_fields`)."""
        self.frame_top, self.frame_terminal, self.frame_player = top, s.terminal, s.player
        if s.terminal:
            zeros = self.c.zeros
            for start, stop in self.c.frame_spans:
                mv[start:stop] = zeros[: stop - start]
            return
        if top is None:
            top = (0, s.player)
        key = self.frame_fields.get(top[0], _KIND_AND_PLAYER)(top)
        memo = self.frame_memo
        spans = memo.get(key)
        if spans is None:
            if len(memo) >= FRAME_MEMO:
                memo.clear()
            spans = memo[key] = self._frame_spans(top)
        for start, stop, content in spans:
            mv[start:stop] = content

    def _frame_spans(self, top: tuple) -> tuple:
        """(start, stop, content) of each frame span for decision frame `top`, this observer's."""
        flat = array.array("f", bytes(4 * self.c.size))
        hot, values = self._frame_entries(top, self.rel)
        for i in hot:
            flat[i] += 1.0
        for i, value in values:
            flat[i] = value
        return tuple(
            (start, stop, memoryview(flat[start:stop])) for start, stop in self.c.frame_spans
        )

    def _frame_entries(self, top: tuple, rel) -> tuple:
        """The entries of decision frame `top` for this observer: (offsets counted once each,
        (offset, value) pairs)."""
        c = self.c
        off = c.offset
        kind = top[0]
        hot = [off["decision"] + kind, off["deciding_player"] + rel[top[1]]]
        values = []
        kinds = c.frame_kinds
        numbers = off["frame_numbers"]
        holding = off["frame_holding"]
        if kind == 0:
            pass
        elif kind == kinds.get("F_MOVE"):
            hot.append(off["frame_whose"] + top[2])
            values.append((numbers + 2, top[3]))
            hot.extend(holding + 2 * rel[code >> 1] + (code & 1) for code in top[4])
            values.append((numbers + 3, top[5]))
            values.append((numbers + 5, int(top[7])))
        elif kind == kinds.get("F_PAY"):
            values.append((numbers, top[2]))
        elif kind == kinds.get("F_DISPLACED"):
            hot.append(off["frame_route"] + top[2])
            if top[3] >= 0:
                hot.append(holding + 2 * rel[top[1]] + top[3])
            values.append((numbers + 1, top[4]))
        elif kind == kinds.get("F_REMOVE"):
            hot.append(off["frame_whose"] + top[2])
            values.append((numbers + 2, top[4]))
        elif kind == kinds.get("F_ROUTE"):
            hot.append(off["frame_route"] + top[2])
        elif kind == kinds.get("F_EXCHANGE"):
            values.append((numbers + 4, int(top[2])))
        elif kind == kinds.get("F_DEVELOP"):
            hot.append(off["frame_ability"] + (c.na if top[2] < 0 else top[2]))
        elif kind == kinds.get("F_FLIP"):
            hot.append(off["frame_tile"] + top[2])
        elif kind == kinds.get("F_TAKE_STOCK"):
            values.append((off["frame_take"], top[2]))
            hot.extend(off["frame_take"] + 1 + k for k in (0, 1) if top[3] >> k & 1)
        return hot, values
