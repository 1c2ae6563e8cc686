"""The game-independent half of a state: the public API around a generated module's rule code.

`BaseState` is what every game shares: the cached legal-action list, validation of actions (an
illegal action raises and changes nothing), cloning, JSON, returns; a subclass supplies `_legal`,
`_apply`, `_copy_into`, `_current_player`, `_to_dict`, `_scores`, `_winners`, `_decision_name`,
`_action_string` and `_game_info`. `TableState` supplies those that only read the fields every
game has (and holds those fields), and the scores and winners through the module's own
`score_breakdown` and `winners`; a generated module's `State` subclasses it with its rules'
`_legal`, `_apply`, `_game_info` and the fields of its optional parts. The method names follow
OpenSpiel's.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .errors import HansaError
from .serialize import encode

TERMINAL = -4  # current_player() of a finished game (OpenSpiel's kTerminalPlayerId)
MASK64 = (1 << 64) - 1


def check_rollout(steps: object, seed: object) -> tuple[int, int]:
    """`random_steps`' arguments checked (one clear error each): a whole number of steps >= 0 and
    a seed from 0 to 2**64 - 1."""
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise HansaError(f"the number of random steps must be a whole number >= 0, got {steps!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MASK64:
        raise HansaError(f"seed must be a whole number from 0 to 2**64 - 1, got {seed!r}")
    return steps, seed


@dataclass(frozen=True)
class GameInfo:
    """What a generated module says about itself."""

    name: str
    rules: str
    board: str
    player_counts: tuple[int, ...]
    num_distinct_actions: int
    score_keys: tuple[str, ...]

    @classmethod
    def from_tables(cls, namespace: dict) -> GameInfo:
        """A generated module's own description, from its tables (`INFO`)."""
        return cls(
            name=namespace["GAME_NAME"],
            rules=namespace["RULES_NAME"],
            board=namespace["BOARD_ID"],
            player_counts=namespace["PLAYER_COUNTS"],
            num_distinct_actions=namespace["NUM_ACTIONS"],
            score_keys=namespace["SCORE_KEYS"],
        )


