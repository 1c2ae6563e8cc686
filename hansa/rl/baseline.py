"""A baseline that learns (issue #37 item 8): policy-gradient training on the batched native
environment, numpy only (docs/rl.md, "A baseline that learns").

The policy is a softmax over the legal actions whose logit for action id a is

    theta[a] + (W @ f)[kind(a)] + (scaled(observation) @ V) · E[a] + [a = advice] (T @ f)[kind(a)]

with f a few numbers of the seat's own (track PP, actions left, supplies, …) and a constant —
a preference per action id; per kind of action (the module's `ACTION_RANGES`: place, displace,
create a route, …) a linear function of f; a bilinear term of rank `rank` over the whole
observation (`rank=0` leaves it out); and, for the one action the greedy policy in C would take
in the seat's place (`HansaBatchedEnv.greedy_advice()`; `advice=False` leaves it out), a bonus
linear in f per kind: T starts at 0, so the untrained policy ignores the advice, and learns how
far to trust it, for which kind of decision and when.

Two ways of crediting decisions. Windows (the default): REINFORCE on the seat's reward minus the
mean of the others' (`reward="win"`: 1 for a win, plus `shaped` × the PP gained on the track),
returns discounted by `gamma` inside windows of `horizon` steps, minus their mean over the
games, one Adam step per window. Against greedy players that paid for playing slowly (the
others' PP fell past the window's end). Whole games (`whole_games=True`): every iteration plays
one new game in every slot to its end (at most `horizon` steps) and credits each decision with
its game's outcome — the win share plus `margin` × the final PP margin over the others' mean —
minus the mean outcome of the iteration's games. Everything is array arithmetic over the legal
actions of all games at once (a game's legal ids are one run of `np.flatnonzero` over the masks).

Evaluation plays the sampled policy against the opponents in C (random, greedy) on games of
their own seeds and counts the seat's wins after the tie-break (a shared win counts 1/k; a game
cut at `EVAL_CUT` decisions counts as not won), with a Wilson 95% interval.

Run: `python -m hansa.rl.baseline --help` (the command and measured curve are in docs/rl.md).
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import math
import sys
import time

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import hansa
from hansa.atomic import write_atomically
from hansa.play.greedy import GreedyAgent

from .batched import HansaBatchedEnv

EVAL_CUT = 200_000  # decisions: a game of the evaluation cut here counts as not won


class Policy:
    """theta (one logit per action id), W (per action kind, weights on a few features) and a
    low-rank bilinear term: the whole observation, scaled to 0–1, times V (size × rank) gives a
    vector h, and action a adds h · E[a] (E: actions × rank); T (per action kind, weights on
    the same features) is the bonus of the action the greedy policy advises."""

    def __init__(self, game, size: int, rank: int = 16, seed: int = 0) -> None:
        ranges = game.module.ACTION_RANGES
        actions = game.num_distinct_actions()
        self.kind = np.zeros(actions, np.int64)
        for k, (_name, first, count) in enumerate(ranges):
            self.kind[first : first + count] = k
        self.kinds = len(ranges)
        self.feature_index = _feature_index(game)
        cap = np.minimum(np.asarray(game.observation_tensor_high(), np.float32), 20.0)
        self.cap = np.maximum(cap, 1.0)
        self.inverse_cap = (1.0 / self.cap).astype(np.float32)
        rng = np.random.default_rng(seed)
        self.theta = np.zeros(actions)
        self.weights = np.zeros((self.kinds, len(self.feature_index) + 1))
        self.down = rng.normal(0.0, 0.01, (size, rank))  # V
        self.embed = rng.normal(0.0, 0.01, (actions, rank))  # E
        self.trust = np.zeros((self.kinds, len(self.feature_index) + 1))  # T: the advice's bonus

    def parameters(self) -> tuple:
        return self.theta, self.weights, self.down, self.embed, self.trust

    def features(self, observations: np.ndarray) -> np.ndarray:
        """(N, F + 1): the chosen tensor entries, scaled to about 0–1, and a constant 1."""
        chosen = observations[:, self.feature_index] / 20.0
        return np.concatenate([chosen, np.ones((len(observations), 1))], axis=1)

    def scaled(self, observations: np.ndarray) -> np.ndarray:
        """The observation with every entry in 0–1 (counts capped at 20)."""
        return np.minimum(observations, self.cap) * self.inverse_cap

    def decide(
        self, observations: np.ndarray, masks: np.ndarray, rng, advice: np.ndarray | None = None
    ) -> tuple:
        """Sample one legal action per row; returns (actions, the data the update needs).
        `advice`: per row the greedy policy's action (-1: none); that action's logit gains
        features · T[its kind], so the policy learns how far to trust the advice, and when."""
        n, actions = masks.shape
        flat = np.flatnonzero(masks.view(np.bool_))
        rows = flat // actions
        ids = flat - rows * actions
        counts = np.bincount(rows, minlength=n)
        first = np.cumsum(counts) - counts
        features = self.features(observations)
        if self.down.shape[1]:
            scaled = self.scaled(observations)
            hidden = (scaled @ self.down.astype(np.float32)).astype(np.float64)  # (N, rank)
        else:  # rank 0: no bilinear term (and no copy of the observation kept for the update)
            scaled, hidden = None, np.zeros((n, 0))
        per_kind = features @ self.weights.T  # (N, kinds)
        logits = self.theta[ids] + per_kind[rows, self.kind[ids]]
        logits += np.einsum("ij,ij->i", hidden[rows], self.embed[ids])
        advised = np.zeros(len(ids), np.bool_) if advice is None else ids == advice[rows]
        if advised.any():
            where = np.flatnonzero(advised)
            logits[where] += np.einsum(
                "ij,ij->i", features[rows[where]], self.trust[self.kind[ids[where]]]
            )
        top = np.maximum.reduceat(logits, first)
        weights = np.exp(logits - top[rows])
        total = np.add.reduceat(weights, first)
        probability = weights / total[rows]
        cumulative = np.cumsum(probability)
        before = np.concatenate(([0.0], cumulative))[first]
        target = before + rng.random(n) * (cumulative[first + counts - 1] - before)
        pick = np.searchsorted(cumulative, target, side="right")
        pick = np.minimum(np.maximum(pick, first), first + counts - 1)
        return ids[pick], (rows, ids, probability, pick, features, scaled, hidden, advised)

    def gradient(self, trace: tuple, advantage: np.ndarray) -> tuple:
        """The REINFORCE gradient of one step's log-probabilities times `advantage` (N), one
        array per parameter in the order of `parameters()`."""
        rows, ids, probability, pick, features, scaled, hidden, advised = trace
        n, actions = len(advantage), len(self.theta)
        chosen = ids[pick]
        spread = advantage[rows] * probability  # the expected part, per legal entry
        grad_theta = np.bincount(chosen, weights=advantage, minlength=actions)
        grad_theta -= np.bincount(ids, weights=spread, minlength=actions)
        picked = np.zeros((n, self.kinds))
        np.add.at(picked, (np.arange(n), self.kind[chosen]), advantage)
        expected = np.zeros((n, self.kinds))
        np.add.at(expected, (rows, self.kind[ids]), spread)
        grad_weights = (picked - expected).T @ features
        grad_embed = np.zeros_like(self.embed)
        np.add.at(grad_embed, chosen, advantage[:, None] * hidden)
        np.add.at(grad_embed, ids, -spread[:, None] * hidden[rows])
        towards = advantage[:, None] * self.embed[chosen]
        np.add.at(towards, rows, -spread[:, None] * self.embed[ids])
        grad_down = np.zeros_like(self.down) if scaled is None else scaled.T @ towards
        # T: the advised entry's (chosen − probability) × advantage, times the features
        grad_trust = np.zeros_like(self.trust)
        where = np.flatnonzero(advised)
        if len(where):
            entry_rows = rows[where]
            taken = (pick[entry_rows] == where).astype(np.float64)
            scale = advantage[entry_rows] * (taken - probability[where])
            np.add.at(grad_trust, self.kind[ids[where]], scale[:, None] * features[entry_rows])
        return grad_theta, grad_weights, grad_down, grad_embed, grad_trust


PARAMETER_NAMES = ("theta", "weights", "down", "embed", "trust")


def load_policy(game, size: int, path: str) -> Policy:
    """A policy with the parameters `--save` wrote (the same game and player count)."""
    try:
        saved = np.load(path)
    except (OSError, ValueError) as error:
        raise hansa.HansaError(f"{path}: cannot read the policy ({error})") from None
    with saved:
        policy = Policy(game, size, saved["down"].shape[1])
        for name, into in zip(PARAMETER_NAMES, policy.parameters(), strict=True):
            if saved[name].shape != into.shape:
                raise hansa.HansaError(f"{path}: {name} is {saved[name].shape}, not {into.shape}")
            into[...] = saved[name]
    return policy


class LearnedAgent:
    """A saved policy (`--save`) as an agent of `hansa play`/`simulate`/`ladder`, on either
    backend: `--agents hansa.rl.baseline:LearnedAgent:path=policy.npz,greedy,greedy,greedy`.
    It reads the seat's observation tensor and, when the policy was trained with advice, asks
    a greedy agent of its own (play/greedy.py, seeded with the agent's seed) for its choice,
    then samples from the policy. So a curve measured on the batched env can be checked
    against the Python rules and the Python greedy agent."""

    def __init__(self, path: str, seed: int = 0) -> None:
        self.path = path
        self.rng = np.random.default_rng(seed)
        self.advisor = GreedyAgent(seed)
        self.policy: Policy | None = None
        try:
            with np.load(path) as saved:
                self.game_name, self.advice = str(saved["game"]), bool(saved["advice"])
        except (OSError, ValueError, KeyError) as error:
            raise hansa.HansaError(f"{path}: not a policy saved by --save ({error})") from None

    def step(self, state, legal_actions: list[int]) -> int:
        me = state.current_player()
        tensor = np.asarray(state.observation_tensor(me), np.float32)[None, :]
        if self.policy is None:
            game = hansa.load_game(self.game_name, state.num_players)
            self.policy = load_policy(game, tensor.shape[1], self.path)
        mask = np.zeros((1, len(self.policy.theta)), np.int8)
        mask[0, legal_actions] = 1
        advice = None
        if self.advice:
            advice = np.array([self.advisor.step(state, list(legal_actions))], np.int64)
        actions, _trace = self.policy.decide(tensor, mask, self.rng, advice)
        return int(actions[0])


class Adam:
    """Adam (Kingma & Ba) ascending the parameters in place: the step per parameter is about the
    learning rate whatever the gradient's scale."""

    def __init__(self, parameters: tuple, learning_rate: float) -> None:
        self.parameters = parameters
        self.rate = learning_rate
        self.first = [np.zeros_like(p) for p in parameters]
        self.second = [np.zeros_like(p) for p in parameters]
        self.steps = 0

    def ascend(self, gradients: tuple) -> None:
        self.steps += 1
        b1, b2 = 0.9, 0.999
        for p, g, m, v in zip(self.parameters, gradients, self.first, self.second, strict=True):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            m_hat = m / (1 - b1**self.steps)
            v_hat = v / (1 - b2**self.steps)
            p += self.rate * m_hat / (np.sqrt(v_hat) + 1e-8)


# The tensor blocks the policy reads: the seat's own row (owners are relative to the observer,
# so row 0 is the seat's) or the whole block.
FEATURE_BLOCKS = {
    "abilities": "own",
    "supply": "own",
    "stock": "own",
    "track": "all",
    "actions_left": "all",
    "completed_cities": "all",
    "marker_supply": "all",
}


def _feature_index(game) -> np.ndarray:
    """The tensor entries of `FEATURE_BLOCKS` (docs/game-api.md, the tensor's layout)."""
    index: list[int] = []
    for block in game.observation_tensor_layout():
        part = FEATURE_BLOCKS.get(block["name"])
        if part is None:
            continue
        shape, offset = block["shape"], block["offset"]
        size = shape[-1] if part == "own" and len(shape) == 2 else int(np.prod(shape))
        index.extend(range(offset, offset + size))
    return np.array(index, np.int64)


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% for z = 1.96)."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    centre = rate + z * z / (2 * games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    return (centre - spread) / (1 + z * z / games), (centre + spread) / (1 + z * z / games)


