"""The batched native environment: N games stepping together in C behind Gymnasium's `VectorEnv`
API (docs/rl.md, "Batched native environment").

`HansaBatchedEnv(game, num_envs, players, seat=0, opponents="greedy", …)` is what
`gymnasium.make_vec("hansa/<game>-v0", num_envs=N, backend="native", …)` returns. A step takes
the learner's actions as one array; the generated C module (compiler/targets/native/templates/
batch.c.j2) applies them, plays the other seats (uniformly random or the greedy policy, both in
C, or a Python callable asked once per round for every game waiting on it), and writes each
game's observation row, legal-action mask row, legal actions as an id list (`infos["legal_ids"]`,
`infos["legal_counts"]`), the track PP every player gained and the end flags into arrays this
object owns, touching only what changed. So a step makes no Python object per game: only a game that
ended (rare: a game is hundreds to tens of thousands of decisions) is looked at in Python, for
its outcome (hansa/rl/rewards.py) and Gymnasium's `final_info`.

Meaning, as the Python `HansaVectorEnv` (hansa/rl/gymnasium.py): `seat=k` learns seat k against
`opponents`; `seat=None` is self-play (every decision is a step, the row is the decider's). The
rewards (`reward=`, `shaped=`), truncation by `max_decisions` (decisions of all players) and the
illegal-action policy are those of every adapter. Autoreset in the same step; seeded and
reproducible: `reset(seed=s)` fixes every following game, setups and opponents included.

`HansaBatchedAgents` is the PettingZoo-style multi-agent form of self-play: rewards,
terminations and truncations per agent name, each an array over the games.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import InvalidAction, ResetNeeded
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import hansa

from .common import check_max_decisions, check_num_envs, observation_space
from .graph import board_graph
from .rewards import check_reward, outcome

OPPONENT_CODES = {"random": 0, "greedy": 1}  # the C module's OPP_*; a callable is 2
EXTERNAL = 2
ILLEGAL_ACTION_POLICIES = ("penalty", "raise")
WHOLE_NUMBERS = (np.dtype(np.int16), np.dtype(np.int32), np.dtype(np.int64))  # step reads as is

# An opponent callable: (observations k x size float32, masks k x actions int8, players k int32)
# -> k action ids, one legal action for each row.
OpponentPolicy = Callable[[np.ndarray, np.ndarray, np.ndarray], object]


class HansaBatchedEnv(VectorEnv):
    """N native games for a learner, arrays in and out; see the module docstring."""

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        game: str = "bigbox-hanseatic-45p",
        num_envs: int = 1,
        players: int | None = None,
        seat: int | None = 0,
        opponents: str | OpponentPolicy = "greedy",
        max_decisions: int | None = None,
        illegal_action: str = "penalty",
        illegal_penalty: float = -1.0,
        copy: bool = True,
        render_mode: str | None = None,
        backend: str = "native",
        reward: str = "pp",
        shaped: float = 0.0,
    ) -> None:
        check_num_envs(num_envs)
        if backend != "native":
            raise hansa.HansaError(f"the batched environment runs natively, got {backend!r}")
        if render_mode is not None:
            raise hansa.HansaError(f"the batched environment does not render, got {render_mode!r}")
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise hansa.HansaError(
                f"illegal_action must be 'penalty' or 'raise', got {illegal_action!r}"
            )
        self.reward_kind, self.shaped = check_reward(reward, shaped)
        self.max_decisions = check_max_decisions(max_decisions)
        self.game = hansa.load_game(game, players, backend="native")
        self.players = self.game.num_players()
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players
        ):
            raise hansa.HansaError(f"seat must be 0 to {self.players - 1} or None, got {seat!r}")
        self.seat = seat
        self.opponents = opponents
        self._policy = _opponent_policy(opponents) if seat is not None else None
        code = EXTERNAL if self._policy is not None else OPPONENT_CODES.get(opponents, 0)
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.num_envs = num_envs
        self.copy = copy
        self.single_observation_space = observation_space(self.game)
        self.single_action_space = spaces.Discrete(self.game.num_distinct_actions())
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._allocate()
        self._batch = self.game.ext.batch(
            num_envs,
            self.players,
            -1 if seat is None else seat,
            code,
            self.max_decisions or 0,
            int(illegal_action == "raise"),
            self._outputs,
        )
        self._rng = seeding.np_random()[0]
        self._reset_once = False

    def _allocate(self) -> None:
        """The arrays the C module writes (it holds their buffers for its lifetime)."""
        n, size = self.num_envs, self.single_observation_space["observation"].shape[0]
        actions = self.single_action_space.n
        self._tensors = np.zeros((n, size), np.float32)
        self._masks = np.zeros((n, actions), np.int8)
        self._legal_ids = np.full((n, actions), -1, np.int16)  # past each row's count: -1
        self._legal_counts = np.zeros(n, np.int32)
        self._player = np.zeros(n, np.int32)
        self._actor = np.zeros(n, np.int32)
        self._gains = np.zeros((n, self.players), np.int32)
        self._terminated = np.zeros(n, np.uint8)
        self._truncated = np.zeros(n, np.uint8)
        self._illegal = np.zeros(n, np.uint8)
        self._final_tensors = np.zeros((n, size), np.float32)
        self._outputs = (
            self._tensors,
            self._masks,
            self._legal_ids,
            self._legal_counts,
            self._player,
            self._actor,
            self._gains,
            self._terminated,
            self._truncated,
            self._illegal,
            self._final_tensors,
        )
        self._paid = np.zeros((n, self.players), np.float64)  # shaped rewards of each game
        self._rows = np.arange(n)
        self._asked = (
            np.zeros((n, size), np.float32),
            np.zeros((n, actions), np.int8),
            np.zeros(n, np.int32),
        )

    @property
    def states(self) -> list:
        """A copy of each game's position (native states: the whole game API)."""
        return [self._batch.state(self.game.state_type, i) for i in range(self.num_envs)]

    def decisions(self, i: int) -> int:
        """The decisions of all players made in game i so far."""
        return self._batch.decisions(i)

    def greedy_advice(self) -> np.ndarray:
        """Per game (int64) the action the greedy policy in C would take for the seat deciding
        now, -1 where none decides: a feature for learners (hansa/rl/baseline.py). Each game
        and seat asks its own greedy agent, which remembers its advice as if it had played it;
        asking changes neither the games nor their seeds."""
        if not self._reset_once:
            raise ResetNeeded("Cannot call env.greedy_advice() before calling env.reset()")
        choices = np.empty(self.num_envs, np.int64)
        self._batch.advise(choices)
        return choices

    @property
    def board_graph(self) -> dict:
        """The board as arrays for graph networks (hansa/rl/graph.py)."""
        return board_graph(self.game)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start every game. `seed` fixes these games and all that follow (setups, random and
        greedy opponents); None draws from the generator seeded before (else the system's)."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise hansa.HansaError(f"seed must be a whole number >= 0, got {seed!r}")
            self._rng = seeding.np_random(seed)[0]
        streams = self._rng.integers(0, 2**64, self.num_envs, dtype=np.uint64, endpoint=False)
        self._paid[:] = 0.0
        self._play_opponents(self._batch.reset(np.ascontiguousarray(streams)))
        self._reset_once = True
        return self._observations(), self._infos()

    def load(self, i: int, state) -> None:
        """Game i continues from a copy of `state` (a native state of this game and player
        count; the other seats play on to the learner's decision)."""
        if not self._reset_once:
            raise ResetNeeded("Cannot call env.load() before calling env.reset()")
        if not isinstance(state, self.game.state_type):
            state = self.game.from_python(state)
        try:
            waiting = self._batch.load(i, state)
        except (ValueError, IndexError) as error:
            raise hansa.HansaError(f"load: {error}") from None
        self._paid[i] = 0.0
        self._play_opponents(waiting)

    def step(self, actions):
        if not self._reset_once:
            raise ResetNeeded("Cannot call env.step() before calling env.reset()")
        chosen = self._action_array(actions)
        try:
            waiting = self._batch.step(chosen)
        except ValueError as error:
            raise hansa.HansaError(str(error)) from None
        except IndexError as error:  # an id outside the action space; nothing moved
            raise InvalidAction(str(error)) from None
        if waiting:
            self._play_opponents(waiting)
        ended, illegal = self._batch.counts()
        terminated = self._terminated.view(np.bool_)
        truncated = self._truncated.view(np.bool_)
        everyone = self._rewards(terminated, truncated, ended)
        if not (self.shaped or ended):  # nothing was paid: no gather
            rewards = np.zeros(self.num_envs, np.float64)
        elif self.seat is None:
            rewards = everyone[self._rows, self._actor]
        else:
            rewards = everyone[:, self.seat].copy()
        infos = self._infos()
        infos["rewards"] = everyone
        if illegal:
            flags = self._illegal.view(np.bool_)
            rewards[flags] = self.illegal_penalty
            infos["illegal_action"] = flags.copy()
            infos["_illegal_action"] = flags.copy()
        if ended:
            self._final_infos(infos, terminated | truncated, terminated)
        return self._observations(), rewards, terminated.copy(), truncated.copy(), infos

    def _action_array(self, actions) -> np.ndarray:
        """The actions as a contiguous int16, int32 or int64 array (what the C module reads), or
        InvalidAction for a float, a string or a wrong shape; the C module refuses an id out of
        range before any game moves."""
        n = self.num_envs
        if (
            type(actions) is np.ndarray
            and actions.shape == (n,)
            and actions.dtype in WHOLE_NUMBERS
            and actions.flags.c_contiguous
        ):
            return actions  # what a learner hands in: no copy, no pass over it in Python
        if isinstance(actions, list | tuple):  # a list: each item a whole number, not a bool
            if any(isinstance(a, bool) for a in actions):
                raise InvalidAction("an action must be a whole number, not True or False")
            try:
                actions = [operator.index(a) for a in actions]
            except TypeError:
                raise InvalidAction("every action must be a whole number") from None
        array = np.asarray(actions)
        if array.shape != (n,):
            raise InvalidAction(f"step needs {n} actions, got shape {array.shape}")
        if array.dtype.kind not in "iu":
            raise InvalidAction(f"actions must be whole numbers, got {array.dtype}")
        return np.ascontiguousarray(array, dtype=np.int64)

    def _play_opponents(self, waiting: int) -> None:
        """Ask the opponents' callable for every game waiting on it, round after round. If it
        fails (raises, or answers an illegal action) the games stay where they were asked and
        the environment needs a reset."""
        observations, masks, players = self._asked
        try:
            while waiting:
                k = self._batch.asked(observations, masks, players)
                chosen = self._policy(observations[:k], masks[:k], players[:k])
                try:
                    answer = np.ascontiguousarray(np.asarray(chosen).reshape(k), dtype=np.int64)
                    waiting = self._batch.answer(answer)
                except (ValueError, TypeError) as error:
                    raise hansa.HansaError(f"the opponents' policy: {error}") from None
        except BaseException:
            self._reset_once = False
            raise

    def _rewards(self, terminated: np.ndarray, truncated: np.ndarray, ended: int) -> np.ndarray:
        """(num_envs, players) rewards of this step for every player (hansa/rl/rewards.py);
        `ended`: how many games ended (none: no pass over the flags)."""
        if self.shaped:
            everyone = self.shaped * self._gains.astype(np.float64)
            self._paid += everyone
        else:
            everyone = np.zeros((self.num_envs, self.players), np.float64)
        if not ended:
            return everyone
        for i in np.flatnonzero(terminated):
            final = np.array(outcome(self._final_state(i), self.reward_kind), np.float64)
            if self.shaped and self.reward_kind == "pp":
                final -= self._paid[i]
            everyone[i] += final
        self._paid[terminated | truncated] = 0.0
        return everyone

    def _final_state(self, i: int):
        return self._batch.final_state(self.game.state_type, i)

    def final_state(self, i: int):
        """A copy of the last game that ended in slot i (its position at the end or the cut)."""
        return self._final_state(i)

    def _observations(self) -> dict:
        if self.copy:
            return {"observation": self._tensors.copy(), "action_mask": self._masks.copy()}
        return {"observation": self._tensors, "action_mask": self._masks}

    def _infos(self) -> dict:
        """Who each row's observation is for, and the legal actions as id lists: row i's first
        `legal_counts[i]` entries of `legal_ids` (the rest of the row is -1), which draws a
        legal action in O(N) rather than O(N x actions) through the masks."""
        if self.copy:
            ids, counts = self._legal_ids.copy(), self._legal_counts.copy()
        else:
            ids, counts = self._legal_ids, self._legal_counts
        return {"player": self._player.astype(np.int64), "legal_ids": ids, "legal_counts": counts}

    def _final_infos(self, infos: dict, ended: np.ndarray, terminated: np.ndarray) -> None:
        """Gymnasium's same-step autoreset: each ended game's last observation and info."""
        n, actions = self.num_envs, self.single_action_space.n
        final_obs = np.full(n, None, dtype=object)
        final_info = np.full(n, None, dtype=object)
        for i in np.flatnonzero(ended):
            final_obs[i] = {
                "observation": self._final_tensors[i].copy(),
                "action_mask": np.zeros(actions, np.int8),
            }
            final_info[i] = (
                {"returns": list(self._final_state(i).returns())} if terminated[i] else {}
            )
        infos["final_obs"] = final_obs
        infos["_final_obs"] = ended.copy()
        infos["final_info"] = final_info
        infos["_final_info"] = ended.copy()


class HansaBatchedSingleEnv(gymnasium.Env):
    """The single-env form of the batched environment: one game in C, as a `gymnasium.Env`
    (what `check_env` checks; the same options as `HansaBatchedEnv`, row 0 of a batch of one)."""

    metadata = {"render_modes": []}

    def __init__(self, game: str = "bigbox-hanseatic-45p", players: int | None = None, **options):
        options.pop("num_envs", None)
        self.batch = HansaBatchedEnv(game, 1, players, **options)
        self.observation_space = self.batch.single_observation_space
        self.action_space = self.batch.single_action_space
        self.render_mode = None
        self._started = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None and not self._started:
            seed = int(self.np_random.integers(0, 2**63))
        observations, infos = self.batch.reset(seed=seed)
        self._started = True
        return _row(observations), {"player": int(infos["player"][0])}

    def step(self, action):
        if not self._started:
            raise ResetNeeded("Cannot call env.step() before calling env.reset()")
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise InvalidAction(f"action {action!r} is not in the action space")
        observations, rewards, terminated, truncated, infos = self.batch.step([int(action)])
        info = {"player": int(infos["player"][0])}
        if "illegal_action" in infos:
            info["illegal_action"] = True
        if terminated[0] or truncated[0]:
            self._started = False  # the batch has started the next game: a reset is needed
            info.update(infos["final_info"][0])
            return (
                infos["final_obs"][0],
                float(rewards[0]),
                bool(terminated[0]),
                bool(truncated[0]),
                info,
            )
        return _row(observations), float(rewards[0]), False, False, info


def _row(observations: dict) -> dict:
    return {key: value[0].copy() for key, value in observations.items()}


class HansaBatchedAgents:
    """The PettingZoo-style multi-agent form of batched self-play: `agents` are `player_0` …;
    `reset(seed)` and `step(actions)` give the deciding agent's observation per game (with
    `agent_selection`, an int array of who decides in each game), and rewards, terminations and
    truncations as dicts from agent name to an array over the games (every player's reward:
    a route completed by one player can score for another)."""

    def __init__(self, game: str = "bigbox-hanseatic-45p", num_envs: int = 1, **options) -> None:
        if "seat" in options or "opponents" in options:
            raise hansa.HansaError("the multi-agent form plays every seat (no seat, no opponents)")
        self.env = HansaBatchedEnv(game, num_envs, seat=None, **options)
        self.possible_agents = [f"player_{p}" for p in range(self.env.players)]
        self.agents = list(self.possible_agents)
        self.num_envs = num_envs
        self.agent_selection = np.zeros(num_envs, np.int64)

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.env.single_observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.env.single_action_space

    def reset(self, seed: int | None = None, options: dict | None = None):
        observations, infos = self.env.reset(seed=seed, options=options)
        self.agent_selection = infos["player"]
        return observations, infos

    def step(self, actions):
        """The deciding agent's action in every game; returns (observations, rewards,
        terminations, truncations, infos), the last three per agent."""
        observations, _reward, terminated, truncated, infos = self.env.step(actions)
        everyone = infos["rewards"]
        rewards = {agent: everyone[:, p] for p, agent in enumerate(self.agents)}
        terminations = {agent: terminated for agent in self.agents}
        truncations = {agent: truncated for agent in self.agents}
        self.agent_selection = infos["player"]
        return observations, rewards, terminations, truncations, infos


def _opponent_policy(opponents) -> OpponentPolicy | None:
    """None for the opponents played in C ("random", "greedy"), the callable itself else."""
    if isinstance(opponents, str):
        if opponents not in OPPONENT_CODES:
            shown = ", ".join(repr(name) for name in OPPONENT_CODES)
            raise hansa.HansaError(
                f"the batched environment's opponents are {shown} (played in C) or a callable, "
                f"got {opponents!r}"
            )
        return None
    if not callable(opponents):
        raise hansa.HansaError(f"opponents must be a name or a callable, got {opponents!r}")
    return opponents
