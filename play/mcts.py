"""A search agent: information-set Monte Carlo tree search (`--agents mcts`, `mcts:iterations=50`).

The tree holds the searching player's own decisions only. Each iteration draws one completion of
what that player cannot see (the order of the face-down marker supply, others' secret cards,
through the state's own `resample_hidden`), then walks forward: at the searcher's decisions it
descends the tree by UCT (adding one node per iteration), every other player's decision is made
by the rollout policy (the greedy agent by default), inside the tree as after it. So the search is
a best response to its model of the others, whoever they really are. Actions the tree knows but
this draw does not allow are skipped, and a child's exploration term counts how often it was
available (subset-armed UCT, as in single-observer ISMCTS).

By default an iteration plays on to the end of the game: the final score under the rollout policy
is a far better judge of a move than any cut-off (what a player has built but not yet cashed —
developed Actions, pieces on half-built routes — shows only in later turns). A horizon counted in
the searcher's turns (`turns`) or in decisions (`depth`) makes iterations cheaper; the position
there is scored as if the game ended (`score_total`). The reward is the searcher's lead over
the best other player squashed to (-1, 1), plus a win bonus at the end of the game. It knows no
rule: legal actions, `clone`, `apply_action`, `resample_hidden`, `score_total`, `winners`,
`observation` (what the searcher sees, to keep a subtree), the greedy agent, and the module's
`ACTION_RANGES` (to see where a turn begins) are all it uses.

Two savings that keep the search's judgement (`strong` uses both): `reuse` keeps the subtree of
the action chosen when the next decision is the searcher's again with nothing else in between (its
observation is the one the chosen action led to: a turn of several actions), so its visits count
towards the next decision's budget; `stop` ends a search once no other action could overtake the
most visited one in the iterations left (the choice is then the one the whole budget would make).
`backend="native"` runs the iterations on the native backend's copy of the position (a game built
with `hansa build --native`): the same choices as on the Python backend for the same seed, at a
tenth of the cost or less; `backend="auto"` (what `strong` uses) does so where the game builds
natively and searches the Python position where it does not (no C compiler, a construct the
native target refuses). With no horizon, the part of an iteration after the tree is one call: the
state's `random_steps` with random rollouts (a seeded stream both backends draw alike), and on a
native state `greedy_playout` with greedy ones (the greedy policy in C, play/greedy.py, making the
decisions the rollout agents would make one by one): that is where the search spends its time.
"""

from __future__ import annotations

import math
import random
import time
from bisect import bisect_right
from itertools import accumulate

from hansa.runtime.errors import HansaError

import hansa

from .agents import RandomAgent
from .greedy import GreedyAgent, module_namespace, native_playout

LEAD_SCALE = 10.0  # PP of lead worth about tanh(1) ≈ 0.76 of a win
WIN_BONUS = 1.0  # added at the end of the game, on top of the squashed lead
ROLLOUT_CAP = 2_000_000  # decisions a random rollout may take (random games end far sooner)
RANKED = 6  # how many of the greedy agent's choices lead a node's order (best, second best, …)
BELIEF_DRAWS = 256  # completions of the hidden information weighed once per search (belief)
BELIEF_PROBE = 8  # ... unless the first this many all score the others alike (no secret scores yet)
BELIEF_PP = 1.0  # a completion scoring the others this many PP more now is e times as likely


class _Node:
    __slots__ = ("children", "visits", "available", "total", "order")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.order: list[int] | None = None  # actions in the order they join the tree
        self.visits = 0
        self.available = 0  # times this node's action was legal when its parent was visited
        self.total = 0.0  # summed rewards of the searching player


