"""The baseline that learns (hansa/rl/baseline.py, issue #37 item 8): a few iterations of its
training on the batched env, its gradient against a numerical one, the interval, the plot."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("gymnasium")

# Builds a native game and plays whole evaluation games (about 10 s): not in the quick subset.
pytestmark = pytest.mark.slow

GAME = "bigbox-hanseatic-45p"


def test_wilson_interval_holds_the_rate_and_narrows_with_games():
    from hansa.rl.baseline import wilson

    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(20, 100)
    assert low < 0.2 < high and 0.13 < low and high < 0.29
    narrow = wilson(200, 1000)
    assert narrow[1] - narrow[0] < high - low
    assert wilson(0, 200)[0] == 0.0 and wilson(200, 200)[1] == pytest.approx(1.0)


def test_the_policy_gradient_is_the_gradient_of_the_log_probability():
    from hansa.rl.baseline import Policy
    from hansa.rl.batched import HansaBatchedEnv

    env = HansaBatchedEnv(GAME, 4, 4, seat=0, opponents="random")
    observations, _ = env.reset(seed=1)
    policy = Policy(env.game, observations["observation"].shape[1], rank=3)
    rng = np.random.default_rng(0)
    for parameters in policy.parameters():
        parameters[...] = rng.normal(0, 0.3, parameters.shape)
    tensor, masks = observations["observation"], observations["action_mask"]
    advice = env.greedy_advice()
    advice[3] = -1  # a row without advice
    assert all(masks[i, a] for i, a in enumerate(advice[:3]))
    actions, trace = policy.decide(tensor, masks, np.random.default_rng(2), advice)
    assert all(masks[i, a] for i, a in enumerate(actions))
    advantage = np.array([1.0, -0.5, 2.0, 0.25])
    gradients = policy.gradient(trace, advantage)

    def objective() -> float:
        features, hidden = policy.features(tensor), policy.scaled(tensor) @ policy.down
        total = 0.0
        for i, action in enumerate(actions):
            legal = np.flatnonzero(masks[i])
            logits = (
                policy.theta[legal]
                + features[i] @ policy.weights[policy.kind[legal]].T
                + policy.embed[legal] @ hidden[i]
                + (legal == advice[i]) * (policy.trust[policy.kind[legal]] @ features[i])
            )
            chosen = logits[list(legal).index(action)]
            total += advantage[i] * (chosen - np.log(np.exp(logits).sum()))
        return total

    for parameters, gradient in zip(policy.parameters(), gradients, strict=True):
        flat, grad = parameters.reshape(-1), gradient.reshape(-1)
        for index in [int(i) for i in np.flatnonzero(grad)[:5]] + [0]:
            saved = flat[index]
            flat[index] = saved + 1e-5
            up = objective()
            flat[index] = saved - 1e-5
            down = objective()
            flat[index] = saved
            assert grad[index] == pytest.approx((up - down) / 2e-5, abs=1e-5)


def test_a_short_training_run_writes_its_curve_and_plot(tmp_path):
    from hansa.rl.baseline import main

    curve, picture = tmp_path / "curve.json", tmp_path / "curve.png"
    code = main(
        [
            "--iterations", "2", "--envs", "8", "--horizon", "8", "--eval-games", "4",
            "--eval-every", "2", "--seed", "3", "--json", str(curve), "--plot", str(picture),
            "--opponents", "random,greedy", "--rank", "4",
        ]
    )  # fmt: skip
    assert code == 0
    result = json.loads(curve.read_text())
    assert [point["iteration"] for point in result["curve"]] == [0, 2]
    assert result["curve"][1]["steps"] == 2 * 8 * 8 and result["seed"] == 3
    assert result["opponents"] == "random,greedy" and result["rank"] == 4
    for point in result["curve"]:
        for name in ("random", "greedy"):
            figures = point[name]
            assert figures["games"] == 4
            assert figures["low"] <= figures["rate"] <= figures["high"]
    assert picture.read_bytes().startswith(b"\x89PNG")
    assert main(["--game", "no-such-game", "--iterations", "0"]) == 1


def test_the_greedy_advice_is_legal_and_asking_changes_no_game():
    from hansa.rl.batched import HansaBatchedEnv

    asking = HansaBatchedEnv(GAME, 6, 4, seat=0, opponents="greedy")
    silent = HansaBatchedEnv(GAME, 6, 4, seat=0, opponents="greedy")
    with pytest.raises(Exception, match="reset"):
        asking.greedy_advice()
    seen, _ = asking.reset(seed=5)
    same, _ = silent.reset(seed=5)
    ended = 0
    for _ in range(300):
        advice = asking.greedy_advice()
        masks = seen["action_mask"]
        assert all(masks[i, a] for i, a in enumerate(advice))
        np.testing.assert_array_equal(seen["observation"], same["observation"])
        seen, _r, terminated, _t, _i = asking.step(advice)
        same, _r, other, _t, _i = silent.step(advice)
        np.testing.assert_array_equal(terminated, other)
        ended += int(terminated.sum())
    assert ended > 0  # the games ran to their ends and the next games began alike
    selfplay = HansaBatchedEnv(GAME, 3, 4, seat=None)  # advice for whoever decides
    rows, _ = selfplay.reset(seed=1)
    for _ in range(40):
        advice = selfplay.greedy_advice()
        assert all(rows["action_mask"][i, a] for i, a in enumerate(advice))
        rows, *_ = selfplay.step(advice)


def test_taking_the_advice_wins_like_a_greedy_player_and_ignoring_it_does_not():
    from hansa.rl.baseline import wilson
    from hansa.rl.batched import HansaBatchedEnv

    def win_rate(follow: bool) -> tuple[float, int]:
        env = HansaBatchedEnv(GAME, 40, 4, seat=0, opponents="greedy", copy=False)
        observations, _ = env.reset(seed=11)
        rng = np.random.default_rng(0)
        wins = games = 0.0
        while games < 120:
            if follow:
                actions = env.greedy_advice()
            else:
                masks = observations["action_mask"]
                actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
            observations, _r, terminated, _t, _i = env.step(actions)
            for i in np.flatnonzero(terminated):
                winners = env.final_state(i).winners()
                games += 1
                wins += 1.0 / len(winners) if 0 in winners else 0.0
        return wins, int(games)

    low, high = wilson(*win_rate(True))
    assert 0.1 < low and high < 0.45  # one greedy player among four: about a quarter
    assert win_rate(False)[0] <= 2


def test_whole_game_credit_teaches_it_to_take_the_greedy_advice_more():
    """A dozen short iterations against greedy players: the share of decisions that take the
    advice rises (a gradient of the wrong sign, or advice the learner cannot see, fails)."""
    from hansa.rl.baseline import Adam, Policy, _whole_games
    from hansa.rl.batched import HansaBatchedEnv

    env = HansaBatchedEnv(GAME, 32, 4, seat=0, opponents="greedy", reward="margin", copy=False)
    size = env.single_observation_space["observation"].shape[0]
    policy = Policy(env.game, size, rank=0, seed=0)
    optimiser = Adam(policy.parameters(), 0.3)
    rng = np.random.default_rng(0)
    taken = []
    for iteration in range(12):
        gradient, steps, stats = _whole_games(policy, env, rng, iteration, 400, 0.05, True)
        assert stats["finished"] == 32 and steps % 32 == 0
        optimiser.ascend(gradient)
        taken.append(stats["followed"])
    assert np.mean(taken[-3:]) > taken[0] + 0.08


def test_whole_games_training_saves_parameters_that_load(tmp_path):
    from hansa.rl.baseline import PARAMETER_NAMES, load_policy, main
    from hansa.rl.batched import HansaBatchedEnv

    curve, saved = tmp_path / "curve.json", tmp_path / "policy.npz"
    code = main(
        [
            "--iterations", "1", "--envs", "8", "--horizon", "300", "--eval-games", "4",
            "--eval-every", "1", "--seed", "2", "--json", str(curve), "--save", str(saved),
            "--opponents", "greedy", "--whole-games", "--rank", "0",
        ]
    )  # fmt: skip
    assert code == 0
    result = json.loads(curve.read_text())
    assert result["whole_games"] and result["advice"] and result["margin"] == 0.05
    assert result["curve"][1]["steps"] > 0
    env = HansaBatchedEnv(GAME, 2, 4, seat=0, opponents="greedy")
    env.reset(seed=0)
    policy = load_policy(env.game, env.single_observation_space["observation"].shape[0], saved)
    with np.load(saved) as stored:
        for name, parameters in zip(PARAMETER_NAMES, policy.parameters(), strict=True):
            np.testing.assert_array_equal(stored[name], parameters)
    assert np.abs(policy.trust).sum() > 0  # one Adam step moved the trust in the advice

    # the saved policy plays a whole game on the Python rules against Python greedy agents
    from hansa.play.simulate import make_agent, play_game

    import hansa

    python_game = hansa.load_game(GAME, 4)
    agents = [make_agent(f"hansa.rl.baseline:LearnedAgent:path={saved}", 5)]
    agents += [make_agent("greedy", seat) for seat in (1, 2, 3)]
    assert agents[0].advice and agents[0].game_name == GAME
    record, final = play_game(python_game, agents, seed=4)
    assert final.is_terminal() and record.decisions > 50
    with pytest.raises(hansa.HansaError, match="not a policy"):
        make_agent(f"hansa.rl.baseline:LearnedAgent:path={curve}", 0)
