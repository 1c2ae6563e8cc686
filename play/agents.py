"""Agents: an agent is a class with one method, `step(state, legal_actions) -> action`."""

from __future__ import annotations

import random
from typing import Protocol


class Agent(Protocol):
    def step(self, state, legal_actions: list[int]) -> int: ...


class RandomAgent:
    """Uniformly random legal actions from its own seeded generator."""

    def __init__(self, seed: int | None = 0) -> None:
        self.rng = random.Random(seed)

    def step(self, state, legal_actions: list[int]) -> int:
        return legal_actions[int(self.rng.random() * len(legal_actions))]


def play(state, agents, max_decisions: int | None = None) -> list[int]:
    """Play until the game ends (or `max_decisions`); the deciding player's agent decides.

    `agents` is one agent for everybody or a list indexed by player. Returns the actions applied.
    """
    per_player = agents if isinstance(agents, (list, tuple)) else None
    actions: list[int] = []
    while not state.is_terminal():
        if max_decisions is not None and len(actions) >= max_decisions:
            break
        legal = state.legal_actions()
        agent = per_player[state.current_player()] if per_player else agents
        action = agent.step(state, legal)
        state.apply_action(action)
        actions.append(action)
    return actions
