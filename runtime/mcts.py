"""A search agent: information-set Monte Carlo tree search (`--agents mcts:iterations=400`).

Each iteration draws one completion of what the deciding player cannot see (the order of the
face-down marker supply, through the state's own `resample_hidden`), descends the one shared tree by
UCT, adds a node, plays a rollout (greedy or random agents, optionally stopped after `depth`
decisions) and backs up one reward per player. Actions the tree knows but this draw does not allow
are skipped, and a child's exploration term counts how often it was available (subset-armed UCT, as
in single-observer ISMCTS). It knows no rule: legal actions, `clone`, `apply_action`,
`score_breakdown`, `returns` and `winners` are all it uses.

The reward of a player is how far they lead the others' mean, squashed to (-1, 1): a won game
is worth more than any lead, so the search plays to win rather than to score. At a rollout's
cut-off the lead is measured by `score_breakdown`, the game's own scoring as if it ended there.
"""

from __future__ import annotations

import math
import random
import time

from .agents import RandomAgent
from .greedy import GreedyAgent

LEAD_SCALE = 10.0  # PP of lead worth about tanh(1) ≈ 0.76 of a win
WIN_BONUS = 1.0  # added at the end of the game, on top of the squashed lead


class _Node:
    __slots__ = ("children", "visits", "available", "totals", "order")

    def __init__(self, players: int) -> None:
        self.children: dict[int, _Node] = {}
        self.order: list[int] | None = None  # actions in the order they join the tree
        self.visits = 0
        self.available = 0  # times this node's action was legal when its parent was visited
        self.totals = [0.0] * players  # summed rewards per player