class MCTSAgent:
    """Information-set MCTS over the searcher's own decisions, the others played by the rollout
    policy.

    iterations: searches per decision (ignored when `seconds` is given);
    seconds: a time budget per decision instead (then the result depends on the machine's speed);
    rollout: "greedy" or "random": how every other player's decision is made, and the searcher's
    own after the tree;
    turns: an iteration ends when the searcher's `turns`-th turn after the current one is over
    (0, the default: no turn limit);
    depth: and at the latest after this many decisions (0: no limit; both 0: play to the end);
    c: the UCT exploration constant; seed: the agent's generator (same seed, same choices);
    widen: progressive widening, a node considers 1 + widen·√visits actions: the greedy agent's
    choices first (its best, then its best among the rest, … up to six), then the others in random
    order (a turn offers a hundred placements or more);
    prior: an exploration bonus for the greedy agent's choice (PUCT-like, prior·√N/(1+n)), so the
    search departs from the beginner's move only when the others measure better;
    reuse: continue from the chosen action's subtree at the searcher's next decision when nothing
    but that action came between (the budget counts the visits kept);
    stop: end a search as soon as the most visited action can no longer be overtaken;
    belief: weigh the completions of what the searcher cannot see by what the others have built:
    once per search `BELIEF_DRAWS` are drawn and each is weighted by exp(the PP the others score
    in it now / BELIEF_PP), so cards the others' posts already serve are the likelier (a player
    builds towards its own secret goal); each iteration then plays one drawn by weight. Where
    the completions score alike (no secret card, or none that scores yet: the first
    `BELIEF_PROBE` tell) the iterations redraw as without it, so the same choices;
    backend: "python" (the state as given), "native" (iterations on the native backend's copy
    of a Python position; the game must build natively) or "auto" (native where the game builds
    natively, else python).
    """

    greedy_class = GreedyAgent  # the rollout policy's and the ranking's agent

    def __init__(
        self,
        seed: int | None = 0,
        iterations: int = 30,
        seconds: float = 0.0,
        rollout: str = "greedy",
        turns: int = 0,
        depth: int = 0,
        c: float = 0.5,
        widen: float = 1.0,
        prior: float = 0.5,
        reuse: bool = False,
        stop: bool = False,
        backend: str = "python",
        belief: bool = True,
    ) -> None:
        if rollout not in ("greedy", "random"):
            raise ValueError(f"rollout must be greedy or random, not {rollout!r}")
        if backend not in ("python", "native", "auto"):
            raise ValueError(f"backend must be python, native or auto, not {backend!r}")
        for name, flag in (("reuse", reuse), ("stop", stop), ("belief", belief)):
            if not isinstance(flag, bool):
                raise ValueError(f"{name} must be true or false, not {flag!r}")
        whole = {"iterations": iterations, "turns": turns, "depth": depth}
        real = {"seconds": seconds, "c": c, "widen": widen, "prior": prior}
        for name, value in [*whole.items(), *real.items()]:
            kind = int if name in whole else (int, float)
            if isinstance(value, bool) or not isinstance(value, kind):
                noun = "a whole number" if name in whole else "a number"
                raise ValueError(f"{name} must be {noun}, not {value!r}")
        if iterations < 1 or seconds < 0 or turns < 0 or depth < 0 or c < 0:
            raise ValueError(
                "iterations must be positive; seconds, turns, depth and c not negative"
            )
        self.rng = random.Random(seed)
        self.iterations = int(iterations)
        self.seconds = float(seconds)
        self.rollout = rollout
        self.turns = int(turns)
        self.depth = int(depth)
        self.c = float(c)
        self.widen = float(widen)
        self.prior = float(prior)
        self.reuse = reuse
        self.stop = stop
        self.backend = backend
        self.belief = belief
        # its own generator, so that drawing the weighed completions leaves the search's draws as
        # they are in a game where every completion weighs the same
        self._belief_rng = random.Random(None if seed is None else f"belief {seed}")
        # (completions of the searched position, cumulative weights)
        self._drawn: tuple[list, list[float]] | None = None
        self._native_game = None  # the native game of the positions searched (backend native)
        # (subtree, the searcher's observation after the action chosen) of the last search
        self._kept: tuple[_Node, dict] | None = None
        self._rollout_agents: list | None = None
        self._forgets: list = []
        self._ranker: GreedyAgent | None = None
        self._end_turn = -1
        self.decisions = 0  # searched decisions (not forced ones)
        self.search_seconds = 0.0

    def step(self, state, legal_actions: list[int]) -> int:
        if len(legal_actions) == 1:
            return legal_actions[0]
        started = time.perf_counter()
        players = len(state.track_pp())
        if self._rollout_agents is None:
            self._setup(state, players)
        me = state.current_player()
        root = self._kept_root(state, me) if self.reuse else _Node()
        search = self._native_game.from_python(state) if self._native_game else state
        self._drawn = self._weighed_completions(search, me, players) if self.belief else None
        deadline = started + self.seconds if self.seconds else None
        done = 0
        while True:
            self._iterate(search, root)
            done += 1
            if deadline is not None:
                if time.perf_counter() >= deadline:
                    break
            elif root.visits >= self.iterations:
                break
            elif self.stop and _decided(root, legal_actions, self.iterations - root.visits):
                break
        best = max(legal_actions, key=lambda a: _visits_then_value(root, a))
        if self.reuse:
            after = state.clone()
            after.apply_action(best)
            kept = root.children.get(best) or _Node()  # an action no iteration reached
            self._kept = (kept, after.observation(me))
        self.decisions += 1
        self.search_seconds += time.perf_counter() - started
        return best

    def _kept_root(self, state, me: int) -> _Node:
        """The subtree kept from the last search when this position is the one its chosen action
        led to, as the searcher sees it (a new root otherwise)."""
        kept, self._kept = self._kept, None
        if kept is not None and kept[1] == state.observation(me):
            return kept[0]
        return _Node()

    def _setup(self, state, players: int) -> None:
        """Rollout players, made once (seeded from this agent's generator) so their caches of the
        position's values stay warm from one rollout to the next; the END_TURN action id, offered
        by every turn decision and only there."""
        greedy = self.greedy_class
        if self.rollout == "greedy":
            self._rollout_agents = [greedy(self.rng.random()) for _ in range(players)]
        else:
            self._rollout_agents = [RandomAgent(self.rng.random())] * players
        self._ranker = greedy(self.rng.random())
        self._forgets = [a.forget for a in self._rollout_agents if isinstance(a, GreedyAgent)]
        namespace = module_namespace(state)
        ranges = namespace["ACTION_RANGES"]
        if self.backend != "python" and getattr(type(state), "python_module", None) is None:
            self._native_game = native_copy_game(namespace, players, self.backend == "native")
        self._end_turn = next(base for kind, base, _size in ranges if kind == "END_TURN")

    # ---- one iteration
    def _iterate(self, root_state, root: _Node) -> None:
        rng = self.rng
        me = root_state.current_player()
        # What the searching player cannot see is redrawn: marker order, others' secret cards.
        if self._drawn is None:
            state = root_state.clone()
            state.resample_hidden(rng, me)
        else:
            completions, cumulative = self._drawn
            pick = self._belief_rng.random() * cumulative[-1]
            completion = completions[min(bisect_right(cumulative, pick), len(completions) - 1)]
            state = completion.clone()
        agents = self._rollout_agents
        for forget in self._forgets:  # each iteration is another game for them (no stale caches)
            forget()
        end_turn = self._end_turn
        node: _Node | None = root  # None once the iteration has left the tree
        path = [root]
        last_turn_player = -1  # whose turn decision came last (-1: none seen yet)
        my_turns = 0  # turns of mine begun after the root
        decisions = 0
        # rollouts with no horizon: once the iteration has left the tree, random ones are the
        # game's own loop (in C on the native backend; the same decisions on both), greedy ones
        # on a native state one call of the C policy (the decisions the agents would make)
        to_the_end = not self.turns and not self.depth
        while not state.is_terminal():
            if node is None and to_the_end:
                if self.rollout == "random":
                    state.random_steps(ROLLOUT_CAP, rng.getrandbits(64))
                    break
                if native_playout(state, agents, ROLLOUT_CAP) is not None:
                    break
            legal = state.legal_actions()
            player = state.current_player()
            if legal[0] == end_turn:  # a turn decision: count turns
                if player == me:
                    if last_turn_player not in (-1, me):
                        my_turns += 1
                elif self.turns and my_turns >= self.turns:
                    break  # my last turn of the horizon is over
                last_turn_player = player
            if self.depth and decisions >= self.depth:
                break
            decisions += 1
            if player != me or node is None or len(legal) == 1:
                state.apply_action(agents[player].step(state, legal))
                continue
            node = self._descend(state, node, legal, path)
        reward = reward_of(state, me)
        for visited in path:
            visited.visits += 1
            visited.total += reward

    def _weighed_completions(self, state, me: int, players: int) -> tuple[list, list[float]] | None:
        """`BELIEF_DRAWS` completions of what `me` cannot see (positions like `state`) with their
        cumulative weights, or None when the first `BELIEF_PROBE` of them score the
        others alike (then the weights would be all but equal: the plain redraw is as good)."""
        rng = self._belief_rng
        drawn = []
        for count in range(BELIEF_DRAWS):
            completion = state.clone()
            completion.resample_hidden(rng, me)
            others = sum(completion.score_total(p) for p in range(players) if p != me)
            drawn.append((others, completion))
            if count + 1 == BELIEF_PROBE and all(o == others for o, _ in drawn):
                return None
        most = max(others for others, _ in drawn)
        weights = accumulate(math.exp((others - most) / BELIEF_PP) for others, _ in drawn)
        return [completion for _, completion in drawn], list(weights)

    def _descend(self, state, node: _Node, legal: list[int], path: list[_Node]) -> _Node | None:
        """Choose the searcher's action at a tree node and apply it; the next node, or None when
        a node was added (the rest of the iteration is a rollout)."""
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
            child = children[action] = _Node()
            child.available = 1
            state.apply_action(action)
            path.append(child)
            return None
        action, child = self._select(node, considered, node.order[0])
        state.apply_action(action)
        path.append(child)
        return child

    def _select(self, node: _Node, legal: list[int], favourite: int) -> tuple[int, _Node]:
        children = node.children
        best = None
        best_value = -math.inf
        c = self.c
        for a in legal:
            child = children[a]
            child.available += 1
            value = child.total / child.visits + c * math.sqrt(
                math.log(child.available) / child.visits
            )
            if a == favourite:
                value += self.prior * math.sqrt(node.visits) / (1 + child.visits)
            if value > best_value:
                best, best_value = a, value
        return best, children[best]

    def _ordered(self, state, legal: list[int]) -> list[int]:
        """The greedy agent's ranking first (its choice, then its choice among the rest, …), then
        the other legal actions shuffled."""
        ranked: list[int] = []
        left = list(legal)
        ranker = self._ranker
        ranker.forget()
        while len(ranked) < RANKED and len(left) > 1:
            choice = ranker.step(state, left)
            if choice in ranked or choice not in left:
                break
            ranked.append(choice)
            if choice in (left[0], left[-1]):
                break  # the greedy agent reads a decision's kind from its first and last action
            left.remove(choice)
        rest = [a for a in legal if a not in ranked]
        self.rng.shuffle(rest)
        return ranked + rest


