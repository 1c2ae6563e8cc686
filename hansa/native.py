"""The native backend: a game whose rule step, legal actions and clone run in C (the extension
`compiler/targets/native` builds), behind the same `Game`/`State` API as the Python backend.

A native state is a C object. The reads and rule facts agents ask of every position (the pieces,
the posts, the score, who would control a city with one more post, …) are answered in C; what is
not on the hot path (JSON, observations, winners, the rarer reads) is answered by converting it to
the Python backend's state of the same game, field for field, so both backends write the same JSON
and observations by construction (docs/native.md).
"""

from __future__ import annotations

import array
import functools
import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import random
import sys
from importlib import resources
from pathlib import Path
from types import ModuleType

import hansa.compiler
import hansa.runtime
from hansa.compiler import LIBRARY_DIR
from hansa.compiler.errors import HansaError, did_you_mean
from hansa.compiler.model.frames import COMMON_FRAMES
from hansa.compiler.targets.native import build
from hansa.compiler.targets.native.fields import FIELD_INDEX, FIELD_NAMES
from hansa.generated import available_games
from hansa.runtime.game import Game
from hansa.runtime.observation import check_observer
from hansa.runtime.serialize import encode
from hansa.runtime.state import TableState, _as_action_id, check_rollout

# Frame kinds shared by both targets (compiler/targets/*/templates): the native frame is
# (kind, player, a, b, c, d, held, picked points, picked codes). The permanent marker's frame
# (F_PERMANENT) and the neutral pawn's are numbered after these, per game (the module's F_*).
F_PAY, F_DISPLACED, F_MOVE, F_REMOVE, F_ROUTE, F_EXCHANGE, F_DEVELOP, F_MARKERS = (
    COMMON_FRAMES[name]
    for name in ("F_PAY", "F_DISPLACED", "F_MOVE", "F_REMOVE", "F_ROUTE", "F_EXCHANGE")
    + ("F_DEVELOP", "F_MARKERS")
)
F_MORE = len(COMMON_FRAMES) + 1  # the first kind numbered per game
DEFAULT_PLAYOUT_CAP = 2_000_000
MAX_STEPS = 2**62  # what the C loop's counter holds (a larger request plays to the end anyway)
# Frames numbered per game whose tuple is (kind, player, *numbers): the native frame holds the
# numbers in a, b, … (the favour tile of a flip; pieces left and kinds of a take from the stock).
NUMBERED_FRAMES = {"flip_markers": 1, "take_from_stock": 2}


def numbered_frames(frame_names: tuple) -> dict[int, int]:
    """Frame kind -> how many numbers its tuple holds after the player (NUMBERED_FRAMES)."""
    return {
        kind: NUMBERED_FRAMES[name]
        for kind, name in enumerate(frame_names)
        if name in NUMBERED_FRAMES
    }


def frame_to_native(top: tuple, permanent: int = -1, numbered=None, keep: int = -1) -> tuple:
    kind, player = top[0], top[1]
    if numbered and kind in numbered:
        numbers = list(top[2:]) + [0] * (4 - numbered[kind])
        return (kind, player, *numbers, [], [], [])
    if kind == permanent:  # (route, pieces left to place, held kind or -1)
        return (kind, player, top[2], top[3], top[4], 0, [], [], [])
    if kind == keep:  # `draw N keep 1`: the markers drawn, sorted (the native frame's held)
        return (kind, player, 0, 0, 0, 0, list(top[2]), [], [])
    if kind == F_MOVE:
        _, _, whose, left, held, phase, picked, unchanged = top
        xs = [x for x, _code in picked]
        codes = [code for _x, code in picked]
        return (kind, player, whose, left, phase, int(unchanged), list(held), xs, codes)
    if kind == F_DISPLACED:
        return (kind, player, top[2], top[3], top[4], 0, [], [], [])
    if kind == F_REMOVE:
        return (kind, player, top[2], top[3], top[4], top[5], [], [], [])
    if kind in (F_PAY, F_ROUTE, F_EXCHANGE, F_DEVELOP):
        return (kind, player, int(top[2]), 0, 0, 0, [], [], [])
    if kind == F_MARKERS or kind >= F_MORE:
        return (kind, player, 0, 0, 0, 0, [], [], [])
    raise HansaError(f"the native backend has no decision frame of kind {kind}")


