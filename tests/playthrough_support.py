"""Recorded playthroughs of the Python backend, for the native backend to be checked against
(like OpenSpiel's stored playthroughs): the games `hansa verify` plays, each reduced to a digest
of what the game showed along the way, written once from the Python backend and committed under
tests/golden/playthroughs/.

A playthrough is one seeded game under one policy of `hansa.play.differential` (greedy agents
with a random decision now and then, uniform random play, random play by action kind): at every
decision the player to move and the legal actions, every `FULL_EVERY` decisions and at the end
the whole position as state JSON, at the end the scores, returns and end conditions, all folded
into one running SHA-256, with the running digest noted every `CHECKPOINT_EVERY` decisions so
that a mismatch says where it began. Replaying the record on the native backend plays only the
native backend: the decisions come from the same agents and random numbers reading the native
states, so a legal action listed differently changes the game and shows in the digest.

The record names the generated module it was made from (its SHA-256): after a rule change the
test asks for the records to be made again, deliberately, like the other golden files:

    HANSA_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/games/test_native_playthroughs.py
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

from hansa.play.differential import EPSILON, FULL_EVERY, _choose
from hansa.play.greedy import GreedyAgent

PLAYTHROUGHS = Path(__file__).resolve().parent / "golden" / "playthroughs"
CHECKPOINT_EVERY = 1024
CAP = 500_000  # decisions, as `hansa verify`


def module_digest(module) -> str:
    """SHA-256 of the text of a game's generated rule module."""
    with open(module.__file__, "rb") as stream:
        return hashlib.sha256(stream.read()).hexdigest()


def _canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode() + b"\n"


def play(game, seed: int, policy: str) -> dict:
    """One playthrough of `game` (either backend): the seed, the policy, the number of decisions,
    the running digest every CHECKPOINT_EVERY decisions and at the end."""
    rng = random.Random(seed)
    agents = None
    if policy == "greedy":
        agents = [GreedyAgent(seed * 16 + p) for p in range(game.num_players())]
    module = game.module
    by_kind = policy == "kinds"
    state = game.new_initial_state(seed)
    digest = hashlib.sha256(f"hansa playthrough 1 {seed} {policy}\n".encode())
    checkpoints: dict[str, str] = {}
    decision = 0
    while True:
        legal = list(state.legal_actions())
        digest.update(_canonical([decision, state.current_player(), legal]))
        terminal = state.is_terminal()
        if decision % FULL_EVERY == 0 or terminal:
            digest.update(_canonical(state.to_dict()))
        if decision % CHECKPOINT_EVERY == 0:
            checkpoints[str(decision)] = digest.hexdigest()[:16]
        if terminal or decision >= CAP:
            break
        if agents is not None and rng.random() >= EPSILON:
            action = agents[state.current_player()].step(state, legal)
        else:
            action = _choose(rng, legal, module.ACTION_RANGES, by_kind=by_kind)
        state.apply_action(action)
        decision += 1
    ends = state.end_conditions_met() if terminal else None
    digest.update(_canonical([state.score_breakdown(), state.returns(), ends]))
    return {
        "seed": seed,
        "policy": policy,
        "decisions": decision,
        "checkpoints": checkpoints,
        "digest": digest.hexdigest(),
    }


def first_mismatch(recorded: dict, replayed: dict) -> str | None:
    """Where a replay leaves its record, in words (None: it does not)."""
    if recorded == replayed:
        return None
    where = "at the end"
    for at, value in recorded["checkpoints"].items():
        if replayed["checkpoints"].get(at) != value:
            where = f"before decision {at}"
            break
    return (
        f"seed {recorded['seed']} ({recorded['policy']}): the native game leaves the Python "
        f"backend's recorded playthrough {where} ({replayed['decisions']} decisions, recorded "
        f"{recorded['decisions']}); `hansa verify` plays both backends side by side and shows "
        "the first decision that differs"
    )