def native_copy_game(namespace: dict, players: int, required: bool):
    """The native game of the rule module whose namespace this is, or None (when not `required`)
    where there is none: no C compiler, a construct the native target refuses, a cache it cannot
    write, or a game of other rules than the installed one of its name (compiled in memory from
    another spec)."""
    game, reason = _native_copy_or_reason(namespace, players)
    if game is None and required:
        raise HansaError(reason)
    return game


def native_search_unavailable(namespace: dict, players: int) -> str | None:
    """Why a search with `backend="auto"` would search Python positions in this game (the
    reason, one line), or None when it searches natively."""
    return _native_copy_or_reason(namespace, players)[1] or None


def _native_copy_or_reason(namespace: dict, players: int) -> tuple[object, str]:
    from hansa.compiler.targets.python.codegen import generated_text

    name = namespace["GAME_NAME"]
    try:
        game = hansa.load_game(name, players=players, backend="native")
    except HansaError as exc:  # no compiler, a refused construct, an unwritable cache, …
        return None, exc.message
    except OSError as exc:
        return None, f"the native build of {name!r} failed: {exc}"
    if generated_text(vars(game.module)) != generated_text(namespace):
        return None, (
            f"the native backend builds the installed game {name!r}, and this position is of"
            " other rules of that name: play it with --backend native (or compile_game("
            "..., backend='native')) to search it natively"
        )
    return game, ""