def frame_from_native(frame: tuple, permanent: int = -1, numbered=None, keep: int = -1) -> tuple:
    kind, player, a, b, c, d, held, xs, codes = frame
    if numbered and kind in numbered:
        return (kind, player, *(a, b, c, d)[: numbered[kind]])
    if kind == permanent:
        return (kind, player, a, b, c)
    if kind == keep:
        return (kind, player, tuple(held))
    if kind == F_MOVE:
        return (kind, player, a, b, tuple(held), c, tuple(zip(xs, codes, strict=True)), bool(d))
    if kind == F_DISPLACED:
        return (kind, player, a, b, c)
    if kind == F_REMOVE:
        return (kind, player, a, b, c, d)
    if kind == F_EXCHANGE:
        return (kind, player, bool(a))
    if kind in (F_PAY, F_ROUTE, F_DEVELOP):
        return (kind, player, a)
    return (kind, player)


def _counts(markers: tuple, n_types: int) -> list[int]:
    counts = [0] * n_types
    for m in markers:
        counts[m] += 1
    return counts


def _multiset(counts: list[int]) -> tuple[int, ...]:
    return tuple(m for m, n in enumerate(counts) for _ in range(n))


def fields_of(py, n_types: int) -> tuple:
    """The native fields of a Python backend state (compiler/targets/native/fields.py)."""
    permanent = _permanent_kind(py._json.g.FRAME_NAMES)
    numbered = numbered_frames(py._json.g.FRAME_NAMES)
    keep = _keep_kind(py._json.g.FRAME_NAMES)
    fields = {
        "scalars": (
            py.num_players,
            py.player,
            py.actions_left,
            int(py.ending),
            int(py.terminal),
            py.completed,
        ),
        "pt": list(py.pt),
        "mask": list(py.mask),
        "full_owner": list(py.full_owner),
        "post": list(py.post),
        "filled": list(py.filled),
        "extra": [list(e) for e in py.extra],
        "special": list(py.special),
        "rmark": list(py.rmark),
        "supply": list(py.supply),
        "stock": list(py.stock),
        "onboard": list(py.onboard),
        "level": list(py.level),
        "track": list(py.track),
        "unused": [_counts(u, n_types) for u in py.unused],
        "used": [_counts(u, n_types) for u in py.used],
        "out": _counts(py.out, n_types),
        "fresh": list(py.fresh),
        "plate": list(py.plate),
        "msupply": list(py.msupply),
        "ew": list(py.ew),
        "stack": [frame_to_native(top, permanent, numbered, keep) for top in py.stack],
        "mission": list(getattr(py, "mission", ())),
        "pawn": (getattr(py, "pawn", -1), getattr(py, "pawn_turn", 0)),
        "perm_used": list(getattr(py, "perm_used", ())),
        "turns": getattr(py, "turns", 1),
        "favour": _favour_fields(py),
        # the rules in words' own fields: an end timed later, the seats that played this round
        "rules": (getattr(py, "end_after", 0), getattr(py, "played", 0)),
    }
    return tuple(fields[name] for name in FIELD_NAMES)


def _favour_fields(py) -> tuple:
    """(per-player parameters, favour tiles face up, each player's tiles, fav_turn): the native
    state's field of the Emperor's Favour parts (empty in a game without them)."""
    if not hasattr(py, "fav_shown"):
        return (list(getattr(py, "xparam", ())), [], [], 0)
    return (
        list(getattr(py, "xparam", ())),
        list(py.fav_shown),
        [list(tiles) for tiles in py.fav_held],
        py.fav_turn,
    )


def _permanent_kind(frame_names: tuple) -> int:
    """The frame kind of the permanent markers' decision in a game (-1: none)."""
    return frame_names.index("permanent_marker") if "permanent_marker" in frame_names else -1


def _keep_kind(frame_names: tuple) -> int:
    """The frame kind of the `draw N keep 1` decision in a game (-1: none)."""
    return frame_names.index("keep_marker") if "keep_marker" in frame_names else -1


