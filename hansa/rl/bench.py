"""`hansa bench --rl`: decisions per CPU second through the observation tensor and each adapter,
measured in one run as ratios to the raw API (docs/rl.md, "Speed").

Every loop plays uniformly random legal actions, picked from the state's legal-action list with
the same cheap generator, so a figure is the cost of the engine and the adapter, not of a policy.
The measurements take turns in short rounds, so a busy machine slows them alike.
"""

from __future__ import annotations

import random
import time

import hansa

ROUNDS = 3


def _pick(rng: random.Random, legal: list[int]) -> int:
    return legal[int(rng.random() * len(legal))]


def _raw(game, rng, seconds: float, tensor: str | None) -> int:
    """The game API alone, or with the deciding player's tensor each decision: 'encode' (from
    nothing, `state.observation_tensor`) or 'writer' (a TensorWriter into one buffer)."""
    import numpy as np

    out = np.zeros(game.observation_tensor_shape(), np.float32)
    writer = game.observation_tensor_writer()
    state = game.new_initial_state(rng.getrandbits(64))
    decisions = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        for _ in range(500):
            if state.is_terminal():
                state = game.new_initial_state(rng.getrandbits(64))
            state.apply_action(_pick(rng, state.legal_actions()))
            if state.is_terminal():
                continue
            if tensor == "encode":
                state.observation_tensor(state.current_player(), out)
            elif tensor == "writer":
                writer.write(state, state.current_player(), out)
        decisions += 500
    return decisions


def _pettingzoo(game, rng, seconds: float) -> int:
    from .pettingzoo import env

    environment = env(game.name, game.num_players())
    environment.reset(seed=rng.getrandbits(32))
    decisions = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        for _ in range(500):
            _observation, _reward, termination, truncation, _info = environment.last()
            if termination or truncation:
                environment.step(None)
                if not environment.agents:
                    environment.reset()
                continue
            environment.step(_pick(rng, environment.hansa_state.legal_actions()))
            decisions += 1
    return decisions


def _gymnasium(game, rng, seconds: float, **options) -> int:
    """Self-play through the Gymnasium env (`options`: its reward keywords)."""
    from .gymnasium import HansaGymEnv

    environment = HansaGymEnv(game.name, game.num_players(), seat=None, **options)
    environment.reset(seed=rng.getrandbits(32))
    decisions = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        for _ in range(500):
            _obs, _reward, terminated, truncated, _info = environment.step(
                _pick(rng, environment.state.legal_actions())
            )
            if terminated or truncated:
                environment.reset()
        decisions += 500
    return decisions