def reward_of(state, player: int) -> float:
    """The player's lead over the best other player (PP as if the game ended now) squashed by
    tanh, plus a win bonus (split on a shared victory) when the game is over."""
    totals = [state.score_total(p) for p in range(len(state.track_pp()))]
    best_other = max(t for p, t in enumerate(totals) if p != player)
    reward = math.tanh((totals[player] - best_other) / LEAD_SCALE)
    if state.is_terminal():
        winners = state.winners()
        if player in winners:
            reward += WIN_BONUS / len(winners)
    return reward


def rewards_of(state) -> list[float]:
    """`reward_of` for every player."""
    return [reward_of(state, p) for p in range(len(state.track_pp()))]


def _decided(root: _Node, legal: list[int], left: int) -> bool:
    """Whether the most visited legal action stays so with `left` iterations to go, whatever they
    do (more visits than any other action, tried or not, could reach)."""
    first = second = 0
    for action, child in root.children.items():
        if action not in legal:
            continue
        if child.visits > first:
            first, second = child.visits, first
        elif child.visits > second:
            second = child.visits
    return first > second + left and first > left


def _visits_then_value(root: _Node, action: int) -> tuple[float, float]:
    child = root.children.get(action)
    if child is None or not child.visits:
        return (0.0, -math.inf)
    return (float(child.visits), child.total / child.visits)
