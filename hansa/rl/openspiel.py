"""OpenSpiel games: `register()` registers one pyspiel Python game per built game (docs/rl.md).

Short names are `hansa_<module>` (`hansa_bigbox_hanseatic_45p`); parameters `players` (default the
game's smallest count) and `max_decisions` (0 = none: stop a game after that many decisions and
score it as if it ended there).

GameType: sequential, general-sum, terminal rewards (final PP), EXPLICIT_STOCHASTIC with IMPERFECT
information. The rules' only randomness is the setup shuffle (start markers on the taverns and the
order of the face-down marker supply). It is one explicit chance node at the start whose outcome,
one of SETUP_OUTCOMES equally likely seeds, fixes the whole shuffle. No player observes that
outcome: players see the tavern markers at once and each drawn marker when it is laid face up,
but never the order still face down — so the game is declared imperfect-information, and the
information state (`information_state_string`) is the players' action history plus the public
position.
(SAMPLED_STOCHASTIC cannot be used: OpenSpiel's simulation test with serialization needs the game's
generator state, which pyspiel's Python games cannot provide.)
"""

from __future__ import annotations

import json

import numpy as np
import pyspiel

import hansa

MAX_UTILITY = 1000.0  # a loose bound on final PP (real games end near 30-80)
SETUP_OUTCOMES = 1 << 16  # equally likely setup seeds of the chance node
_REGISTERED: dict[str, str] = {}
_GAMES: dict[tuple[str, int], hansa.Game] = {}


def _hansa_game(name: str, players: int):
    """The loaded game (kept out of states: OpenSpiel deep-copies a state's attributes)."""
    key = (name, players)
    if key not in _GAMES:
        _GAMES[key] = hansa.load_game(name, players)
    return _GAMES[key]


def short_name(game_name: str) -> str:
    return "hansa_" + hansa.available_games()[game_name]


def register() -> dict[str, str]:
    """Register every built game with pyspiel; returns hansa name -> OpenSpiel short name."""
    for name in sorted(hansa.available_games()):
        if name in _REGISTERED:
            continue
        short = short_name(name)
        if short not in pyspiel.registered_names():
            _register_one(name, short)
        _REGISTERED[name] = short
    return dict(_REGISTERED)


def _register_one(name: str, short: str) -> None:
    counts = hansa.load_game(name).info.player_counts
    game_type = pyspiel.GameType(
        short_name=short,
        long_name=f"Hansa Teutonica: {name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(counts),
        min_num_players=min(counts),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": min(counts), "max_decisions": 0},
    )

    class Game(pyspiel.Game):
        def __init__(self, params=None):
            params = dict(params or {})
            players = int(params.get("players", min(counts)))
            self.hansa_game = _hansa_game(name, players)
            self.hansa_key = (name, players)
            self.max_decisions = int(params.get("max_decisions", 0))
            info = pyspiel.GameInfo(
                num_distinct_actions=self.hansa_game.num_distinct_actions(),
                max_chance_outcomes=SETUP_OUTCOMES,
                num_players=players,
                min_utility=0.0,
                max_utility=MAX_UTILITY,
                utility_sum=None,
                max_game_length=self.max_decisions or 1_000_000,  # decisions of players
            )
            super().__init__(game_type, info, params)

        def new_initial_state(self):
            return State(self)

        def make_py_observer(self, iig_obs_type=None, params=None):
            return Observer(self.hansa_game, iig_obs_type, params)

    Game.__name__ = Game.__qualname__ = f"HansaGame_{short}"
    pyspiel.register_game(game_type, Game)


class State(pyspiel.State):
    """An OpenSpiel state around a hansa state (`self.hansa_state`)."""

    def __init__(self, game) -> None:
        super().__init__(game)
        self.hansa_key = game.hansa_key
        self.hansa_state = None  # until the setup chance node is resolved
        self.decisions = 0
        self.max_decisions = game.max_decisions
        self.truncated = False

    def current_player(self):
        if self.hansa_state is None:
            return pyspiel.PlayerId.CHANCE
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.hansa_state.current_player()

    def chance_outcomes(self):
        probability = 1.0 / SETUP_OUTCOMES
        return [(seed, probability) for seed in range(SETUP_OUTCOMES)]

    def _legal_actions(self, player):
        if self.hansa_state is None:
            return list(range(SETUP_OUTCOMES)) if player == pyspiel.PlayerId.CHANCE else []
        if self.is_terminal() or player != self.hansa_state.current_player():
            return []
        return list(self.hansa_state.legal_actions())

    def _apply_action(self, action):
        if self.hansa_state is None:
            self.hansa_state = _hansa_game(*self.hansa_key).new_initial_state(int(action))
            return
        self.hansa_state.apply_action(int(action))
        self.decisions += 1
        if self.max_decisions and self.decisions >= self.max_decisions:
            self.truncated = not self.hansa_state.is_terminal()

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"setup shuffle {action}"
        return _hansa_game(*self.hansa_key).action_to_string(int(action))

    def is_terminal(self):
        return self.hansa_state is not None and (self.truncated or self.hansa_state.is_terminal())

    def returns(self):
        if self.hansa_state is None:
            return [0.0] * self.num_players()
        if self.truncated:  # scored as if the game ended now
            return [float(sum(b.values())) for b in self.hansa_state.score_breakdown()]
        return [float(r) for r in self.hansa_state.returns()]

    def __str__(self):
        if self.hansa_state is None:
            return "setup: the markers are not shuffled yet"
        return self.hansa_state.to_json()


class Observer:
    """The PyObserver of a hansa game: the observation tensor and string (`perfect_recall`
    prefixes the string with the public action history, which is the information state)."""

    def __init__(self, hansa_game, iig_obs_type, params) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.perfect_recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
        self.tensor = np.zeros(hansa_game.observation_tensor_shape(), np.float32)
        self.dict = {}
        for block in hansa_game.observation_tensor_layout():
            size = int(np.prod(block["shape"]))
            start = block["offset"]
            self.dict[block["name"]] = self.tensor[start : start + size].reshape(block["shape"])

    def set_from(self, state, player) -> None:
        if state.hansa_state is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = state.hansa_state.observation_tensor(player)

    def string_from(self, state, player) -> str:
        if state.hansa_state is None:
            return "setup"
        text = state.hansa_state.information_state_string(player)
        if self.perfect_recall:  # the players' actions, never the hidden chance outcome
            return json.dumps(state.history()[1:]) + "\n" + text
        return text
