"""OpenSpiel games: `register()` registers one pyspiel Python game per built game (docs/rl.md).

Short names are `hansa_<module>` (`hansa_bigbox_hanseatic_45p`). Parameters: `players` (default the
game's smallest count), `max_decisions` (0 = none; else the game is truncated after that many
decisions: terminal, no outcome paid, `state.truncated` set — hansa/rl/common.py), `rng_seed` (-1,
the default: every game's seed comes from the operating system; else a reproducible sequence of
seeds), `backend` ("python" or "native": hansa.load_game's backend), `reward` ("pp", "win",
"rank", "margin") and `shaped` (a weight ≥ 0 of the PP gained per step; hansa/rl/rewards.py).

GameType: sequential, general-sum, IMPERFECT information, DETERMINISTIC chance mode, terminal
rewards (per-step rewards when `shaped` > 0). No transition is random and no chance node exists:
the rules' randomness (the start markers on the taverns, the order of the face-down marker supply,
the mission deal, the face-up favour tiles) is the generated module's setup, drawn from a 128-bit
seed when a state is made and carried inside it, so there is no outcome to enumerate against what
a player has seen. (The game was declared sampled-stochastic before; OpenSpiel then serializes the
game's random generator, which a Python game cannot provide, so `serialize_game_and_state` failed.
Nothing is drawn from a game-wide generator during play, so deterministic is what happens.) Why
not explicit chance nodes: the draws happen inside the rules' own code, and restating the setup
as chance nodes in the adapter would be a second copy of the rules that a house rule could
contradict. `resample_from_infostate` redraws exactly what the player cannot see (the module's
`resample_hidden`), which is what ISMCTS needs.

Information: `observation_string`/`observation_tensor` are the player's observation (the public
position and the player's own secrets). `information_state_string` is a real, perfect-recall
information state: the public setup, every decision so far, the face-down marker counts after
every decision that changed them (each drawn marker is seen when drawn), then the observation.
`information_state_tensor` is its fixed-size form (hansa/rl/infostate.py): the observation, the
public setup and the last decisions.

Serialization (`state.serialize()`, `pyspiel.serialize_game_and_state`) writes the whole state —
the face-down order and every player's cards included — for the game's owner (checkpoints,
debugging, worker processes), never for a seat. Every error (bad parameters, an illegal action)
is a `pyspiel.SpielError`.
"""

from __future__ import annotations

import copyreg
import json
import random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import hansa
from hansa.play.simulate import make_agent
from hansa.runtime.observation_tensor import face_down

from .common import SEED_BITS
from .infostate import InformationState, layout_of
from .rewards import REWARD_KINDS, RewardTracker, check_reward

MAX_UTILITY = 1000.0  # a loose bound on final PP (real games end near 30-80)
MAX_GAME_LENGTH = 1_000_000  # decisions; a bound OpenSpiel asks for, not a rule
BACKENDS = ("python", "native")
_REGISTERED: dict[str, str] = {}
_GAMES: dict[tuple[str, int, str], hansa.Game] = {}
_WRITERS: dict[tuple[str, int, str], object] = {}


def _hansa_game(name: str, players: int, backend: str = "python"):
    """The loaded game (kept out of states: OpenSpiel deep-copies a state's attributes)."""
    key = (name, players, backend)
    if key not in _GAMES:
        try:
            _GAMES[key] = game = hansa.load_game(name, players, backend=backend)
        except hansa.HansaError as error:
            raise pyspiel.SpielError(str(error)) from None
        if backend == "native":  # native states pickle as their JSON (serialize())
            state_type = type(game.new_initial_state(0))
            copyreg.pickle(state_type, lambda s, key=key: (_native_state, (*key, s.to_json())))
    return _GAMES[key]


def _native_state(name: str, players: int, backend: str, text: str):
    """A state unpickled from its JSON (the whole position: an exact round trip)."""
    return _hansa_game(name, players, backend).state_from_json(text)


def _writer(key: tuple[str, int, str]):
    """One TensorWriter per game and player count for `State.observation_tensor` (it is exact for
    any sequence of states, so every state may share it)."""
    if key not in _WRITERS:
        _WRITERS[key] = _hansa_game(*key).observation_tensor_writer()
    return _WRITERS[key]