class BaseState:
    __slots__ = ("_cached",)

    def __init__(self) -> None:
        self._cached: list[int] | None = None

    # ---- decisions
    def current_player(self) -> int:
        """Whose decision it is (maybe a displaced opponent), or TERMINAL when the game is over."""
        return self._current_player()

    def legal_actions(self) -> list[int]:
        """The sorted legal action ids of the current decision (shared: do not mutate)."""
        cached = self._cached
        if cached is None:
            cached = self._cached = self._legal()
        return cached

    def legal_actions_mask(self) -> list[int]:
        mask = [0] * self._game_info().num_distinct_actions
        for a in self.legal_actions():
            mask[a] = 1
        return mask

    def apply_action(self, action: int) -> None:
        """Apply one decision. An illegal action raises HansaError, changing nothing."""
        cached = self._cached
        if cached is None:
            cached = self._cached = self._legal()
        if action.__class__ is not int:
            action = _as_action_id(action)  # numpy integers and the like (RL frameworks)
            if action.__class__ is not int:
                raise HansaError(self._illegal_message(action))
        if action not in cached:
            raise HansaError(self._illegal_message(action))
        self._apply(action)
        self._cached = None

    def _illegal_message(self, action: object) -> str:
        try:
            index = operator.index(action)  # type: ignore[arg-type]
        except TypeError:
            return f"illegal action {action!r}: an action is a whole number"
        if isinstance(action, bool):
            return f"illegal action {action!r}: an action is a whole number, not true/false"
        total = self._game_info().num_distinct_actions
        if not 0 <= index < total:
            return f"illegal action {index}: action ids run from 0 to {total - 1}"
        if self._current_player() == TERMINAL:
            return f"illegal action {index} ({self._action_string(index)}): the game is over"
        return (
            f"illegal action {index} ({self._action_string(index)}): not a legal choice for the "
            f"current decision, the {self._decision_name()}"
        )

    def action_to_string(self, action: int) -> str:
        return self._action_string(action)

    def is_terminal(self) -> bool:
        return self._current_player() == TERMINAL

    # ---- results
    def score_breakdown(self) -> list[dict[str, int]]:
        """Per player, the PP of each final-scoring category (A–F), as if the game ended now."""
        return self._scores()

    def returns(self) -> list[int]:
        """Final PP per player once the game is over; zeros before (OpenSpiel convention)."""
        if not self.is_terminal():
            return [0] * len(self._scores())
        return [sum(b.values()) for b in self._scores()]

    def winners(self) -> list[int]:
        """The winning players after the tie-break chain (several if the victory is shared)."""
        return self._winners()

    # ---- rollouts
    def random_steps(self, steps: int, seed: int = 0) -> int:
        """Apply up to `steps` uniformly random decisions in place; returns how many were made
        (fewer when the game ends). The choices come from a SplitMix64 stream seeded by `seed`,
        index `(draw * len(legal)) >> 64`: the native backend's loop, so the same position and
        seed give the same game on both backends."""
        steps, seed = check_rollout(steps, seed)
        x = seed
        made = 0
        while made < steps and not self.is_terminal():
            legal = self.legal_actions()
            if not legal:
                break
            x = (x + 0x9E3779B97F4A7C15) & MASK64
            z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
            z ^= z >> 31
            self.apply_action(legal[(z * len(legal)) >> 64])
            made += 1
        return made

    # ---- copying and saving
    def clone(self) -> BaseState:
        other = self.__class__.__new__(self.__class__)
        self._copy_into(other)
        other._cached = self._cached
        return other

    def __deepcopy__(self, memo: dict) -> BaseState:
        return self.clone()  # copy.deepcopy (OpenSpiel's Python states) at the price of a clone

    def deal(self) -> dict:
        """Secret cards dealt at setup, by kind (logs record it); {} when a game deals none."""
        return {}

    def to_dict(self) -> dict:
        return self._to_dict()

    def to_json(self) -> str:
        """The state as JSON (docs/state-format.md); `Game.state_from_json` reads it back."""
        return encode(self._to_dict())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BaseState):
            return NotImplemented
        return type(self) is type(other) and self._to_dict() == other._to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        return self.to_json()

    def __repr__(self) -> str:
        info = self._game_info()
        return f"<{info.name} state: {self._decision_name()}>"

    # ---- supplied by the generated module
    def _legal(self) -> list[int]:
        raise NotImplementedError

    def _apply(self, action: int) -> None:
        raise NotImplementedError

    def _copy_into(self, other: BaseState) -> None:
        raise NotImplementedError

    def _current_player(self) -> int:
        raise NotImplementedError

    def _to_dict(self) -> dict:
        raise NotImplementedError

    def _scores(self) -> list[dict[str, int]]:
        raise NotImplementedError

    def _winners(self) -> list[int]:
        raise NotImplementedError

    def _decision_name(self) -> str:
        raise NotImplementedError

    def _action_string(self, action: int) -> str:
        raise NotImplementedError

    def _game_info(self) -> GameInfo:
        raise NotImplementedError