def python_state(module: ModuleType, fields: tuple):
    """The Python backend's state holding the same position as the native `fields`."""
    f = dict(zip(FIELD_NAMES, fields, strict=True))
    n, player, actions_left, ending, terminal, completed = f["scalars"]
    s = module.State.__new__(module.State)
    s._cached = None
    s.num_players, s.player, s.actions_left = n, player, actions_left
    s.ending, s.terminal, s.completed = bool(ending), bool(terminal), completed
    s.pt = pt = f["pt"]
    s.mask, s.full_owner, s.post, s.filled = f["mask"], f["full_owner"], f["post"], f["filled"]
    s.special, s.rmark, s.supply, s.stock = f["special"], f["rmark"], f["supply"], f["stock"]
    s.onboard, s.level, s.track = f["onboard"], f["level"], f["track"]
    s.extra = [tuple(e) for e in f["extra"]]
    s.unused = [_multiset(c) for c in f["unused"]]
    s.used = [_multiset(c) for c in f["used"]]
    s.out = _multiset(f["out"])
    s.fresh, s.plate, s.msupply = tuple(f["fresh"]), tuple(f["plate"]), tuple(f["msupply"])
    s.ew = tuple(f["ew"])
    mission, (pawn, pawn_turn) = f["mission"], f["pawn"]
    perm_used, turns = f["perm_used"], f["turns"]
    xparam, fav_shown, fav_held, fav_turn = f["favour"]
    end_after, played = f["rules"]
    permanent = _permanent_kind(module.FRAME_NAMES)
    numbered = numbered_frames(module.FRAME_NAMES)
    keep = _keep_kind(module.FRAME_NAMES)
    s.stack = [frame_from_native(top, permanent, numbered, keep) for top in f["stack"]]
    if "mission" in module.State.__slots__:
        s.mission = tuple(mission)
    if "pawn" in module.State.__slots__:
        s.pawn, s.pawn_turn = pawn, pawn_turn
    if "perm_used" in module.State.__slots__:
        s.perm_used = tuple(perm_used)
    if "turns" in module.State.__slots__:
        s.turns = turns
    if "xparam" in module.State.__slots__:
        s.xparam = xparam
    if "fav_shown" in module.State.__slots__:
        s.fav_shown, s.fav_turn = tuple(fav_shown), fav_turn
        s.fav_held = [tuple(tiles) for tiles in fav_held]
    if "end_after" in module.State.__slots__:
        s.end_after = end_after
    if "played" in module.State.__slots__:
        s.played = played
    merchant_only = module.POINT_MERCHANT_ONLY
    s.at = [[] for _ in range(n)]
    for x, code in enumerate(pt):
        if code >= 0:
            s.at[code >> 1].append(x)
    s.free = [x for x, code in enumerate(pt) if code < 0]
    s.free_house = [x for x in s.free if not merchant_only[x]]
    return s


# the fields the agents' reads below take from the native state
FIELD_SCALARS, FIELD_PT, FIELD_POST = (FIELD_INDEX[f] for f in ("scalars", "pt", "post"))
FIELD_FILLED, FIELD_TRACK, FIELD_RMARK = (FIELD_INDEX[f] for f in ("filled", "track", "rmark"))
FIELD_FULL_OWNER, FIELD_MSUPPLY = FIELD_INDEX["full_owner"], FIELD_INDEX["msupply"]
FIELD_MISSION, FIELD_STACK, FIELD_UNUSED = (FIELD_INDEX[f] for f in ("mission", "stack", "unused"))


def _mission_cards(module: ModuleType) -> tuple | None:
    """The cities of each mission card, () in a game without them (the base state's answer), or
    None when the game's mission_cities is not the card lookup this side knows."""
    if module.State.mission_cities is TableState.mission_cities:
        return ()
    if "mission" in module.State.__slots__ and hasattr(module, "MISSION_CARDS"):
        return module.MISSION_CARDS
    return None


def _answered_in_c(ext: ModuleType, name: str, arities: tuple[int, ...]):
    """The state method `name` (runtime/state.py) answered by the extension's C method
    `_n_<name>` when called with positional arguments of one of `arities`; whatever C leaves
    (it returns NotImplemented for an argument off its fast path) and any other call is answered
    by the Python backend's view, so every answer and error is the Python backend's."""
    native = getattr(ext.State, "_n_" + name)

    def read(self, *args, **kwargs):
        if not kwargs and len(args) in arities:
            answer = native(self, *args)
            if answer is not NotImplemented:
                return answer
        return getattr(self._view(), name)(*args, **kwargs)

    return functools.update_wrapper(read, getattr(TableState, name))