def _vector(game, rng, seconds: float, envs: int) -> int:
    from .gymnasium import HansaVectorEnv

    vector = HansaVectorEnv(game.name, envs, game.num_players(), seat=None)
    vector.reset(seed=rng.getrandbits(32))
    games = vector._games
    decisions = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        for _ in range(max(1, 500 // envs)):
            vector.step([_pick(rng, g.state.legal_actions()) for g in games])
            decisions += envs
    return decisions


def _openspiel(game, rng, seconds: float) -> int:
    return _openspiel_with(game, rng, seconds, {}, "observation_tensor")


def measure(name: str, players: int | None, seconds: float, envs: int = 16) -> dict:
    """Decisions per CPU second of each way of stepping `name`, and each as a ratio to the raw
    API; `seconds` is the CPU time of each measurement, split over ROUNDS rounds."""
    game = hansa.load_game(name, players)
    ways = {
        "raw API": lambda rng, s: _raw(game, rng, s, None),
        "raw API + tensor from nothing": lambda rng, s: _raw(game, rng, s, "encode"),
        "raw API + TensorWriter": lambda rng, s: _raw(game, rng, s, "writer"),
        "PettingZoo AEC": lambda rng, s: _pettingzoo(game, rng, s),
        "Gymnasium (self-play)": lambda rng, s: _gymnasium(game, rng, s),
        f"Gymnasium vector env, {envs} games (self-play)": lambda rng, s: _vector(
            game, rng, s, envs
        ),
        "OpenSpiel + observation_tensor": lambda rng, s: _openspiel(game, rng, s),
    }
    rates = _rates(ways, seconds)
    raw = rates["raw API"]
    return {
        "game": game.name,
        "players": game.num_players(),
        "decisions_per_second_cpu": {label: round(rate) for label, rate in rates.items()},
        "ratio_to_raw": {label: round(rate / raw, 3) for label, rate in rates.items()},
    }


def _rates(ways: dict, seconds: float) -> dict[str, float]:
    """What each way counts per CPU second, the ways taking turns over `ROUNDS` rounds (so the
    machine's load falls on all of them alike)."""
    counts = dict.fromkeys(ways, 0)
    cpu = dict.fromkeys(ways, 0.0)
    for round_index in range(ROUNDS):
        for label, way in ways.items():
            rng = random.Random(round_index)
            start = time.process_time()
            counts[label] += way(rng, seconds / ROUNDS)
            cpu[label] += time.process_time() - start
    return {label: counts[label] / cpu[label] for label in ways}


def _gymnasium_shaped(game, rng, seconds: float) -> int:
    """Self-play with reward="win" and shaping: the reward tracker read every decision."""
    return _gymnasium(game, rng, seconds, reward="win", shaped=1.0)


def _openspiel_with(game, rng, seconds: float, params: dict, tensor: str) -> int:
    """OpenSpiel with a game parameter (`backend`), and a tensor of the decider each decision."""
    import pyspiel

    from .openspiel import register, short_name

    register()
    spiel_game = pyspiel.load_game(short_name(game.name), {"players": game.num_players(), **params})
    state = spiel_game.new_initial_state()
    decisions = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        for _ in range(500):
            if state.is_terminal():
                state = spiel_game.new_initial_state()
            state.apply_action(_pick(rng, state.hansa_state.legal_actions()))
            if not state.is_terminal():
                getattr(state, tensor)(state.current_player())
        decisions += 500
    return decisions


def _frames(game, rng, seconds: float, mode: str) -> int:
    """Pictures (or text boards) of positions 20 random decisions apart, per CPU second."""
    from .render import BoardPicture, ansi_board

    picture = BoardPicture(game)
    state = game.new_initial_state(rng.getrandbits(64))
    frames = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        for _ in range(20):
            if state.is_terminal():
                state = game.new_initial_state(rng.getrandbits(64))
            state.apply_action(_pick(rng, state.legal_actions()))
        picture.frame(state) if mode == "rgb_array" else ansi_board(state, game.module)
        frames += 1
    return frames


def measure_surfaces(name: str, players: int | None, seconds: float) -> dict:
    """The surfaces of issue #37 round 2 (rewards, information-state tensor, OpenSpiel's native
    backend, rendering) as decisions (frames) per CPU second and ratios to the raw API, in the
    same turn-taking rounds as `measure`. Run: python -m hansa.rl.bench GAME PLAYERS SECONDS."""
    game = hansa.load_game(name, players)
    ways = {
        "raw API": lambda rng, s: _raw(game, rng, s, None),
        "PettingZoo AEC": lambda rng, s: _pettingzoo(game, rng, s),
        "Gymnasium (self-play)": lambda rng, s: _gymnasium(game, rng, s),
        "Gymnasium (self-play), reward=win, shaped=1": lambda rng, s: _gymnasium_shaped(
            game, rng, s
        ),
        "Gymnasium vector env, 16 games (self-play)": lambda rng, s: _vector(game, rng, s, 16),
        "OpenSpiel + observation_tensor": lambda rng, s: _openspiel_with(
            game, rng, s, {}, "observation_tensor"
        ),
        "OpenSpiel, backend=native, + observation_tensor": lambda rng, s: _openspiel_with(
            game, rng, s, {"backend": "native"}, "observation_tensor"
        ),
        "OpenSpiel + information_state_tensor": lambda rng, s: _openspiel_with(
            game, rng, s, {}, "information_state_tensor"
        ),
        "frames: rgb_array (20 decisions apart)": lambda rng, s: _frames(game, rng, s, "rgb_array"),
        "frames: ansi (20 decisions apart)": lambda rng, s: _frames(game, rng, s, "ansi"),
    }
    rates = _rates(ways, seconds)
    raw = rates["raw API"]
    return {
        "game": game.name,
        "players": game.num_players(),
        "per_second_cpu": {label: round(rate) for label, rate in rates.items()},
        "ratio_to_raw": {label: round(rate / raw, 4) for label, rate in rates.items()},
    }


def masked_draw(masks, rng):
    """One uniformly random legal action per row of an (N, actions) 0/1 int8 mask, in numpy: the
    legal ids of every row in one `flatnonzero`, a uniform index into each row's run of them."""
    import numpy as np

    flags = masks.view(np.bool_)
    n, actions = flags.shape
    legal = np.flatnonzero(flags)
    counts = np.bincount(legal // actions, minlength=n)
    first = np.cumsum(counts) - counts
    pick = first + (rng.random(n) * counts).astype(np.int64)
    return legal[pick] - np.arange(n) * actions


def legal_draw(ids, counts, rng):
    """One uniformly random legal action per game from the batched environment's legal-id lists
    (`infos["legal_ids"]`, `infos["legal_counts"]`), in numpy: row i's entry
    floor(u * counts[i]) for u uniform in [0, 1). O(N), where a draw from the masks reads every
    game's whole mask row."""
    import numpy as np

    picks = (rng.random(counts.shape[0]) * counts).astype(np.intp)
    return ids[np.arange(counts.shape[0]), picks]


def _batched(game, rng, seconds: float, envs: int, **options) -> int:
    """Steps of the batched native env (hansa/rl/batched.py), every action drawn uniformly among
    the legal ones in numpy, from the legal-id lists it returned (`legal_draw`; `copy=False`: its
    own arrays, rewritten by every step)."""
    import numpy as np

    from .batched import HansaBatchedEnv

    environment = HansaBatchedEnv(game.name, envs, game.num_players(), copy=False, **options)
    _, infos = environment.reset(seed=rng.getrandbits(32))
    draws = np.random.default_rng(rng.getrandbits(32))
    ids, counts = infos["legal_ids"], infos["legal_counts"]
    steps = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        for _ in range(20):
            environment.step(legal_draw(ids, counts, draws))
        steps += 20 * envs
    return steps


def _native_playouts(game, rng, seconds: float) -> int:
    """Decisions of whole uniformly random games played inside the native module."""
    decisions = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        for result in game.playouts(4, seed=rng.getrandbits(32)):
            decisions += result["length"] or 0
    return decisions


def _python_vector_native(game, rng, seconds: float, envs: int) -> int:
    """The Python `HansaVectorEnv` over native states, actions drawn as `_batched` draws them."""
    import numpy as np

    from .gymnasium import HansaVectorEnv

    vector = HansaVectorEnv(game.name, envs, game.num_players(), seat=None, backend="native")
    observations, _ = vector.reset(seed=rng.getrandbits(32))
    vector.copy = False
    draws = np.random.default_rng(rng.getrandbits(32))
    steps = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        observations, *_ = vector.step(masked_draw(observations["action_mask"], draws).tolist())
        steps += envs
    return steps


def measure_batched(name: str, players: int | None, seconds: float, envs: int = 256) -> dict:
    """`hansa bench --batched`: steps per CPU second of the batched native environment (masked
    random actions drawn in numpy), as ratios to whole native random playouts in the same run."""
    game = hansa.load_game(name, players, backend="native")
    ways = {
        "native playouts (decisions)": lambda rng, s: _native_playouts(game, rng, s),
        f"batched env, {envs} games, self-play": lambda rng, s: _batched(
            game, rng, s, envs, seat=None
        ),
        f"batched env, {envs} games, seat 0 vs random in C": lambda rng, s: _batched(
            game, rng, s, envs, seat=0, opponents="random"
        ),
        f"batched env, {envs} games, seat 0 vs greedy in C": lambda rng, s: _batched(
            game, rng, s, envs, seat=0, opponents="greedy"
        ),
        f"HansaVectorEnv (Python) over native states, {envs} games, self-play": (
            lambda rng, s: _python_vector_native(game, rng, s, envs)
        ),
    }
    rates = _rates(ways, seconds)
    playouts = rates["native playouts (decisions)"]
    return {
        "game": game.name,
        "players": game.num_players(),
        "envs": envs,
        "per_second_cpu": {label: round(rate) for label, rate in rates.items()},
        "ratio_to_playouts": {label: round(rate / playouts, 4) for label, rate in rates.items()},
    }


if __name__ == "__main__":
    import sys

    name, count, budget = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    figures = measure_surfaces(name, count, budget)
    print(f"{figures['game']}, {figures['players']} players (per CPU second):")
    for label, rate in figures["per_second_cpu"].items():
        print(f"  {label:<50} {rate:>9,}  {figures['ratio_to_raw'][label]:.4f}×")