def evaluate(
    policy: Policy, env: HansaBatchedEnv, games: int, seed: int, advice: bool = True
) -> dict:
    """Win rate of seat 0 over `games` finished games against the env's opponents."""
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    wins = finished = 0.0
    while finished < games:
        actions, _trace = policy.decide(
            observations["observation"],
            observations["action_mask"],
            rng,
            env.greedy_advice() if advice else None,
        )
        observations, _rewards, terminated, truncated, infos = env.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            if finished >= games:
                break
            finished += 1
            if terminated[i]:
                winners = env.final_state(i).winners()
                wins += 1.0 / len(winners) if 0 in winners else 0.0
    low, high = wilson(wins, int(finished))
    return {"games": int(finished), "wins": wins, "rate": wins / finished, "low": low, "high": high}


def train(
    game_name: str = "bigbox-hanseatic-45p",
    players: int = 4,
    opponents: str = "random",
    iterations: int = 30,
    envs: int = 256,
    horizon: int = 64,
    learning_rate: float = 0.02,
    gamma: float = 0.97,
    shaped: float = 0.1,
    max_decisions: int | None = None,
    eval_games: int = 200,
    eval_every: int = 5,
    seed: int = 0,
    rank: int = 16,
    advice: bool = True,
    whole_games: bool = False,
    margin: float = 0.05,
    log=print,
    log_training: bool = False,
    save: str | None = None,
) -> dict:
    """Train against `opponents` ("random", "greedy", or phases of equal length separated by
    commas: "random,greedy") and evaluate against random and greedy every `eval_every`
    iterations (and before the first); returns the curve."""
    phases = opponents.split(",")
    trainers = {
        name: HansaBatchedEnv(
            game_name,
            envs,
            players,
            seat=0,
            opponents=name,
            reward="margin" if whole_games else "win",
            shaped=0.0 if whole_games else shaped,
            max_decisions=max_decisions,
            copy=False,
        )
        for name in dict.fromkeys(phases)
    }
    evaluators = {
        name: HansaBatchedEnv(
            game_name,
            min(envs, eval_games),
            players,
            seat=0,
            opponents=name,
            max_decisions=EVAL_CUT,
            copy=False,
        )
        for name in ("random", "greedy")
    }
    size = evaluators["random"].single_observation_space["observation"].shape[0]
    policy = Policy(evaluators["random"].game, size, rank, seed)
    optimiser = Adam(policy.parameters(), learning_rate)
    rng = np.random.default_rng(seed)
    current = {name: trainer.reset(seed=seed)[0] for name, trainer in trainers.items()}
    curve = []
    steps = 0
    started = time.process_time()
    for iteration in range(iterations + 1):
        if iteration % eval_every == 0 or iteration == iterations:
            point = {"iteration": iteration, "steps": steps}
            for name, evaluator in evaluators.items():
                point[name] = evaluate(
                    policy, evaluator, eval_games, seed + 1000 + iteration, advice
                )
            point["cpu_seconds"] = round(time.process_time() - started, 1)
            curve.append(point)
            log(_point_line(point, evaluators))
        if iteration == iterations:
            break
        phase = phases[min(iteration * len(phases) // max(iterations, 1), len(phases) - 1)]
        env, observations = trainers[phase], current[phase]
        if whole_games:
            gradient, made, stats = _whole_games(
                policy, env, rng, seed + iteration, horizon, margin, advice
            )
            steps += made
            optimiser.ascend(gradient)
            if log_training:
                log(
                    f"  iteration {iteration:>3}  training: won {stats['won']:.3f}, advice "
                    f"taken {stats['followed']:.3f}, {stats['finished']} games finished"
                )
            continue
        gradient, current[phase] = _window(policy, env, observations, rng, horizon, gamma, advice)
        steps += horizon * envs
        optimiser.ascend(gradient)
    if save:
        buffer = io.BytesIO()
        named = dict(zip(PARAMETER_NAMES, policy.parameters(), strict=True))
        np.savez(buffer, game=np.array(game_name), advice=np.array(advice), **named)
        write_atomically(save, buffer.getvalue())
    return {
        "game": game_name,
        "players": players,
        "opponents": opponents,
        "envs": envs,
        "horizon": horizon,
        "learning_rate": learning_rate,
        "gamma": gamma,
        "shaped": shaped,
        "max_decisions": max_decisions,
        "seed": seed,
        "rank": rank,
        "advice": advice,
        "whole_games": whole_games,
        "margin": margin if whole_games else None,
        "curve": curve,
    }


def _point_line(point: dict, evaluators: dict) -> str:
    """One evaluation point as a log line."""
    return (
        f"iteration {point['iteration']:>3}  steps {point['steps']:>9,}  "
        f"cpu {point['cpu_seconds']:>6} s  "
        + "  ".join(
            f"vs {name} {point[name]['rate']:.3f} "
            f"[{point[name]['low']:.3f}, {point[name]['high']:.3f}]"
            for name in evaluators
        )
    )


def _window(
    policy: Policy,
    env: HansaBatchedEnv,
    observations: dict,
    rng,
    horizon: int,
    gamma: float,
    advice: bool,
) -> tuple[tuple, dict]:
    """`horizon` steps of the continuing games: returns of the seat's reward minus the others'
    mean, discounted by `gamma` inside the window, minus their mean over the games at each step.
    Returns the mean gradient and the observations to continue from."""
    traces, rewards, alive = [], [], []
    for _ in range(horizon):
        actions, trace = policy.decide(
            observations["observation"],
            observations["action_mask"],
            rng,
            env.greedy_advice() if advice else None,
        )
        observations, _reward, terminated, truncated, infos = env.step(actions)
        everyone = infos["rewards"]  # (N, players): the win and the shaped PP of each
        traces.append(trace)
        rewards.append(everyone[:, 0] - everyone[:, 1:].mean(axis=1))
        alive.append(~(terminated | truncated))
    envs = env.num_envs
    returns = np.zeros(envs)
    total = [np.zeros_like(p) for p in policy.parameters()]
    for t in reversed(range(horizon)):
        returns = rewards[t] + gamma * returns * alive[t]
        advantage = returns - returns.mean()
        for into, part in zip(total, policy.gradient(traces[t], advantage), strict=True):
            into += part
    return tuple(g / (horizon * envs) for g in total), observations


def _whole_games(
    policy: Policy,
    env: HansaBatchedEnv,
    rng,
    seed: int,
    cap: int,
    margin: float,
    advice: bool,
) -> tuple[tuple, int, dict]:
    """One game in every slot of `env` (reward="margin"), from its start to its end or `cap`
    learner steps: every decision of a finished game is credited with the game's outcome (its
    win share plus `margin` × its final PP minus the others' mean) minus the mean outcome of the
    finished games. No discount and no window: a step is worth what its game brought, so
    playing slowly (pushing the others' PP past a window) pays nothing. Returns the mean
    gradient, the learner steps taken and figures of the games (the share won, the share of
    decisions that took the greedy policy's advice, the games finished)."""
    observations, _ = env.reset(seed=seed)
    n = env.num_envs
    playing = np.ones(n, np.bool_)  # still in the slot's first game
    finished = np.zeros(n, np.bool_)  # the first game ended (not cut)
    outcome, won = np.zeros(n), np.zeros(n)
    traces, rows_playing = [], []
    for _ in range(cap):
        actions, trace = policy.decide(
            observations["observation"],
            observations["action_mask"],
            rng,
            env.greedy_advice() if advice else None,
        )
        traces.append(trace)
        rows_playing.append(playing.copy())
        observations, _reward, terminated, truncated, infos = env.step(actions)
        for i in np.flatnonzero(terminated & playing):
            winners = env.final_state(i).winners()
            won[i] = 1.0 / len(winners) if 0 in winners else 0.0
            outcome[i] = won[i] + margin * infos["rewards"][i, 0]
            finished[i] = True
        playing &= ~(terminated | truncated)
        if not playing.any():
            break
    mean = outcome[finished].mean() if finished.any() else 0.0
    advantage = np.where(finished, outcome - mean, 0.0)
    total = [np.zeros_like(p) for p in policy.parameters()]
    counted = followed = 0
    for trace, alive in zip(traces, rows_playing, strict=True):
        weight = advantage * alive
        counted += int((alive & finished).sum())
        followed += int(trace[-1][trace[3]][alive & finished].sum())
        for into, part in zip(total, policy.gradient(trace, weight), strict=True):
            into += part
    stats = {
        "won": float(won[finished].mean()) if finished.any() else 0.0,
        "followed": followed / max(counted, 1),
        "finished": int(finished.sum()),
    }
    gradient = tuple(g / max(counted, 1) for g in total)
    return gradient, len(traces) * n, stats


def plot(result: dict, path: str) -> None:
    """The learning curve: win rate against random and greedy with 95% intervals."""
    figure = Figure(figsize=(7, 4))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    curve = result["curve"]
    steps = [point["steps"] / 1e6 for point in curve]
    for name, colour in (("random", "tab:blue"), ("greedy", "tab:red")):
        rate = [point[name]["rate"] for point in curve]
        low = [point[name]["low"] for point in curve]
        high = [point[name]["high"] for point in curve]
        others = result["players"] - 1
        axes.plot(steps, rate, marker="o", color=colour, label=f"vs {others} × {name}")
        axes.fill_between(steps, low, high, color=colour, alpha=0.2)
    axes.axhline(1 / result["players"], color="grey", linestyle=":", label="1 / players")
    axes.set_xlabel("learner steps (millions)")
    axes.set_ylabel("win rate of seat 0 (95% interval)")
    feature = ", greedy advice as a feature" if result.get("advice") else ""
    axes.set_title(
        f"{result['game']}: REINFORCE on the batched env{feature}, seed {result['seed']}",
        fontsize=10,
    )
    axes.set_ylim(0, 1)
    axes.legend()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    write_atomically(path, buffer.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hansa.rl.baseline", description=__doc__)
    parser.add_argument("--game", default="bigbox-hanseatic-45p")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--opponents",
        default="random",
        help="random, greedy (played in C), or phases of equal length: random,greedy",
    )
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--horizon", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=0.02)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--eval-every", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rank", type=int, default=16, help="the bilinear term's rank")
    parser.add_argument(
        "--whole-games",
        action="store_true",
        help="credit every decision with its game's outcome (--horizon: the steps' cap)",
    )
    parser.add_argument(
        "--margin",
        type=float,
        default=0.05,
        help="with --whole-games: an outcome's weight on the final PP margin",
    )
    parser.add_argument(
        "--no-advice",
        dest="advice",
        action="store_false",
        help="leave out the greedy policy's choice (a feature of every decision)",
    )
    parser.add_argument(
        "--log-training", action="store_true", help="log the training games won, per iteration"
    )
    parser.add_argument("--save", default=None, help="write the trained parameters (.npz) here")
    parser.add_argument("--plot", default=None, help="write the learning curve (PNG) here")
    parser.add_argument("--json", default=None, help="write the curve (JSON) here")
    args = parser.parse_args(argv)
    try:
        result = train(
            args.game,
            args.players,
            args.opponents,
            args.iterations,
            args.envs,
            args.horizon,
            args.learning_rate,
            eval_games=args.eval_games,
            eval_every=args.eval_every,
            seed=args.seed,
            rank=args.rank,
            advice=args.advice,
            whole_games=args.whole_games,
            margin=args.margin,
            log_training=args.log_training,
            save=args.save,
            log=functools.partial(print, flush=True),
        )
    except hansa.HansaError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.json:
        write_atomically(args.json, json.dumps(result, indent=1) + "\n")
    if args.plot:
        plot(result, args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