def _face_down(state) -> tuple[int, ...]:
    """The face-down supply as sorted types; a native state's read in C (not through a copy)."""
    read = getattr(state, "_field", None)
    if read is None:
        return face_down(state)
    from hansa.native import FIELD_MSUPPLY

    return tuple(sorted(read(FIELD_MSUPPLY)))


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


def _int_parameter(params: dict, key: str, default: int, low: int) -> int:
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise pyspiel.SpielError(f"parameter {key} must be a whole number ≥ {low}, got {value!r}")
    return value


def _choice_parameter(params: dict, key: str, choices: tuple[str, ...]) -> str:
    value = params.get(key, choices[0])
    if value not in choices:
        shown = ", ".join(repr(c) for c in choices)
        raise pyspiel.SpielError(f"parameter {key} must be one of {shown}, got {value!r}")
    return value


def _reward_parameters(params: dict) -> tuple[str, float]:
    kind = _choice_parameter(params, "reward", REWARD_KINDS)
    shaped = params.get("shaped", 0.0)
    if isinstance(shaped, int) and not isinstance(shaped, bool):
        shaped = float(shaped)
    try:
        return check_reward(kind, shaped)
    except hansa.HansaError as error:
        raise pyspiel.SpielError(str(error)) from None


def _utility_range(kind: str, shaped: float) -> tuple[float, float]:
    """Bounds on a player's return: the outcome's, plus what shaping may pay."""
    low, high = {
        "pp": (0.0, MAX_UTILITY),
        "win": (0.0, 1.0),
        "rank": (-1.0, 1.0),
        "margin": (-MAX_UTILITY, MAX_UTILITY),
    }[kind]
    if kind != "pp":
        high += shaped * MAX_UTILITY
    return low, high


def _game_type(short: str, name: str, counts, shaped: bool = False) -> pyspiel.GameType:
    model = pyspiel.GameType.RewardModel
    return pyspiel.GameType(
        short_name=short,
        long_name=f"Hansa Teutonica: {name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=model.REWARDS if shaped else model.TERMINAL,
        max_num_players=max(counts),
        min_num_players=min(counts),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "players": min(counts),
            "max_decisions": 0,
            "rng_seed": -1,
            "backend": "python",
            "reward": "pp",
            "shaped": 0.0,
        },
    )


