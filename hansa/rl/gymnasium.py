"""Gymnasium environments: one seat against agents, or every seat (self-play); one game or N.

`HansaGymEnv(game, players, seat=0, opponents="greedy")`: the learning seat's observations are
`{"observation": float32 tensor, "action_mask": int8 mask}`; after its action the other seats
(any agent name `hansa play --agents` accepts) decide until the seat decides again or the game
ends. The reward is 0 until the end, then the seat's final PP. `seat=None` is self-play: every
decision is a step, the observation is the deciding player's, and the reward at the end is the
final PP of the player who took the last decision (`info["returns"]`: everybody's).

`HansaVectorEnv(game, num_envs, players, …)`: the same for N games at once, a Gymnasium
`VectorEnv` that writes every observation into preallocated arrays and resets a finished game in
the same step (`AutoresetMode.SAME_STEP`: `infos["final_obs"]`, `infos["final_info"]`).

Illegal actions (`illegal_action=`): "penalty" (default) leaves the state unchanged, rewards
`illegal_penalty` (-1.0) and sets `info["illegal_action"]`; "raise" raises `HansaError`. Either
way `info["action_mask"]` (and `action_masks()`) gives the legal actions. An action outside the
action space (1.7, "3", -1) is not a policy's choice: it raises `gymnasium.error.InvalidAction`.
Truncation (`max_decisions`) is as in every adapter (hansa/rl/common.py).

Importing this module registers `hansa/<game>-v0` for every built game:
`gymnasium.make("hansa/bigbox-hanseatic-45p-v0", players=4)`,
`gymnasium.make_vec("hansa/bigbox-hanseatic-45p-v0", num_envs=64, players=4, seat=None)`;
with `backend="native"`, `make_vec` returns the batched native environment (hansa/rl/batched.py).
"""

from __future__ import annotations

import operator

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import InvalidAction, ResetNeeded
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import hansa
from hansa.play.simulate import agent_seed, make_agent

from .batched import HansaBatchedEnv
from .common import SEED_BITS, check_max_decisions, check_num_envs, observation_space
from .graph import board_graph
from .infostate import InformationState, layout_of
from .render import RENDER_MODES, BoardPicture, check_render_mode, render
from .rewards import RewardTracker, check_reward

ILLEGAL_ACTION_POLICIES = ("penalty", "raise")


class _Game:
    """One game of an environment: the state, the other seats' agents, decisions so far, and
    the writer of its observations. `observer` is whose observation the environment shows: the
    seat, or (self-play) whoever decides — after the game, whoever decided last."""

    __slots__ = (
        "env",
        "state",
        "over",
        "decisions",
        "observer",
        "agents",
        "tensors",
        "rewards",
        "paid",
        "history",
    )

    def __init__(self, env: _Settings) -> None:
        self.env = env
        self.state = None
        self.over = True
        self.decisions = 0
        self.observer = 0 if env.seat is None else env.seat
        self.agents = []
        self.tensors = env.game.observation_tensor_writer()
        self.rewards = RewardTracker(env.reward, env.shaped)
        self.paid: list[float] | None = None  # every player's rewards of the last step
        self.history = InformationState()  # what every player has seen (information_state)

    def reset(self, seed: int) -> None:
        env = self.env
        self.state = env.game.new_initial_state(seed)
        self.decisions = 0
        self.over = False
        self.rewards.reset(self.state)
        self.history.reset(env.info_layout, self.state)
        if env.seat is None:
            self.observer = self.state.current_player()
        else:
            self.agents = [
                make_agent(env.opponents, agent_seed(seed, p)) for p in range(env.players)
            ]
            self._others_play()
            self.over = self.state.is_terminal()

    def step(self, action) -> tuple[float, bool, bool, bool]:
        """Apply the observer's action: (reward, terminated, truncated, illegal)."""
        env = self.env
        state = self.state
        if action.__class__ is not int or not 0 <= action < env.actions:
            action = _action_id(action, env.actions)
        try:
            state.apply_action(action)
        except hansa.HansaError:
            if env.illegal_action == "raise" or action in state.legal_actions():
                raise  # raise mode, or an error of the rules themselves: never a penalty
            return env.illegal_penalty, False, False, True
        self.decisions += 1
        acting = self.observer
        self.history.record(acting, action)
        if env.seat is not None:
            self._others_play()
        terminated = state.is_terminal()
        if terminated or env.shaped:  # else nothing to pay (hansa/rl/rewards.py)
            paid = self.paid = self.rewards.step(state, terminated)
            reward = 0.0 if paid is None else paid[acting]
        else:
            self.paid, reward = None, 0.0
        if terminated:
            self.over = True
            return reward, True, False, False
        if env.seat is None:
            self.observer = state.current_player()
        if env.max_decisions is not None and self.decisions >= env.max_decisions:
            self.over = True
            return reward, False, True, False
        return reward, False, False, False

    def write(self, tensor, mask) -> None:
        """The observer's tensor into `tensor` and the legal actions into `mask` (memoryviews of
        one row each; the mask's zeros come from `env.no_actions`)."""
        if tensor is self.tensors.home:
            self.tensors.write_home(self.state, self.observer)
        else:
            self.tensors.write(self.state, self.observer, tensor)
        mask[:] = self.env.no_actions
        if not self.over:
            for action in self.state.legal_actions():
                mask[action] = 1

    def _others_play(self) -> None:
        env = self.env
        state = self.state
        limit = env.max_decisions
        while not state.is_terminal() and state.current_player() != env.seat:
            if limit is not None and self.decisions >= limit:
                return
            legal = state.legal_actions()
            player = state.current_player()
            action = self.agents[player].step(state, legal)
            state.apply_action(action)
            self.decisions += 1
            self.history.record(player, action)


