"""A PettingZoo AEC environment for every built game (docs/rl.md).

Each player is an agent `player_0` … `player_{n-1}`; the deciding player (maybe a displaced
opponent, not the turn player) is `agent_selection`. An observation is
`{"observation": the player's observation tensor, "action_mask": 0/1 int8 over every action id}`;
only the deciding player's mask has ones. Rewards are 0 until the game ends, then each player's
final PP (`state.returns()`). `max_decisions` truncates a game: every agent truncated, rewards 0
(hansa/rl/common.py). An action that is not a legal action id (1.7, "3", True, an illegal id)
raises `HansaError` and changes nothing.
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

import hansa
from hansa.play.simulate import derived_seed

from .common import SEED_BITS, action_mask, check_max_decisions, observation_space


def env(game: str = "bigbox-hanseatic-45p", players: int | None = None, **kwargs) -> HansaEnv:
    """The AEC environment of `game` for `players` (default: the game's smallest count)."""
    return HansaEnv(game, players, **kwargs)


class HansaEnv(AECEnv):
    metadata = {"name": "hansa_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        game: str = "bigbox-hanseatic-45p",
        players: int | None = None,
        render_mode: str | None = None,
        max_decisions: int | None = None,
        backend: str = "python",
    ) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise hansa.HansaError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.game = hansa.load_game(game, players, backend=backend)
        self.render_mode = render_mode
        self.max_decisions = check_max_decisions(max_decisions)
        n = self.game.num_players()
        self._actions = self.game.num_distinct_actions()
        self._tensors = self.game.observation_tensor_writer()
        self._size = self.game.observation_tensor_shape()[0]
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self._index = {name: p for p, name in enumerate(self.possible_agents)}
        space = observation_space(self.game)
        self.observation_spaces = {name: space for name in self.possible_agents}
        self.action_spaces = {name: spaces.Discrete(self._actions) for name in self.possible_agents}
        self._seeds = random.Random(0)
        self.state = None
        self.agents = []

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game; `seed` fixes this and the following games' shuffles and deals."""
        if seed is not None:
            self._seeds = random.Random(derived_seed("hansa-pettingzoo", seed))
        self.state = self.game.new_initial_state(self._seeds.getrandbits(SEED_BITS))
        self.decisions = 0
        self.agents = self.possible_agents[:]
        self.rewards = {name: 0 for name in self.agents}
        self._cumulative_rewards = {name: 0 for name in self.agents}
        self.terminations = {name: False for name in self.agents}
        self.truncations = {name: False for name in self.agents}
        self.infos = {name: {} for name in self.agents}
        self._ended = {}  # agent -> (terminated, truncated) once it has left the game
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent: str) -> dict:
        if self.state is None:
            EnvLogger.error_observe_before_reset()
        player = self._index[agent]
        cut = self.truncations.get(agent, True) and not self.state.is_terminal()
        if cut:  # a truncated game offers nobody a decision
            mask = np.zeros(self._actions, np.int8)
        else:
            mask = action_mask(self.state, self._actions, player)
        tensor = self._tensors.write(self.state, player, np.empty(self._size, np.float32))
        return {"observation": tensor, "action_mask": mask}

    def last(self, observe: bool = True):
        """As AECEnv.last; after the game (every agent has left) the last agent's final
        observation with reward 0 and its termination or truncation."""
        agent = self.agent_selection
        if self.state is not None and agent in self._ended:
            terminated, truncated = self._ended[agent]
            observation = self.observe(agent) if observe else None
            return observation, 0, terminated, truncated, {}
        return super().last(observe)

    def step(self, action) -> None:
        if self.state is None:
            EnvLogger.error_step_before_reset()
        if not self.agents:  # the game is over and every agent has left (PettingZoo: a no-op)
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._ended[agent] = (self.terminations[agent], self.truncations[agent])
            self._was_dead_step(action)
            return
        self.state.apply_action(action)  # an illegal action raises here and changes nothing
        self._cumulative_rewards[agent] = 0
        self.decisions += 1
        self.rewards = {name: 0 for name in self.agents}
        if self.state.is_terminal():
            for name, pp in zip(self.possible_agents, self.state.returns(), strict=True):
                self.rewards[name] = pp
                self.terminations[name] = True
        elif self.max_decisions is not None and self.decisions >= self.max_decisions:
            for name in self.agents:
                self.truncations[name] = True
        if not self.state.is_terminal():
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            print(self.render())

    def render(self) -> str | None:
        if self.render_mode is None or self.state is None:
            return None
        return repr(self.state)

    def close(self) -> None:
        pass
