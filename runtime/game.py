"""A loaded game: a generated rule module bound to a player count (OpenSpiel's `Game`)."""

from __future__ import annotations

import ast
import re
from types import ModuleType

from .errors import HansaError
from .names import did_you_mean, shown
from .serialize import decode
from .state import BaseState, GameInfo, module_info


class Game:
    """`new_initial_state(seed)`, `state_from_json(text)`, `num_distinct_actions()`, …"""

    def __init__(self, module: ModuleType, players: int | None = None) -> None:
        info = module_info(module)
        if players is None:
            players = info.player_counts[0]
        if isinstance(players, bool) or not isinstance(players, int):
            raise HansaError(f"players must be a whole number, got {players!r}")
        if players not in info.player_counts:
            counts = ", ".join(str(n) for n in info.player_counts)
            raise HansaError(f"game {info.name!r} is for {counts} players, not {players}")
        self.module = module
        self.info: GameInfo = info
        self.players = players

    @property
    def name(self) -> str:
        return self.info.name

    def num_players(self) -> int:
        return self.players

    def num_distinct_actions(self) -> int:
        return self.info.num_distinct_actions

    def new_initial_state(self, seed: int = 0) -> BaseState:
        """The start position; the seed fixes the bonus-marker draw (and nothing else is random)."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise HansaError(f"seed must be a whole number, got {seed!r}")
        state = self.module.new_initial_state(self.players, seed)
        state._cached = None
        return state

    def state_from_json(self, text: str | bytes | dict) -> BaseState:
        """Load a state written by `State.to_json` or by hand (docs/state-format.md), checked."""
        data = decode(text)
        try:
            state = self.module.state_from_dict(data, self.players)
        except HansaError as exc:
            raise _with_city_hint(exc, getattr(self.module, "CITY_NAMES", ())) from None
        state._cached = None
        return state

    def rule_fired(self) -> list[int]:
        """How often each rule of the module's RULE_SOURCES applied so far in this process, on
        any state of this game (agents' copies included): `hansa simulate` counts differences."""
        return list(getattr(self.module, "RULE_FIRED", ()))

    def action_to_string(self, action: int) -> str:
        return self.module.action_name(action)

    def random_steps(self, state: BaseState, steps: int, seed: int = 0) -> int:
        """`state.random_steps(steps, seed)`: up to `steps` uniformly random decisions in place,
        the same on both backends for the same seed (rollouts)."""
        return state.random_steps(steps, seed)

    # ---- observations (docs/game-api.md, "Observations")
    def observation_tensor_shape(self) -> tuple[int]:
        """The shape of `state.observation_tensor(player)`: one flat float32 vector."""
        return (self.module.observation_tensor_size(self.players),)

    def observation_tensor_layout(self) -> list[dict]:
        """The named blocks of the observation tensor, in order: name, offset, shape, meaning."""
        return [
            {"name": name, "offset": offset, "shape": shape, "meaning": meaning}
            for name, offset, shape, meaning in self.module.observation_tensor_layout(self.players)
        ]

    def observation_tensor_high(self) -> list[float]:
        """Per entry of the tensor, the most it can hold (1 for 0/1 entries; counts are raw)."""
        return self.module.tensor_codec(self.players).high()

    def observation_tensor_writer(self):
        """A `TensorWriter` (runtime/observation_tensor.py): `write(state, player, out)` writes the
        same tensor as `state.observation_tensor(player)` into `out` (a float32 vector), patching
        the last one it wrote for `player` instead of starting from nothing (what a learner
        stepping games wants)."""
        return self.module.tensor_codec(self.players).writer()

    def __repr__(self) -> str:
        return f"<hansa game {self.info.name!r}, {self.players} players>"


_NO_ROUTE = re.compile(r"no route between ('(?:[^'\\]|\\.)*'|\S+) and ('(?:[^'\\]|\\.)*'|\S+)$")


def _with_city_hint(error: HansaError, cities: tuple[str, ...]) -> HansaError:
    """A route named by a city the board does not have: say which, the likely intended city, and
    every city of the board (a state written by hand often uses another spelling)."""
    match = _NO_ROUTE.search(error.message)
    if not match or not cities:
        return error
    hints = []
    for quoted in match.groups():
        try:
            name = ast.literal_eval(quoted)
        except (ValueError, SyntaxError):
            continue
        if isinstance(name, str) and name not in cities:
            hints.append(f"{shown(name)} is no city of this board{did_you_mean(name, cities)}")
    if not hints:
        return error
    listed = ", ".join(cities)
    return HansaError(f"{error.message} ({'; '.join(hints)}; cities: {listed})", error.span)
