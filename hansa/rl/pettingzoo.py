"""A PettingZoo AEC environment for every built game (docs/rl.md).

Each player is an agent `player_0` … `player_{n-1}`; the deciding player (maybe a displaced
opponent, not the turn player) is `agent_selection`. An observation is
`{"observation": state.observation_tensor(player), "action_mask": 0/1 int8 over every action id}`;
only the deciding player's mask has ones. Rewards are 0 until the game ends, then each player's
final PP (`state.returns()`). `max_decisions` truncates a game (every agent truncated).
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import hansa
from hansa.play.simulate import derived_seed


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
    ) -> None:
        super().__init__()
        self.game = hansa.load_game(game, players)
        self.render_mode = render_mode
        self.max_decisions = max_decisions
        n = self.game.num_players()
        actions = self.game.num_distinct_actions()
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self._index = {name: p for p, name in enumerate(self.possible_agents)}
        observation = spaces.Dict(
            {
                "observation": spaces.Box(
                    0.0, np.inf, self.game.observation_tensor_shape(), np.float32
                ),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }
        )
        self.observation_spaces = {name: observation for name in self.possible_agents}
        self.action_spaces = {name: spaces.Discrete(actions) for name in self.possible_agents}
        self._seeds = random.Random(0)
        self.state = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game; `seed` fixes this and the following games' marker draws."""
        if seed is not None:
            self._seeds = random.Random(derived_seed("hansa-pettingzoo", seed))
        self.state = self.game.new_initial_state(self._seeds.getrandbits(48))
        self.decisions = 0
        self.agents = self.possible_agents[:]
        self.rewards = {name: 0 for name in self.agents}
        self._cumulative_rewards = {name: 0 for name in self.agents}
        self.terminations = {name: False for name in self.agents}
        self.truncations = {name: False for name in self.agents}
        self.infos = {name: {} for name in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent: str) -> dict:
        player = self._index[agent]
        mask = np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
        if not self.state.is_terminal() and self.state.current_player() == player:
            mask[self.state.legal_actions()] = 1
        return {"observation": self.state.observation_tensor(player), "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.state.apply_action(int(action))
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