def _register_one(name: str, short: str) -> None:
    counts = hansa.load_game(name).info.player_counts
    game_type = _game_type(short, name, counts)

    class Game(pyspiel.Game):
        def __init__(self, params=None):
            params = dict(params or {})
            players = _int_parameter(params, "players", min(counts), 0)
            if players not in counts:
                shown = ", ".join(str(c) for c in counts)
                raise pyspiel.SpielError(f"{short} is for {shown} players, not {players}")
            backend = _choice_parameter(params, "backend", BACKENDS)
            self.hansa_game = _hansa_game(name, players, backend)
            self.hansa_key = (name, players, backend)
            self.max_decisions = _int_parameter(params, "max_decisions", 0, 0)
            self.reward, self.shaped = _reward_parameters(params)
            rng_seed = _int_parameter(params, "rng_seed", -1, -1)
            self.seeds = random.SystemRandom() if rng_seed < 0 else random.Random(rng_seed)
            low, high = _utility_range(self.reward, self.shaped)
            info = pyspiel.GameInfo(
                num_distinct_actions=self.hansa_game.num_distinct_actions(),
                max_chance_outcomes=0,
                num_players=players,
                min_utility=low,
                max_utility=high,
                utility_sum=None,
                max_game_length=self.max_decisions or MAX_GAME_LENGTH,
            )
            kind = _game_type(short, name, counts, shaped=True) if self.shaped else game_type
            super().__init__(kind, info, params)

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
        self.hansa_state = _hansa_game(*self.hansa_key).new_initial_state(
            game.seeds.getrandbits(SEED_BITS)
        )
        self.decisions = 0
        self.max_decisions = game.max_decisions
        self.truncated = False
        # What every player has seen that the position no longer shows: the public setup (the
        # tavern markers, the face-up tiles, …) and the face-down counts after each draw.
        self.setup = _Setup(self.hansa_state.clone())
        self.face_down = _face_down(self.hansa_state)
        self.face_down_seen: list[tuple[int, tuple[int, ...]]] = []
        self.seen = InformationState()  # the same, for the information-state tensor
        self.seen.reset(layout_of(_hansa_game(*self.hansa_key)), self.hansa_state)
        self.reward_tracker = RewardTracker(game.reward, game.shaped)
        self.reward_tracker.reset(self.hansa_state)
        n = game.num_players()
        self.last_rewards = [0.0] * n
        self.total_rewards = [0.0] * n

    def current_player(self):
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.hansa_state.current_player()

    def _legal_actions(self, player):
        if self.is_terminal() or player != self.hansa_state.current_player():
            return []
        return list(self.hansa_state.legal_actions())

    def _apply_action(self, action):
        if self.is_terminal():
            raise pyspiel.SpielError(f"action {action}: the game is over")
        state = self.hansa_state
        player = state.current_player()
        try:
            state.apply_action(action)
        except hansa.HansaError as error:
            raise pyspiel.SpielError(str(error)) from None
        self.decisions += 1
        self.seen.record(player, action)
        now = _face_down(state)
        if now != self.face_down:
            self.face_down = now
            self.face_down_seen.append((self.decisions, now))
        if self.max_decisions and self.decisions >= self.max_decisions:
            self.truncated = not state.is_terminal()
        tracker = self.reward_tracker
        ended = state.is_terminal()
        paid = tracker.step(state, ended) if ended or tracker.shaped else None
        if paid is None:
            if any(self.last_rewards):
                self.last_rewards = [0.0] * len(self.last_rewards)
        else:
            self.last_rewards = paid
            self.total_rewards = [a + b for a, b in zip(self.total_rewards, paid, strict=True)]

    def _action_to_string(self, player, action):
        game = _hansa_game(*self.hansa_key)
        if not 0 <= action < game.num_distinct_actions():
            raise pyspiel.SpielError(f"action {action} is not an action of {game.name}")
        return game.action_to_string(action)

    def is_terminal(self):
        return self.truncated or self.hansa_state.is_terminal()

    def rewards(self):
        """Every player's reward for the last decision (shaped PP, the outcome at the end)."""
        return list(self.last_rewards)

    def returns(self):
        """The rewards so far summed: with the defaults 0 until the end, then the final PP; a cut
        game pays no outcome (hansa/rl/common.py, hansa/rl/rewards.py)."""
        return list(self.total_rewards)

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state `player_id` cannot tell from this one: the hidden information (the face-down
        order, the other players' secret cards) drawn again with the sampler's numbers."""
        if not 0 <= player_id < self.num_players():
            raise pyspiel.SpielError(f"resample_from_infostate: no player {player_id}")
        other = self.clone()
        other.hansa_state.resample_hidden(_SamplerRandom(probability_sampler), player_id)
        return other

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """As pyspiel's (a list of floats; the same values as through the game's observer), for
        Python callers without pyspiel's detour: for a Python game it builds a new initial state
        on every call to learn the tensor's shape."""
        player = self._player(player, "observation_tensor")
        return _writer(self.hansa_key).view(self.hansa_state, player).tolist()

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """As pyspiel's (hansa/rl/infostate.py), without pyspiel's detour (see above)."""
        player = self._player(player, "information_state_tensor")
        return self.information_state_array(player).tolist()

    def information_state_array(self, player: int) -> np.ndarray:
        layout = layout_of(_hansa_game(*self.hansa_key))
        return self.seen.tensor(layout, self.hansa_state, player)

    def _player(self, player: int | None, what: str) -> int:
        if player is None:
            player = self.current_player()
        if not 0 <= player < self.num_players():
            raise pyspiel.SpielError(f"{what}: no player {player}")
        return player

    def information_state_text(self, player: int) -> str:
        if not 0 <= player < self.num_players():
            raise pyspiel.SpielError(f"information_state_string: no player {player}")
        decisions = json.dumps(self.history(), separators=(",", ":"))
        seen = json.dumps(self.face_down_seen, separators=(",", ":"))
        setup = self.setup.public()
        head = f'{{"setup":{setup},"decisions":{decisions},"face_down_after":{seen}}}'
        return head + "\n" + self.observation_text(player)

    def observation_text(self, player: int) -> str:
        try:
            return self.hansa_state.information_state_string(player)
        except hansa.HansaError as error:
            raise pyspiel.SpielError(str(error)) from None

    def __str__(self):
        return self.hansa_state.to_json()  # the whole state, hidden order included (debugging)


