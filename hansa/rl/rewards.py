"""Reward choices shared by every adapter (docs/rl.md, "Rewards").

A learner rewarded only with final PP gets one number per thousands of its moves, and PP are not
what a player of a race game wants: the winner is. So every adapter takes `reward=`:

- "pp": each player's final PP (`state.returns()`), the default and the old behaviour;
- "win": 1/k to each of the k winners after the game's tie-break chain (`state.winners()`), 0 to
  the others (the rewards of a game sum to 1);
- "rank": by place, from +1 (first) to -1 (last) in even steps: the winners first, then the others
  by final PP; tied players share the mean of their places (the rewards sum to 0);
- "margin": the player's final PP minus the mean of the others' (the rewards sum to 0);

and `shaped=w` (default 0): every step also pays w × the PP the player gained on the score track
since the last step (route bonuses, majorities, … scored while the game runs). With "pp" the
terminal reward then pays only what shaping has not, so a game's rewards sum to the final PP with
or without shaping; with the other kinds they sum to the outcome plus w × the track PP gained.

Truncation (`max_decisions`) pays no outcome (hansa/rl/common.py); shaped rewards are paid as the
PP are gained, the cut step's included.
"""

from __future__ import annotations

import hansa

REWARD_KINDS = ("pp", "win", "rank", "margin")


def check_reward(kind, shaped) -> tuple[str, float]:
    """The reward kind and shaping weight, or one HansaError naming what is accepted."""
    if not isinstance(kind, str) or kind not in REWARD_KINDS:
        shown = ", ".join(repr(k) for k in REWARD_KINDS)
        raise hansa.HansaError(f"reward must be one of {shown}, got {kind!r}")
    if shaped is True:
        shaped = 1.0
    elif shaped is False or shaped is None:
        shaped = 0.0
    if not isinstance(shaped, int | float) or not 0.0 <= shaped < float("inf"):
        raise hansa.HansaError(
            f"shaped must be True, False or a weight of at least 0 (PP gained per step), "
            f"got {shaped!r}"
        )
    return kind, float(shaped)


def outcome(state, kind: str) -> list[float]:
    """Each player's terminal reward of an ended game for reward `kind` (no shaping)."""
    final = [float(pp) for pp in state.returns()]
    n = len(final)
    if kind == "pp":
        return final
    if kind == "margin":
        total = sum(final)
        return [pp - (total - pp) / (n - 1) for pp in final] if n > 1 else [0.0] * n
    winners = set(state.winners())
    if kind == "win":
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]
    # rank: the winners first, then by PP; a group of equals shares the mean of its places
    keys = [(p in winners, final[p]) for p in range(n)]
    order = sorted(range(n), key=lambda p: keys[p], reverse=True)
    value = [0.0] * n
    place = 0
    while place < n:
        group = [p for p in order[place:] if keys[p] == keys[order[place]]]
        places = range(place, place + len(group))
        mean = sum(1.0 - 2.0 * i / (n - 1) for i in places) / len(group) if n > 1 else 0.0
        for p in group:
            value[p] = mean
        place += len(group)
    return value


class RewardTracker:
    """One game's rewards: shaped PP since the last call, and the outcome once the game ended.
    `step(state)` after each step of an adapter gives every player's reward for it (None when all
    are 0, the common case without shaping, so a learner's step pays nothing for it)."""

    __slots__ = ("kind", "shaped", "last", "paid")

    def __init__(self, kind: str = "pp", shaped: float = 0.0) -> None:
        self.kind, self.shaped = check_reward(kind, shaped)
        self.last: list[int] = []
        self.paid: list[float] = []

    def reset(self, state) -> None:
        self.last = list(state.track_pp()) if self.shaped else []
        self.paid = [0.0] * state.num_players if self.shaped else []

    def step(self, state, ended: bool | None = None) -> list[float] | None:
        """Rewards of the decisions since the last call; `ended` (default: whether the state is
        terminal) adds the outcome — False for a truncated game."""
        if ended is None:
            ended = state.is_terminal()
        rewards = None
        if self.shaped:
            now = state.track_pp()
            if now != self.last:
                w = self.shaped
                rewards = [w * (b - a) for a, b in zip(self.last, now, strict=True)]
                self.last = list(now)
                self.paid = [p + r for p, r in zip(self.paid, rewards, strict=True)]
        if ended:
            final = outcome(state, self.kind)
            if self.shaped and self.kind == "pp":
                final = [f - p for f, p in zip(final, self.paid, strict=True)]
            if rewards is not None:
                final = [f + r for f, r in zip(final, rewards, strict=True)]
            return final
        return rewards