class MCTSAgent:
    """Information-set MCTS with UCT.

    iterations: searches per decision (ignored when `seconds` is given);
    seconds: a time budget per decision instead (then the result depends on the machine's speed);
    rollout: "greedy" or "random" players after the tree;
    depth: stop a rollout after this many decisions and score the position (0 = play to the end);
    c: the UCT exploration constant; seed: the agent's generator (same seed, same choices);
    widen: progressive widening, a node considers 1 + widen·√visits actions: the greedy agent's
    choice first, then the others in random order (a turn offers a hundred placements or more);
    prior: an exploration bonus for the greedy agent's choice (PUCT-like, prior·√N/(1+n)), so the
    search departs from the beginner's move only when the others measure better.
    """

    def __init__(
        self,
        seed: int | None = 0,
        iterations: int = 400,
        seconds: float = 0.0,
        rollout: str = "greedy",
        depth: int = 12,
        c: float = 0.7,
        widen: float = 1.0,
        prior: float = 0.5,
    ) -> None:
        if rollout not in ("greedy", "random"):
            raise ValueError(f"rollout must be greedy or random, not {rollout!r}")
        whole = {"iterations": iterations, "depth": depth}
        real = {"seconds": seconds, "c": c, "widen": widen, "prior": prior}
        for name, value in [*whole.items(), *real.items()]:
            kind = int if name in whole else (int, float)
            if isinstance(value, bool) or not isinstance(value, kind):
                noun = "a whole number" if name in whole else "a number"
                raise ValueError(f"{name} must be {noun}, not {value!r}")
        if iterations < 1 or seconds < 0 or depth < 0 or c < 0:
            raise ValueError("iterations must be positive; seconds, depth and c not negative")
        self.rng = random.Random(seed)
        self.iterations = int(iterations)
        self.seconds = float(seconds)
        self.rollout = rollout
        self.depth = int(depth)
        self.c = float(c)
        self.widen = float(widen)
        self.prior = float(prior)
        self._rollout_agents: list | None = None
        self.decisions = 0  # searched decisions (not forced ones)
        self.search_seconds = 0.0

    def step(self, state, legal_actions: list[int]) -> int:
        if len(legal_actions) == 1:
            return legal_actions[0]
        started = time.perf_counter()
        players = len(state.track_pp())
        root = _Node(players)
        deadline = started + self.seconds if self.seconds else None
        done = 0
        while True:
            self._iterate(state, root, players)
            done += 1
            if deadline is not None:
                if time.perf_counter() >= deadline:
                    break
            elif done >= self.iterations:
                break
        best = max(legal_actions, key=lambda a: _visits_then_value(root, a, state))
        self.decisions += 1
        self.search_seconds += time.perf_counter() - started
        return best

    # ---- one iteration
    def _iterate(self, root_state, root: _Node, players: int) -> None:
        rng = self.rng
        state = root_state.clone()
        # What the searching player cannot see is redrawn: marker order, others' secret cards.
        state.resample_hidden(rng, root_state.current_player())
        node = root
        path = [(node, -1)]
        while not state.is_terminal():
            legal = state.legal_actions()
            player = state.current_player()
            children = node.children
            if node.order is None:
                node.order = self._ordered(state, legal)
            allowed = 1 + int(self.widen * math.sqrt(node.visits))
            considered = [a for a in node.order[:allowed] if a in legal]
            if not considered:  # this draw allows none of them: widen to what it allows
                considered = [a for a in legal if a in children] or legal[:1]
            untried = [a for a in considered if a not in children]
            if untried:
                action = untried[0]
                for a in considered:
                    if a in children:
                        children[a].available += 1
                child = children[action] = _Node(players)
                child.available = 1
                state.apply_action(action)
                path.append((child, player))
                break
            action, child = self._select(node, considered, player, node.order[0])
            state.apply_action(action)
            path.append((child, player))
            node = child
        rewards = self._rollout(state, players)
        for visited, _player in path:
            visited.visits += 1
            totals = visited.totals
            for p in range(players):
                totals[p] += rewards[p]

    def _select(
        self, node: _Node, legal: list[int], player: int, favourite: int
    ) -> tuple[int, _Node]:
        children = node.children
        best = None
        best_value = -math.inf
        c = self.c
        for a in legal:
            child = children[a]
            child.available += 1
            value = child.totals[player] / child.visits + c * math.sqrt(
                math.log(child.available) / child.visits
            )
            if a == favourite:
                value += self.prior * math.sqrt(node.visits) / (1 + child.visits)
            if value > best_value:
                best, best_value = a, value
        return best, children[best]

    def _ordered(self, state, legal: list[int]) -> list[int]:
        """The greedy agent's choice first, then the other legal actions shuffled."""
        first = self._agents(len(state.track_pp()))[state.current_player()].step(state, legal)
        rest = [a for a in legal if a != first]
        self.rng.shuffle(rest)
        return [first] + rest

    def _agents(self, players: int) -> list:
        """Rollout players, made once (seeded from this agent's generator) so their caches of the
        position's values stay warm from one rollout to the next."""
        agents = self._rollout_agents
        if agents is None:
            if self.rollout == "greedy":
                agents = [GreedyAgent(self.rng.random()) for _ in range(players)]
            else:
                agents = [RandomAgent(self.rng.random())] * players
            self._rollout_agents = agents
        return agents

    def _rollout(self, state, players: int) -> list[float]:
        agents = self._agents(players)
        left = self.depth if self.depth else -1
        while left and not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(agents[state.current_player()].step(state, legal))
            left -= 1
        return rewards_of(state)


def rewards_of(state) -> list[float]:
    """Per player, tanh of their lead over the others' mean (PP as if the game ended now), plus a
    win bonus (split on a shared victory) when the game is over."""
    totals = [sum(b.values()) for b in state.score_breakdown()]
    players = len(totals)
    everyone = sum(totals)
    rewards = []
    for p in range(players):
        others = (everyone - totals[p]) / (players - 1)
        rewards.append(math.tanh((totals[p] - others) / LEAD_SCALE))
    if state.is_terminal():
        winners = state.winners()
        for p in winners:
            rewards[p] += WIN_BONUS / len(winners)
    return rewards


def _visits_then_value(root: _Node, action: int, state) -> tuple[float, float]:
    child = root.children.get(action)
    if child is None or not child.visits:
        return (0.0, -math.inf)
    player = state.current_player()
    return (float(child.visits), child.totals[player] / child.visits)
