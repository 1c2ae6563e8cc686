"""A single-agent Gymnasium environment: one seat learns, the others are played by an agent.

`HansaGymEnv(game, players, seat=0, opponents="greedy")`: observations are
`{"observation": float32 tensor, "action_mask": int8 mask}` for the learning seat; after its
action the other seats (any agent name `hansa play --agents` accepts) decide until the learning
seat decides again or the game ends. The reward is 0 until the end, then the seat's final PP.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

import hansa
from hansa.play.simulate import agent_seed, make_agent


class HansaGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str = "bigbox-hanseatic-45p",
        players: int | None = None,
        seat: int = 0,
        opponents: str = "greedy",
        render_mode: str | None = None,
    ) -> None:
        self.game = hansa.load_game(game, players)
        if not 0 <= seat < self.game.num_players():
            raise hansa.HansaError(f"seat must be 0 to {self.game.num_players() - 1}, got {seat}")
        self.seat = seat
        self.opponents = opponents
        self.render_mode = render_mode
        make_agent(opponents, 0)  # a bad agent name fails here, not in the middle of a game
        actions = self.game.num_distinct_actions()
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    0.0, np.inf, self.game.observation_tensor_shape(), np.float32
                ),
                "action_mask": spaces.Box(0, 1, (actions,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(actions)
        self.state = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(1 << 48))
        self.state = self.game.new_initial_state(game_seed)
        self._agents = [
            make_agent(self.opponents, agent_seed(game_seed, p))
            for p in range(self.game.num_players())
        ]
        self._others_play()
        return self._observe(), {}

    def step(self, action):
        self.state.apply_action(int(action))
        self._others_play()
        terminated = self.state.is_terminal()
        reward = float(self.state.returns()[self.seat]) if terminated else 0.0
        return self._observe(), reward, terminated, False, {}

    def render(self) -> str | None:
        return repr(self.state) if self.render_mode == "ansi" else None

    def _others_play(self) -> None:
        state = self.state
        while not state.is_terminal() and state.current_player() != self.seat:
            legal = state.legal_actions()
            state.apply_action(self._agents[state.current_player()].step(state, legal))

    def _observe(self) -> dict:
        mask = np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
        if not self.state.is_terminal():
            mask[self.state.legal_actions()] = 1
        return {
            "observation": self.state.observation_tensor(self.seat),
            "action_mask": mask,
        }
