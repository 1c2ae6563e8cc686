"""A PettingZoo AEC environment for every built game (docs/rl.md).

Each player is an agent `player_0` … `player_{n-1}`; the deciding player (maybe a displaced
opponent, not the turn player) is `agent_selection`. An observation is
`{"observation": the player's observation tensor, "action_mask": 0/1 int8 over every action id}`;
only the deciding player's mask has ones. Rewards (`reward=`, `shaped=`: hansa/rl/rewards.py) are
by default 0 until the game ends, then each player's final PP. `max_decisions` truncates a game:
every agent truncated, no outcome paid (hansa/rl/common.py). An action that is not a legal action
id (1.7, "3", True, an illegal id) raises `HansaError` and changes nothing.

`state()` is PettingZoo's global state (for a centralised critic): the position in seat order with
nobody's secrets (`public_tensor`); the hansa state is `hansa_state`. `information_state(agent)`
is the agent's information-state tensor (hansa/rl/infostate.py), `board_graph` the board as arrays
(hansa/rl/graph.py); `render()` draws the board (hansa/rl/render.py).
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

import hansa
from hansa.play.simulate import derived_seed

from .common import (
    SEED_BITS,
    action_mask,
    check_max_decisions,
    observation_space,
    public_space,
    public_tensor,
)
from .graph import board_graph
from .infostate import InformationState, layout_of
from .render import RENDER_MODES, BoardPicture, check_render_mode, render
from .rewards import RewardTracker


def env(game: str = "bigbox-hanseatic-45p", players: int | None = None, **kwargs) -> HansaEnv:
    """The AEC environment of `game` for `players` (default: the game's smallest count)."""
    return HansaEnv(game, players, **kwargs)


class HansaEnv(AECEnv):
    metadata = {
        "name": "hansa_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        game: str = "bigbox-hanseatic-45p",
        players: int | None = None,
        render_mode: str | None = None,
        max_decisions: int | None = None,
        backend: str = "python",
        reward: str = "pp",
        shaped: float = 0.0,
    ) -> None:
        super().__init__()
        check_render_mode(render_mode, RENDER_MODES)
        self._rewards = RewardTracker(reward, shaped)
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
        self.hansa_state = None
        self.agents = []
        self.state_space = public_space(self.game)
        self._info_layout = layout_of(self.game)
        self.information_state_spaces = {
            name: spaces.Box(0.0, self._info_layout.high(), dtype=np.float32)
            for name in self.possible_agents
        }
        self._history = InformationState()
        self._picture = None

    @property
    def board_graph(self) -> dict:
        """The board as arrays for graph networks (hansa/rl/graph.py)."""
        return board_graph(self.game)

    def state(self) -> np.ndarray:
        """PettingZoo's global state: the public position, owners in seat order (player 0 first),
        nobody's secrets — so a centralised critic learns nothing a seat may not see."""
        if self.hansa_state is None:
            EnvLogger.error_state_before_reset()
        return public_tensor(self.game, self.hansa_state)

    def information_state(self, agent: str) -> np.ndarray:
        """`agent`'s information-state tensor (hansa/rl/infostate.py): its observation, the
        public setup and the last decisions, in a fixed size."""
        if self.hansa_state is None:
            EnvLogger.error_observe_before_reset()
        if agent not in self._index:
            shown = ", ".join(self.possible_agents)
            raise hansa.HansaError(f"no agent {agent!r} (agents: {shown})")
        return self._history.tensor(self._info_layout, self.hansa_state, self._index[agent])

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game; `seed` fixes this and the following games' shuffles and deals."""
        if seed is not None:
            self._seeds = random.Random(derived_seed("hansa-pettingzoo", seed))
        self.hansa_state = self.game.new_initial_state(self._seeds.getrandbits(SEED_BITS))
        self._rewards.reset(self.hansa_state)
        self._history.reset(self._info_layout, self.hansa_state)
        self.decisions = 0
        self.agents = self.possible_agents[:]
        self.rewards = {name: 0 for name in self.agents}
        self._cumulative_rewards = {name: 0 for name in self.agents}
        self.terminations = {name: False for name in self.agents}
        self.truncations = {name: False for name in self.agents}
        self.infos = {name: {} for name in self.agents}
        self._ended = {}  # agent -> (terminated, truncated) once it has left the game
        self.agent_selection = self.possible_agents[self.hansa_state.current_player()]

    def observe(self, agent: str) -> dict:
        if self.hansa_state is None:
            EnvLogger.error_observe_before_reset()
        player = self._index[agent]
        state = self.hansa_state
        cut = self.truncations.get(agent, True) and not state.is_terminal()
        if cut:  # a truncated game offers nobody a decision
            mask = np.zeros(self._actions, np.int8)
        else:
            mask = action_mask(state, self._actions, player)
        tensor = self._tensors.write(state, player, np.empty(self._size, np.float32))
        return {"observation": tensor, "action_mask": mask}

    def last(self, observe: bool = True):
        """As AECEnv.last; after the game (every agent has left) the last agent's final
        observation with reward 0 and its termination or truncation."""
        agent = self.agent_selection
        if self.hansa_state is not None and agent in self._ended:
            terminated, truncated = self._ended[agent]
            observation = self.observe(agent) if observe else None
            return observation, 0, terminated, truncated, {}
        return super().last(observe)

    def step(self, action) -> None:
        if self.hansa_state is None:
            EnvLogger.error_step_before_reset()
        if not self.agents:  # the game is over and every agent has left (PettingZoo: a no-op)
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._ended[agent] = (self.terminations[agent], self.truncations[agent])
            self._was_dead_step(action)
            return
        state = self.hansa_state
        player = state.current_player()
        state.apply_action(action)  # an illegal action raises here and changes nothing
        self._history.record(player, action)
        self._cumulative_rewards[agent] = 0
        self.decisions += 1
        self.rewards = {name: 0 for name in self.agents}
        terminated = state.is_terminal()
        paid = self._rewards.step(state, terminated) if terminated or self._rewards.shaped else None
        if paid is not None:
            for name, value in zip(self.possible_agents, paid, strict=True):
                self.rewards[name] = value
        if terminated:
            for name in self.possible_agents:
                self.terminations[name] = True
        elif self.max_decisions is not None and self.decisions >= self.max_decisions:
            for name in self.agents:
                self.truncations[name] = True
        if not terminated:
            self.agent_selection = self.possible_agents[state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """The board (public information only): an RGB picture, text, or the text printed."""
        if self.render_mode is None or self.hansa_state is None:
            return None
        return render(self.hansa_state, self.render_mode, self._pictures)

    def _pictures(self) -> BoardPicture:
        if self._picture is None:
            self._picture = BoardPicture(self.game)
        return self._picture

    def close(self) -> None:
        pass