class NativeStateAPI:
    """The State API of a native state beyond what its C type answers: conversions to the Python
    backend's state, the reads agents make (answered in C where they can be), scores, JSON. Mixed
    into each game's state type by `state_class`, which sets the game's facts as class
    attributes (`python_module`, `_ext`, `_end_names`, `_mission_cards`, `_route_frames`)."""

    __slots__ = ()

    # ---- conversions
    def to_python(self):
        """The Python backend's state of this position (a copy)."""
        return python_state(self.python_module, self._export())

    def _view(self):
        """The Python backend's state of this position, shared: read it, never change it."""
        key = self.legal_actions()
        try:
            if self._key is key:
                return self._py
        except AttributeError:
            pass
        view = python_state(self.python_module, self._export())
        self._py, self._key = view, key
        return view

    def _observer(self, player) -> int:
        # called by the C observation_tensor for an observer that is not a plain int in
        # range: the Python backend's check (its message), else the player as an int
        check_observer(self, player)
        return int(player)

    def _tensor_through_python(self, player: int, out):
        # called by the C observation_tensor for a buffer it does not write (not a
        # C-contiguous float32 vector of the size): the Python codec's message, or its write
        return self.python_module.observation_tensor(self._view(), player, out)

    def _illegal(self, action):
        # called by the C apply_action for anything but a legal int: an integer-like action
        # (numpy.int64, …) is applied as its int, anything else raises the Python message
        if action.__class__ is not int and not isinstance(action, bool):
            as_int = _as_action_id(action)
            if as_int.__class__ is int:
                return self.apply_action(as_int)
        raise HansaError(self._view()._illegal_message(action))

    # ---- fast reads and rule facts for agents (runtime/state.py), answered in C: an agent
    # reading them needs no Python copy of the position. Where C returns NotImplemented (an
    # argument off its fast path) the Python backend's view answers, as it does every read
    # not listed here (__getattr__ below).
    def point_pieces(self) -> list[int]:
        return self._field(FIELD_PT)

    def space_posts(self) -> list[int]:
        return self._field(FIELD_POST)

    def posts_filled(self) -> list[int]:
        return self._field(FIELD_FILLED)

    def additional_posts(self) -> list[tuple[int, ...]]:
        return self._n_additional_posts()

    def track_pp(self) -> list[int]:
        return self._field(FIELD_TRACK)

    def route_markers(self) -> list[int]:
        return self._field(FIELD_RMARK)

    def route_full_owners(self) -> list[int]:
        return self._field(FIELD_FULL_OWNER)

    def actions_remaining(self) -> int:
        return self._field(FIELD_SCALARS)[2]

    def completed_cities(self) -> int:
        return self._field(FIELD_SCALARS)[5]

    def marker_supply_size(self) -> int:
        return len(self._field(FIELD_MSUPPLY))

    def personal_supply(self, player: int) -> tuple[int, int]:
        pieces = self._n_pieces(player)
        return self._view().personal_supply(player) if pieces is NotImplemented else pieces[0]

    def general_stock(self, player: int) -> tuple[int, int]:
        pieces = self._n_pieces(player)
        return self._view().general_stock(player) if pieces is NotImplemented else pieces[1]

    def mission_cities(self, player: int) -> tuple[int, ...]:
        mission_cards = self._mission_cards
        if mission_cards is None:
            return self._view().mission_cities(player)
        if not mission_cards:
            return ()
        mission = self._field(FIELD_MISSION)
        if player.__class__ is int and 0 <= player < len(mission):
            return mission_cards[mission[player]]
        return self._view().mission_cities(player)

    def unused_markers(self, player: int) -> tuple[int, ...]:
        unused = self._field(FIELD_UNUSED)  # counts per marker type, per player
        if player.__class__ is int and 0 <= player < len(unused):
            return _multiset(unused[player])
        return self._view().unused_markers(player)

    def held_pieces(self) -> tuple[int, ...]:
        stack = self._field(FIELD_STACK)
        if stack and stack[-1][0] == F_MOVE:
            return tuple(stack[-1][6])  # the native frame's held pieces
        return ()

    def decision_route(self) -> int:
        stack = self._field(FIELD_STACK)
        if stack and stack[-1][0] in self._route_frames:
            return stack[-1][2]  # the native frame's first number: the route
        return -1

    # ---- the rest of the State API (docs/game-api.md)
    def legal_actions_mask(self) -> list[int]:
        mask = [0] * self.python_module.NUM_ACTIONS
        for a in self.legal_actions():
            mask[a] = 1
        return mask

    def action_to_string(self, action: int) -> str:
        return self.python_module.action_name(action)

    def score_breakdown(self) -> list[dict[str, int]]:
        keys = self.python_module.SCORE_KEYS
        return [dict(zip(keys, row, strict=True)) for row in self._native_scores()]

    def returns(self) -> list[int]:
        rows = self._native_scores()
        if not self.is_terminal():
            return [0] * len(rows)
        return [sum(row) for row in rows]

    def end_conditions_met(self) -> list[str]:
        return [self._end_names[i] for i in self._native_ends_met()]

    def to_dict(self) -> dict:
        return self._view().to_dict()

    def to_json(self) -> str:
        return encode(self.to_dict())

    def random_steps(self, steps: int, seed: int = 0) -> int:
        """Up to `steps` uniformly random decisions in place, played in C (the Python
        backend's `random_steps` makes the same ones for the same seed)."""
        steps, seed = check_rollout(steps, seed)
        return self._ext.random_steps(self, min(steps, MAX_STEPS), seed)

    def resample_hidden(self, rng, observer: int | None = None) -> None:
        if type(rng) is random.Random:  # in C, drawing from the generator as Python would
            version, words, gauss = rng.getstate()
            who = self.current_player() if observer is None else observer
            if who.__class__ is int and -(2**31) < who < 2**31:
                rng.setstate((version, self._ext.resample_hidden(self, words, who), gauss))
                return
        py = self.to_python()
        py.resample_hidden(rng, observer)
        self._import(fields_of(py, self.python_module.N_MARKER_TYPES))

    def __deepcopy__(self, memo: dict):
        return self.clone()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        return self._export() == other._export()

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        return self.to_json()

    def __repr__(self) -> str:
        game = self.python_module.GAME_NAME
        return f"<{game} native state: {self._view()._decision_name()}>"

    def __getattr__(self, name: str):
        # observations, rule facts and fast reads for agents: the Python backend's state of
        # the position answers (its lists are shared: do not mutate them)
        if name.startswith("__") or name in ("_py", "_key"):
            raise AttributeError(name)
        return getattr(self._view(), name)