class _Setup:
    """A game's starting position, shared by its states and their clones and never changed. Its
    public view (the observation without the observer's own secrets, the same for every player)
    is made once, when an information state first asks (OpenSpiel makes states often)."""

    def __init__(self, state) -> None:
        self._state = state
        self._public: str | None = None

    def public(self) -> str:
        if self._public is None:
            seen = self._state.observation(0)
            del seen["own"], seen["observer"]
            self._public = json.dumps(
                seen, sort_keys=True, separators=(",", ":"), ensure_ascii=False
            )
        return self._public

    def __deepcopy__(self, memo: dict) -> _Setup:
        return self


class _SamplerRandom(random.Random):
    """A random.Random drawing its numbers from an OpenSpiel probability sampler."""

    def __init__(self, sampler) -> None:
        self._sampler = sampler
        super().__init__(0)

    def random(self) -> float:
        return float(self._sampler())


class Observer:
    """The PyObserver of a hansa game: the observation (tensor written by the game's TensorWriter,
    and string) or, for `perfect_recall`, the information state (hansa/rl/infostate.py)."""

    def __init__(self, hansa_game, iig_obs_type, params) -> None:
        if params:
            raise pyspiel.SpielError(f"observation parameters not supported; passed {params}")
        self.perfect_recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
        self.dict = {}
        self._players = hansa_game.num_players()
        if self.perfect_recall:
            self._layout = layout_of(hansa_game)
            self.tensor = np.zeros(self._layout.size, np.float32)
            blocks = self._layout.blocks()
        else:
            self.tensor = np.zeros(hansa_game.observation_tensor_shape(), np.float32)
            # pyspiel asks a Python game for its tensor's shape by writing a new initial state's,
            # on every observation_tensor call: those starts get a writer of their own, so the
            # writer of the game being played keeps patching from that game's last position.
            self._writer = hansa_game.observation_tensor_writer()
            self._starts = hansa_game.observation_tensor_writer()
            blocks = hansa_game.observation_tensor_layout()
        for block in blocks:
            size = int(np.prod(block["shape"]))
            start = block["offset"]
            self.dict[block["name"]] = self.tensor[start : start + size].reshape(block["shape"])

    def set_from(self, state, player) -> None:
        if not 0 <= player < self._players:
            what = "information_state_tensor" if self.perfect_recall else "observation_tensor"
            raise pyspiel.SpielError(f"{what}: no player {player}")
        if self.perfect_recall:
            state.seen.tensor(self._layout, state.hansa_state, player, self.tensor)
            return
        writer = self._writer if state.decisions else self._starts
        writer.write(state.hansa_state, player, self.tensor)

    def string_from(self, state, player) -> str:
        if self.perfect_recall:
            return state.information_state_text(player)
        return state.observation_text(player)


class ScoreEvaluator(mcts.Evaluator):
    """An evaluator for OpenSpiel's MCTS and ISMCTS bots without playing out: a position is worth
    the PP it would score if the game ended there (the scale of the game's returns)."""

    def evaluate(self, state):
        if state.is_terminal():
            return np.asarray(state.returns(), np.float64)
        scores = state.hansa_state.score_breakdown()
        return np.asarray([float(sum(b.values())) for b in scores], np.float64)

    def prior(self, state):
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


class AgentBot(pyspiel.Bot):
    """A hansa agent (`greedy`, `random`, `mcts:iterations=30`, …) as an OpenSpiel bot."""

    def __init__(self, agent: str, seed: int = 0) -> None:
        super().__init__()
        self.agent = make_agent(agent, seed)

    def step(self, state):
        return self.agent.step(state.hansa_state, state.hansa_state.legal_actions())

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id, action) -> None:
        pass