class TableState(BaseState):
    """The half of a generated game's state that only reads its fields and tables: names, JSON,
    observations, rule facts through the module's own control rule, and the fast reads agents
    use. The module sets `_json` (its `StateJson`, runtime/state_json.py) and `_views` (its
    `Observations`, runtime/observation.py) on its `State` at import; the fields are the
    template's (`pt`, `post`, `filled`, `extra`, `stack`, …; a piece or post is a code
    player * 2 + kind, 0 trader and 1 merchant, -1 empty): flat lists indexed by small ints.

    Kept incrementally, so legal actions never scan the board: `mask` (free points per route),
    `full_owner`, `filled` (posts per city, a prefix), `onboard` (pieces per code on routes), `at`
    (each player's points), `free`, `free_house` (free points, and those of them a trader may
    take; all sorted)."""

    # The fields every game has (a game's own State adds the fields of its optional parts)
    __slots__ = (
        "num_players",
        "player",
        "actions_left",
        "ending",
        "terminal",
        "pt",
        "mask",
        "full_owner",
        "post",
        "filled",
        "extra",
        "special",
        "rmark",
        "supply",
        "stock",
        "onboard",
        "at",
        "free",
        "free_house",
        "level",
        "track",
        "unused",
        "used",
        "fresh",
        "plate",
        "msupply",
        "out",
        "completed",
        "ew",
        "stack",
    )
    _json: Any
    _views: Any

    def _copy_into(self, other: TableState) -> None:
        """Lists of immutable values clone with a slice; tuples are shared."""
        other.num_players = self.num_players
        other.player = self.player
        other.actions_left = self.actions_left
        other.ending = self.ending
        other.terminal = self.terminal
        other.pt = self.pt[:]
        other.mask = self.mask[:]
        other.full_owner = self.full_owner[:]
        other.post = self.post[:]
        other.filled = self.filled[:]
        other.extra = self.extra[:]
        other.special = self.special[:]
        other.rmark = self.rmark[:]
        other.supply = self.supply[:]
        other.stock = self.stock[:]
        other.onboard = self.onboard[:]
        other.at = [points[:] for points in self.at]
        other.free = self.free[:]
        other.free_house = self.free_house[:]
        other.level = self.level[:]
        other.track = self.track[:]
        other.unused = self.unused[:]
        other.used = self.used[:]
        other.fresh = self.fresh
        other.plate = self.plate
        other.msupply = self.msupply
        other.out = self.out
        other.completed = self.completed
        other.ew = self.ew
        other.stack = self.stack[:]

    def is_terminal(self) -> bool:
        return self.terminal

    def _current_player(self) -> int:
        if self.terminal:
            return TERMINAL
        if self.stack:
            return self.stack[-1][1]
        return self.player

    def _decision_name(self) -> str:
        if self.terminal:
            return "none (the game is over)"
        if self.stack:
            top = self.stack[-1]
            return f"{self._json.g.FRAME_NAMES[top[0]]} decision of player {top[1]}"
        return f"turn decision of player {self.player} ({self.actions_left} actions left)"

    def _action_string(self, action: int) -> str:
        return self._json.action_name(action)

    def _scores(self) -> list[dict[str, int]]:
        return self._views.g.score_breakdown(self)

    def _winners(self) -> list[int]:
        return self._views.g.winners(self)

    def _to_dict(self) -> dict:
        return self._json.to_dict(self)

    # ---- observations and rule facts (docs/game-api.md)
    def observation(self, player: int) -> dict:
        return self._views.observation(self, player)

    def information_state_string(self, player: int) -> str:
        return self._views.information_state_string(self, player)

    def observation_tensor(self, player: int, out=None):
        return self._views.g.observation_tensor(self, player, out)

    def resample_hidden(self, rng, observer: int | None = None) -> None:
        self._views.resample_hidden(self, rng, observer)

    def controller_if_post(self, c: int, player: int, additional: bool = False) -> int:
        return self._views.controller_if_post(self, c, player, additional)

    def controller_if_exchange(self, space: int) -> int:
        return self._views.controller_if_exchange(self, space)

    def networks(self, player: int) -> list[tuple[int, ...]]:
        return self._views.networks(self, player)

    def score_total(self, player: int) -> int:
        """`player`'s PP as if the game ended now, every scoring category added up: one row of
        score_breakdown(), at a fraction of its cost (agents compare it before and after a move)."""
        return self._views.score_total(self, player)

    def score_if_post(self, c: int, player: int, additional: bool = False) -> int:
        """`score_total(player)` with one more post of `player` in city `c` (placed as in
        `controller_if_post`); the state is left as it was."""
        return self._views.score_if_post(self, c, player, additional)

    def marker_supply_size(self) -> int:
        """Face-down bonus markers left in the supply (public; their order is not)."""
        return len(self.msupply)

    def end_conditions_met(self) -> list[str]:
        """The end triggers whose condition holds now, by name (a catalogue kind, or a rule's
        words): the game ends after the action in which one becomes true. An end that is an event
        inside an action rather than a condition is never listed."""
        if not self._json.x_end:
            return []
        return self._json.g._x_ends_met(self, self.player)

    def city_controller(self, c: int) -> int:
        """Who controls city `c` now (-1: nobody), by the game's own control rule."""
        return self._views.g._controller(self, c)

    def city_posts(self, c: int) -> list[int]:
        """The posts of city `c` from lowest to highest value (additional posts first)."""
        return self._views.g._posts_left_to_right(self, c)

    def ability_level(self, player: int, ability: int) -> int:
        """How many times `player` has developed `ability` (ABILITY_NAMES numbers them)."""
        return self.level[player * len(self._views.g.ABILITY_NAMES) + ability]

    def ability_value(self, player: int, ability: int) -> int:
        """The value of `player`'s `ability` now (its track's leftmost uncovered value)."""
        return self._views.g._ability_value(self, player, ability)

    def mission_cities(self, player: int) -> tuple[int, ...]:
        """The cities on `player`'s secret mission card; () in games without mission cards."""
        return ()

    def mission_score(self, player: int) -> int:
        """What `player`'s mission card scores now (0 in games without mission cards)."""
        return 0

    # Fast reads for agents (no copies: the lists are the state's own, do not mutate them).
    def point_pieces(self) -> list[int]:
        """The piece on each connection point (POINT_ROUTE/ROUTE_POINTS number them)."""
        return self.pt

    def space_posts(self) -> list[int]:
        """The post on each trading-post space (CITY_SPACES numbers them)."""
        return self.post

    def posts_filled(self) -> list[int]:
        """Per city, how many of its spaces hold a post (they fill from the left)."""
        return self.filled

    def additional_posts(self) -> list[tuple[int, ...]]:
        """Per city, its additional trading posts, leftmost first."""
        return self.extra

    def personal_supply(self, player: int) -> tuple[int, int]:
        """(traders, merchants) in `player`'s personal supply."""
        return self.supply[2 * player], self.supply[2 * player + 1]

    def general_stock(self, player: int) -> tuple[int, int]:
        """(traders, merchants) of `player` in the general stock."""
        return self.stock[2 * player], self.stock[2 * player + 1]

    def track_pp(self) -> list[int]:
        """PP on the score track, per player."""
        return self.track

    def route_markers(self) -> list[int]:
        """The bonus-marker type lying on each route (MARKER_KEYS numbers them), -1 for none."""
        return self.rmark

    def unused_markers(self, player: int) -> tuple[int, ...]:
        return self.unused[player]

    def completed_cities(self) -> int:
        return self.completed

    def actions_remaining(self) -> int:
        """Actions left in the running turn."""
        return self.actions_left

    def held_pieces(self) -> tuple[int, ...]:
        """The pieces the current move decision holds, put down first to last (else empty)."""
        if self.stack and self.stack[-1][0] == self._json.g.F_MOVE:
            return self.stack[-1][4]
        return ()

    def decision_route(self) -> int:
        """The route the current decision is about (a route being created, a displaced piece's
        route, a permanent marker's route in games with permanent markers), else -1."""
        if self.stack:
            top = self.stack[-1]
            if top[0] in self._json.route_frames:
                return top[2]
        return -1

    def route_full_owners(self) -> list[int]:
        """Per route, the player whose pieces fill every point of it (may create it), else -1."""
        return self.full_owner


def _as_action_id(action: object) -> object:
    """An integer-like action (numpy.int64, …) as an int; anything else is returned unchanged and
    then reported as illegal (bool is not an action)."""
    if isinstance(action, bool):
        return action
    try:
        return operator.index(action)  # type: ignore[arg-type]
    except TypeError:
        return action


def module_info(module: ModuleType) -> GameInfo:
    info = getattr(module, "INFO", None)
    if not isinstance(info, GameInfo):
        raise HansaError(f"module {module.__name__} is not a generated hansa game module")
    return info