# The reads and rule facts of one shape: a C method `_n_<name>`, the view for the rest (the
# positional arities C answers).
C_READS = {
    "ability_level": (2,),
    "ability_value": (2,),
    "city_controller": (1,),
    "city_posts": (1,),
    "score_total": (1,),
    "controller_if_post": (2, 3),
    "score_if_post": (2, 3),
    "controller_if_exchange": (1,),
}


def state_class(ext: ModuleType, module: ModuleType, end_names: list[str]) -> type:
    """The state type of one native game: the extension's C state with the rest of the API."""
    namespace = {
        # the Python backend's state of this position, kept while the position does not change:
        # `_key` is the legal-action list the C state held then (it drops it on every change)
        "__slots__": ("_py", "_key"),
        "python_module": module,
        "_ext": ext,
        "_end_names": list(end_names),
        "_mission_cards": _mission_cards(module),
        "_route_frames": module.State._json.route_frames,  # frames whose first number is a route
        **{name: _answered_in_c(ext, name, arities) for name, arities in C_READS.items()},
    }
    name = f"NativeState_{module.__name__.rsplit('.')[-1]}"
    return type(name, (NativeStateAPI, ext.State), namespace)


class NativeGame(Game):
    """A game played by the native backend: `Game` with native states and native loops."""

    backend = "native"

    def __init__(self, module: ModuleType, ext: ModuleType, end_names: list[str], players=None):
        super().__init__(module, players)
        self.ext = ext
        self.end_names = list(end_names)
        self.state_type = state_class(ext, module, end_names)
        for n in self.info.player_counts:
            ext.tensor_layout(n, *tensor_layout(ext, module, n))

    def new_initial_state(self, seed: int = 0):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise HansaError(f"seed must be a whole number, got {seed!r}")
        if not 0 <= abs(seed) < 2**64:
            return self.from_python(self.module.new_initial_state(self.players, seed))
        return self.ext.new_state(self.state_type, self.players, abs(seed))

    def rule_fired(self) -> list[int]:
        """The rules' counters of the native module (the same rules and events as the Python
        module's RULE_FIRED: compiler/expr/codegen.py counts them for both targets)."""
        return self.ext.rule_fired()

    def from_python(self, py):
        """The native state of a Python backend state of this game."""
        try:
            return self.ext.load(self.state_type, fields_of(py, self.module.N_MARKER_TYPES))
        except (ValueError, OverflowError) as error:
            raise HansaError(f"this position does not fit the native state: {error}") from None

    def state_from_json(self, text):
        return self.from_python(super().state_from_json(text))

    def playouts(
        self, n: int, seed: int = 0, policy: str = "random", cap: int = DEFAULT_PLAYOUT_CAP
    ) -> list[dict]:
        """Play `n` whole games natively from the start positions of seeds seed, seed+1, …, each
        decision drawn uniformly from the legal ones (a SplitMix64 stream seeded by `seed`).

        Each result: `returns` (final PP per player), `length` (decisions), `end` (the end
        triggers that held at the end, by name, or ["marker_supply_empty"])."""
        if policy != "random":
            raise HansaError(f"unknown playout policy {policy!r}: the native loops play 'random'")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise HansaError(f"the number of playouts must be a whole number >= 0, got {n!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise HansaError(f"seed must be a whole number from 0 to 2**63 - 1, got {seed!r}")
        results = []
        for returns, length, met, supply_empty in self.ext.playouts(
            self.players, n, seed, seed, cap
        ):
            end = [self.end_names[i] for i in range(len(self.end_names)) if met >> i & 1]
            if supply_empty:
                end = ["marker_supply_empty"]
            results.append(
                {"returns": list(returns), "length": length if length >= 0 else None, "end": end}
            )
        return results

    def vector(self, n: int, seed: int = 0) -> NativeVector:
        """`n` games stepping together (seeds seed, seed+1, …; a finished game is replaced by a
        new one with the next seed): masks and steps for learners, in C."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise HansaError(f"the number of games must be a whole number >= 1, got {n!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise HansaError(f"seed must be a whole number from 0 to 2**63 - 1, got {seed!r}")
        return NativeVector(self, n, seed)

    def observation_tensor_writer(self):
        """A `TensorWriter` (runtime/observation_tensor.py) whose native states write their
        tensors in C (from nothing: ~0.3 µs); any other state goes to the Python writer."""
        return NativeTensorWriter(super().observation_tensor_writer(), self.ext.State)

    def __repr__(self) -> str:
        return f"<hansa game {self.info.name!r}, {self.players} players, native>"


class NativeVector:
    """N native games stepping together: `masks()` (an N × actions int8 array, numpy), `step(
    actions)` (one decision in every game; returns the done flags and, per finished game, its
    returns), `current_players()`, `observation_tensors()` (N × tensor size, float32),
    `state(i)` (a native state: observations, JSON)."""

    def __init__(self, game: NativeGame, n: int, seed: int) -> None:
        import numpy as np

        self.game = game
        self.n = n
        self._np = np
        self._vec = game.ext.vector(n, game.players, seed)
        self._masks = np.zeros((n, game.num_distinct_actions()), np.int8)
        self._done = np.zeros(n, np.uint8)

    def masks(self):
        """Every game's legal-action mask (the array is reused: copy it to keep it)."""
        self._vec.legal_masks(self._masks)
        return self._masks

    def step(self, actions) -> tuple:
        """Apply one action per game (all checked first: an illegal one raises, nothing changes).
        Returns (done, returns): done[i] when game i ended (it is replaced by a new game), and
        returns[i] its final PP per player (None for the others)."""
        np = self._np
        chosen = np.ascontiguousarray(actions, dtype=np.int64)
        try:
            self._vec.step(chosen, self._done)
        except ValueError as error:
            raise HansaError(str(error)) from None
        done = self._done.astype(bool)
        returns = [self._vec.finished_returns(i) if done[i] else None for i in range(self.n)]
        return done, returns

    def current_players(self) -> list[int]:
        return self._vec.current_players()

    def observation_tensors(self, out=None):
        """Each game's observation tensor for the player deciding in it, written in C into the
        rows of `out` (an N × tensor-size float32 array, reused when given)."""
        np = self._np
        if out is None:
            out = np.empty((self.n, self.game.observation_tensor_shape()[0]), np.float32)
        try:
            self._vec.observation_tensors(out)
        except (ValueError, BufferError, TypeError) as error:
            raise HansaError(f"the observation tensors: {error}") from None
        return out

    def state(self, i: int):
        """A copy of game `i` as a native state."""
        return self._vec.state(self.game.state_type, i)


def tensor_layout(ext: ModuleType, module: ModuleType, players: int) -> tuple[int, list[int]]:
    """The Python codec's tensor size and block offsets for `players`, in the order of the
    extension's blocks (`ext.TENSOR_BLOCKS`; -1 for a block the game has not): the C writer
    writes into the Python backend's layout. A block the C writer does not know is refused."""
    codec = module.tensor_codec(players)
    unknown = [name for name, *_rest in codec.layout if name not in ext.TENSOR_BLOCKS]
    if unknown:
        raise HansaError(
            f"the native observation tensor has no writer for the block(s) {', '.join(unknown)}"
        )
    return codec.size, [codec.offset.get(name, -1) for name in ext.TENSOR_BLOCKS]


class NativeTensorWriter:
    """The `TensorWriter` API (runtime/observation_tensor.py) over the native states' C writer:
    each tensor is written from nothing (no per-observer memory is needed), states of the Python
    backend go to its own writer."""

    def __init__(self, writer, native_type: type) -> None:
        self._python = writer
        self._native = native_type
        self.codec = writer.codec
        self.size = writer.size
        self.home = None
        self._own = memoryview(array.array("f", bytes(4 * self.size)))

    def set_home(self, out) -> None:
        """The buffer `write_home` writes (once, before the first `write_home`)."""
        if self.home is not None:
            raise HansaError("the writer's home buffer is set once")
        self.home = self.codec.buffer_view(out)

    def write(self, state, player: int, out):
        if isinstance(state, self._native):
            return state.observation_tensor(player, out)
        return self._python.write(state, player, out)

    def view(self, state, player: int) -> memoryview:
        if isinstance(state, self._native):
            state.observation_tensor(player, self._own)
            return self._own
        return self._python.view(state, player)

    def write_home(self, state, player: int) -> None:
        if isinstance(state, self._native):
            state.observation_tensor(player, self.home)
        else:
            self._python.write(state, player, self.home)


def native_game(model, module: ModuleType, players: int | None = None) -> NativeGame:
    """Build (or take from the cache) the native extension of `model` and bind it to the Python
    rule module of the same game."""
    from hansa.compiler.targets.native.codegen import end_rule_names, render_native

    ext = build.load_extension(render_native(model))
    return NativeGame(module, ext, end_rule_names(model), players)


# The sources a native build depends on besides the spec: the compiler (its code, grammar,
# templates, prelude) and the runtime (the model folds some tables with runtime/tables.py).
_SOURCE_SUFFIXES = (".py", ".lark", ".j2", ".hansa", ".json")
_FINGERPRINT: list[str] = []


def _tree_digest(digest, base, label: str) -> None:
    """Feed every source file under `base` (its path and bytes) into `digest`."""
    for root, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(_SOURCE_SUFFIXES) and not name.startswith("."):
                path = os.path.join(root, name)
                with open(path, "rb") as stream:
                    data = stream.read()
                relative = os.path.relpath(path, base).encode("utf-8", "surrogateescape")
                digest.update(
                    label.encode() + relative + b"\0" + hashlib.sha256(data).digest() + b"\0"
                )


def _tool_fingerprint() -> str:
    """The compiler and runtime sources, the Python ABI, and the versions of the libraries the
    compiler renders and parses with (computed once per process: code does not change under a
    running program)."""
    if not _FINGERPRINT:
        digest = hashlib.sha256(b"hansa-native-key 1\n")
        digest.update(f"{sys.version}\n{importlib.machinery.EXTENSION_SUFFIXES[0]}\n".encode())
        for package in (hansa.compiler, hansa.runtime):
            _tree_digest(digest, Path(package.__file__).parent, package.__name__)
        for library in ("jinja2", "lark", "networkx"):  # their version lines, not imported
            found = importlib.util.find_spec(library)
            origin = found.origin if found is not None else None
            data = Path(origin).read_bytes() if origin else b"<missing>"
            digest.update(library.encode() + b"\0" + hashlib.sha256(data).digest())
        _FINGERPRINT.append(digest.hexdigest())
    return _FINGERPRINT[0]


def game_key(name: str, spec_dir: str) -> str:
    """The cache key of game `name` of `spec_dir` on the native backend: a hash of everything the
    Python module and the C source are made from (the spec folder's files and the built-in spec's,
    the folder's path, the compiler and runtime sources, the Python ABI, jinja2/lark/networkx).
    Any change to any of them gives another key, so a record never names a stale build."""
    digest = hashlib.sha256(f"{_tool_fingerprint()}\n{name}\n".encode("utf-8", "surrogateescape"))
    folder = Path(spec_dir)
    digest.update(f"{folder}\0{folder.resolve()}\0".encode("utf-8", "surrogateescape"))
    _tree_digest(digest, folder, "spec:")
    _tree_digest(digest, LIBRARY_DIR, "built-in:")
    return digest.hexdigest()


def _python_module(record: dict) -> ModuleType | None:
    """The Python rule module of a game record: the committed module when its text is the
    recorded one (imported as usual, from its bytecode), else the recorded text run in memory."""
    want = record.get("python_sha256")
    text = record.get("python_text")
    if not isinstance(text, str) or hashlib.sha256(text.encode()).hexdigest() != want:
        return None
    module_name = available_games().get(record.get("game"))
    if module_name is not None:
        committed = importlib.import_module(f"hansa.generated.{module_name}")
        try:
            with open(committed.__file__, "rb") as stream:
                if hashlib.sha256(stream.read()).hexdigest() == want:
                    return committed
        except OSError:
            pass
    module = ModuleType(str(record.get("python_module")))
    module.__dict__["__generated_text__"] = text
    exec(compile(text, f"<generated {record.get('game')}>", "exec"), module.__dict__)
    return module


def load_native(name: str, spec_dir: str) -> tuple[ModuleType, ModuleType, list[str]]:
    """The native extension, the Python rule module and the end rules' names of game `name`
    declared in `spec_dir`. A warm load reads the game record of its key (`game_key`) and the
    verified extension it names; it renders no C and compiles no spec. A cold one compiles the
    game, builds (or takes) the extension and writes the record."""
    key = game_key(name, spec_dir)
    record = build.read_game_record(key)
    if record is not None and record.get("game") == name:
        ext = build.load_cached(str(record.get("module")))
        module = _python_module(record) if ext is not None else None
        if module is not None:
            return ext, module, list(record.get("end_rules", ()))

    from hansa.compiler.targets.native.codegen import end_rule_names, render_native
    from hansa.compiler.targets.python.codegen import compile_module, generated_text

    model = model_of(name, spec_dir)
    compiled = compile_module(name, spec_dir=spec_dir)
    c_source = render_native(model)
    ext = build.load_extension(c_source)
    text = generated_text(vars(compiled))
    ends = end_rule_names(model)
    record = {
        "game": name,
        "module": build.native_module_name(c_source),
        "end_rules": ends,
        "python_module": compiled.__name__,
        "python_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "python_text": text,
    }
    if game_key(name, spec_dir) == key:  # nothing changed while it was compiled
        build.write_game_record(key, record)
    return ext, _python_module(record) or compiled, ends


def model_of(name: str, spec_dir: str | None = None, extra: list[str] | None = None):
    """The model of game `name` declared in the spec folder (the installed spec by default)."""
    from hansa.compiler.model.build import build_model
    from hansa.compiler.project import load_project
    from hansa.compiler.rules.resolve import resolve

    if spec_dir is None:
        spec_dir = str(installed_spec())
    project = load_project([Path(p) for p in (extra or [])] + [Path(spec_dir)])
    project.raise_for_errors()
    if name not in project.games:
        raise HansaError(f"unknown game {name!r}{did_you_mean(name, project.games)}")
    decl = project.games[name]
    rules = resolve(decl.rules, project.rulesets)
    return build_model(decl, rules, project.boards[decl.board])


def installed_spec():
    """The spec folder the built games were compiled from: the package's `hansa.spec` data (the
    checkout's spec/ in an editable install)."""
    try:
        folder = Path(str(resources.files("hansa.spec")))
        if folder.is_dir() and any(folder.glob("*.hansa")):
            return folder
    except (ModuleNotFoundError, TypeError):
        pass
    folder = Path(__file__).resolve().parent.parent / "spec"
    if folder.is_dir():
        return folder
    raise HansaError("the native backend needs the spec the games were built from; none found")