class _Settings:
    """What every game of an environment shares (checked once)."""

    def __init__(
        self,
        game,
        players,
        seat,
        opponents,
        max_decisions,
        illegal_action,
        illegal_penalty,
        backend="python",
        reward="pp",
        shaped=0.0,
    ) -> None:
        self.reward, self.shaped = check_reward(reward, shaped)
        self.game = hansa.load_game(game, players, backend=backend)
        self.info_layout = layout_of(self.game)
        self.players = self.game.num_players()
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players
        ):
            raise hansa.HansaError(f"seat must be 0 to {self.players - 1} or None, got {seat!r}")
        self.seat = seat
        self.opponents = opponents
        if seat is not None:
            make_agent(opponents, 0)  # a bad agent name fails here, not in the middle of a game
        self.max_decisions = check_max_decisions(max_decisions)
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise hansa.HansaError(
                f"illegal_action must be 'penalty' or 'raise', got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.actions = self.game.num_distinct_actions()
        self.size = self.game.observation_tensor_shape()[0]
        self.no_actions = memoryview(bytes(self.actions)).cast("b")


class HansaGymEnv(gymnasium.Env):
    """One game; see the module docstring."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(
        self,
        game: str = "bigbox-hanseatic-45p",
        players: int | None = None,
        seat: int | None = 0,
        opponents: str = "greedy",
        render_mode: str | None = None,
        max_decisions: int | None = None,
        illegal_action: str = "penalty",
        illegal_penalty: float = -1.0,
        backend: str = "python",
        reward: str = "pp",
        shaped: float = 0.0,
    ) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        self._settings = _Settings(
            game,
            players,
            seat,
            opponents,
            max_decisions,
            illegal_action,
            illegal_penalty,
            backend,
            reward,
            shaped,
        )
        self.game = self._settings.game
        self.seat = seat
        self.render_mode = render_mode
        self.observation_space = observation_space(self.game)
        self.action_space = spaces.Discrete(self._settings.actions)
        self._game = _Game(self._settings)
        self._picture = None
        self.information_state_space = spaces.Box(
            0.0, self._settings.info_layout.high(), dtype=np.float32
        )

    @property
    def state(self):
        """The hansa state of the running game (None before the first reset)."""
        return self._game.state

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._game.reset(_game_seed(self.np_random))
        observation = self._observe()
        info = {"action_mask": observation["action_mask"].copy(), "player": self._game.observer}
        return observation, info

    def step(self, action):
        if self._game.state is None:
            raise ResetNeeded("Cannot call env.step() before calling env.reset()")
        if self._game.over:
            raise ResetNeeded("The game is over (terminated or truncated): call env.reset()")
        reward, terminated, truncated, illegal = self._game.step(action)
        observation = self._observe()
        info = {"action_mask": observation["action_mask"].copy(), "player": self._game.observer}
        if illegal:
            info["illegal_action"] = True
        if terminated and self.seat is None:
            info["returns"] = list(self._game.state.returns())
        if self.seat is None and self._game.paid is not None:
            info["rewards"] = list(self._game.paid)  # every player's, for the decision taken
        if self.render_mode == "human":
            self.render()
        return observation, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The legal actions of the observation just returned (sb3-contrib's MaskablePPO)."""
        mask = np.zeros(self._settings.actions, np.int8)
        if self._game.state is not None and not self._game.over:
            mask[self._game.state.legal_actions()] = 1
        return mask

    def render(self) -> str | np.ndarray | None:
        """The board: an RGB picture (`rgb_array`), text (`ansi`), or the text printed (`human`);
        public information only, the same for every seat (hansa/rl/render.py)."""
        if self._game.state is None:
            return None
        return render(self._game.state, self.render_mode, self._pictures)

    def _pictures(self):
        if self._picture is None:
            self._picture = BoardPicture(self.game)
        return self._picture

    def information_state(self) -> np.ndarray:
        """The observer's information-state tensor (hansa/rl/infostate.py): the observation, the
        public setup and the last decisions, fixed size. Only the observer's (the seat's, or in
        self-play the decider's), as for the observation: another seat's would show its secrets."""
        game = self._game
        if game.state is None:
            raise ResetNeeded("Cannot call env.information_state() before calling env.reset()")
        return game.history.tensor(self._settings.info_layout, game.state, game.observer)

    @property
    def board_graph(self) -> dict:
        """The board as arrays for graph networks (hansa/rl/graph.py)."""
        return board_graph(self.game)

    def _observe(self) -> dict:
        settings = self._settings
        tensor = np.empty(settings.size, np.float32)
        mask = np.empty(settings.actions, np.int8)
        self._game.write(memoryview(tensor), memoryview(mask))
        return {"observation": tensor, "action_mask": mask}


class HansaVectorEnv(VectorEnv):
    """N games stepped together; see the module docstring. Observations are written into
    preallocated arrays, row i patched in place by game i's TensorWriter (`copy=False` returns
    those arrays themselves: valid until the next step, and not to be written to)."""

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        game: str = "bigbox-hanseatic-45p",
        num_envs: int = 1,
        players: int | None = None,
        seat: int | None = 0,
        opponents: str = "greedy",
        max_decisions: int | None = None,
        illegal_action: str = "penalty",
        illegal_penalty: float = -1.0,
        copy: bool = True,
        render_mode: str | None = None,
        backend: str = "python",
        reward: str = "pp",
        shaped: float = 0.0,
    ) -> None:
        check_num_envs(num_envs)
        settings = self._settings = _Settings(
            game,
            players,
            seat,
            opponents,
            max_decisions,
            illegal_action,
            illegal_penalty,
            backend,
            reward,
            shaped,
        )
        if render_mode is not None:
            raise hansa.HansaError(f"the vector environment does not render, got {render_mode!r}")
        self.game = settings.game
        self.seat = seat
        self.num_envs = num_envs
        self.copy = copy
        self.single_observation_space = observation_space(self.game)
        self.single_action_space = spaces.Discrete(settings.actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._games = [_Game(settings) for _ in range(num_envs)]
        self._tensors = np.zeros((num_envs, settings.size), np.float32)
        self._masks = np.zeros((num_envs, settings.actions), np.int8)
        self._rows = [
            (memoryview(self._tensors[i]), memoryview(self._masks[i])) for i in range(num_envs)
        ]
        for game, (tensor, _mask) in zip(self._games, self._rows, strict=True):
            game.tensors.set_home(tensor)  # row i is game i's: patched in place
        self._rngs = [seeding.np_random()[0] for _ in range(num_envs)]  # game seeds, per game
        self._players = [0] * num_envs  # whose observation each row is
        self._reset_once = False

    @property
    def states(self) -> list:
        """The hansa state of each game."""
        return [g.state for g in self._games]

    def information_state(self) -> np.ndarray:
        """(num_envs, size): each row's information-state tensor, for the player whose
        observation the row is (hansa/rl/infostate.py)."""
        if not self._reset_once:
            raise ResetNeeded("Cannot call env.information_state() before calling env.reset()")
        layout = self._settings.info_layout
        out = np.zeros((self.num_envs, layout.size), np.float32)
        for i, game in enumerate(self._games):
            game.history.tensor(layout, game.state, game.observer, out[i])
        return out

    @property
    def board_graph(self) -> dict:
        """The board as arrays for graph networks (hansa/rl/graph.py)."""
        return board_graph(self.game)

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        """Start every game; `seed` (an int: game i gets seed + i, as `HansaGymEnv.reset(seed=…)`
        would; or a list, one per game) fixes these and the following games."""
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise hansa.HansaError(f"reset needs {self.num_envs} seeds, got {len(seeds)}")
        for i, s in enumerate(seeds):
            if s is not None:
                self._rngs[i] = seeding.np_random(s)[0]
            game = self._games[i]
            game.reset(_game_seed(self._rngs[i]))
            game.write(*self._rows[i])
            self._players[i] = game.observer
        self._reset_once = True
        return self._observations(), {"player": np.array(self._players, np.int64)}

    def step(self, actions):
        if not self._reset_once:
            raise ResetNeeded("Cannot call env.step() before calling env.reset()")
        if actions.__class__ is list:
            actions = actions[:]  # checked and converted in place
        else:
            actions = np.asarray(actions)
            if actions.shape != (self.num_envs,):
                shape = actions.shape
                raise InvalidAction(f"step needs {self.num_envs} actions, got shape {shape}")
            actions = actions.tolist()
        if len(actions) != self.num_envs:
            raise InvalidAction(f"step needs {self.num_envs} actions, got {len(actions)}")
        self._check(actions)
        n = self.num_envs
        rewards, terminated, truncated = [0.0] * n, [False] * n, [False] * n
        players = self._players
        rows, games = self._rows, self._games
        ended = illegal = None
        for i, action in enumerate(actions):
            game = games[i]
            reward, term, trunc, bad = game.step(action)
            if bad:
                illegal = illegal or []
                illegal.append(i)
            if term or trunc:
                rewards[i], terminated[i], truncated[i] = reward, term, trunc
                game.write(*rows[i])
                final = (self._tensors[i].copy(), self._masks[i].copy())
                info = {"returns": list(game.state.returns())} if term else {}
                ended = ended or []
                ended.append((i, final, info))
                game.reset(_game_seed(self._rngs[i]))
            elif reward:
                rewards[i] = reward
            game.write(*rows[i])
            players[i] = game.observer
        infos = {"player": np.array(players, np.int64)}
        if illegal:
            flags = np.zeros(n, np.bool_)
            flags[illegal] = True
            infos["illegal_action"] = flags
            infos["_illegal_action"] = flags.copy()
        if ended:
            self._final_infos(infos, ended)
        return (
            self._observations(),
            np.array(rewards, np.float64),
            np.array(terminated, np.bool_),
            np.array(truncated, np.bool_),
            infos,
        )

    def _check(self, actions: list) -> None:
        """Refuse a bad action before any game moves: outside the action space (InvalidAction),
        or, with illegal_action="raise", not legal (HansaError)."""
        limit = self._settings.actions
        for i, action in enumerate(actions):
            if action.__class__ is not int or not 0 <= action < limit:
                actions[i] = _action_id(action, limit)
        if self._settings.illegal_action == "raise":
            for game, action in zip(self._games, actions, strict=True):
                if action not in game.state.legal_actions():
                    game.state.apply_action(action)  # raises, naming the action and decision

    def _observations(self) -> dict:
        if self.copy:
            return {"observation": self._tensors.copy(), "action_mask": self._masks.copy()}
        return {"observation": self._tensors, "action_mask": self._masks}

    def _final_infos(self, infos: dict, ended: list) -> None:
        """Gymnasium's same-step autoreset: the last observation and info of each ended game."""
        n = self.num_envs
        flags = np.zeros(n, np.bool_)
        final_obs = np.full(n, None, dtype=object)
        final_info = np.full(n, None, dtype=object)
        for i, (tensor, mask), info in ended:
            flags[i] = True
            final_obs[i] = {"observation": tensor, "action_mask": mask}
            final_info[i] = info
        infos["final_obs"] = final_obs
        infos["_final_obs"] = flags
        infos["final_info"] = final_info
        infos["_final_info"] = flags.copy()


def _game_seed(rng) -> int:
    """The next game's seed from an environment's numpy generator (`SEED_BITS` random bits)."""
    return int.from_bytes(rng.bytes(SEED_BITS // 8), "big")


def _action_id(action, actions: int) -> int:
    """A whole number in the action space (numpy integers included), else InvalidAction."""
    if isinstance(action, bool):
        raise InvalidAction(f"action {action!r} is not in the action space (0 to {actions - 1})")
    try:
        index = operator.index(action)
    except TypeError:
        raise InvalidAction(
            f"action {action!r} is not in the action space (a whole number, 0 to {actions - 1})"
        ) from None
    if not 0 <= index < actions:
        raise InvalidAction(f"action {index} is not in the action space (0 to {actions - 1})")
    return index


def make_vector_env(num_envs: int = 1, backend: str = "python", **options) -> VectorEnv:
    """`gymnasium.make_vec`'s entry point: N games in C (`HansaBatchedEnv`, hansa/rl/batched.py)
    for `backend="native"`, the Python `HansaVectorEnv` otherwise."""
    if backend == "native":
        return HansaBatchedEnv(num_envs=num_envs, backend=backend, **options)
    return HansaVectorEnv(num_envs=num_envs, backend=backend, **options)


def register_envs() -> list[str]:
    """Register `hansa/<game>-v0` for every built game (idempotent); returns the ids."""
    ids = []
    for name in sorted(hansa.available_games()):
        env_id = f"hansa/{name}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="hansa.rl.gymnasium:HansaGymEnv",
                vector_entry_point="hansa.rl.gymnasium:make_vector_env",
                kwargs={"game": name},
            )
        ids.append(env_id)
    return ids


register_envs()
