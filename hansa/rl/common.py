"""What the RL adapters share: the observation space, action masks, game seeds and the meaning of
truncation (docs/rl.md, "Truncation").

Truncation, the same in every adapter: a game stopped after `max_decisions` decisions (of all
players together) has not ended. It is reported as truncated, never as terminated, and nobody
receives final PP for it: every reward at the cut is 0 (OpenSpiel: the state is terminal with
`returns()` all 0, as OpenSpiel's own games score a game stopped by a move limit, and `truncated`
set). What the position would score if the game ended there is `state.score_breakdown()`.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

import hansa

SEED_BITS = 128  # a game's seed: the whole shuffle and deal, never shown to a seat


def observation_space(game) -> spaces.Dict:
    """`{"observation": float32 tensor, "action_mask": int8 0/1 over every action id}`."""
    return spaces.Dict(
        {
            "observation": spaces.Box(
                0.0, np.asarray(game.observation_tensor_high(), np.float32), dtype=np.float32
            ),
            "action_mask": spaces.Box(0, 1, (game.num_distinct_actions(),), np.int8),
        }
    )


def action_mask(state, size: int, player: int | None = None) -> np.ndarray:
    """0/1 over every action id: the legal actions of the current decision, if `player` (default:
    whoever decides) is deciding; all zeros otherwise and once the game is over."""
    mask = np.zeros(size, np.int8)
    if not state.is_terminal() and (player is None or state.current_player() == player):
        mask[state.legal_actions()] = 1
    return mask


def check_max_decisions(value) -> int | None:
    """`max_decisions`: None (no limit) or a whole number of at least 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise hansa.HansaError(f"max_decisions must be a whole number of at least 1, got {value!r}")
    return value


def check_num_envs(value) -> int:
    """`num_envs` of a vector env: a whole number of at least 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise hansa.HansaError(f"num_envs must be a whole number of at least 1, got {value!r}")
    return value


def public_space(game) -> spaces.Box:
    """The Box of `public_tensor`: the observation tensor's bounds."""
    return spaces.Box(0.0, np.asarray(game.observation_tensor_high(), np.float32), dtype=np.float32)


def public_tensor(game, state) -> np.ndarray:
    """The position every player sees, owners in seat order (player 0's tensor) with the
    observer's own secrets (`own_mission`) zeroed: a global state that leaks nothing hidden."""
    tensor = np.asarray(state.observation_tensor(0), np.float32)
    for block in game.observation_tensor_layout():
        if block["name"] == "own_mission":
            size = int(np.prod(block["shape"]))
            tensor[block["offset"] : block["offset"] + size] = 0.0
    return tensor
