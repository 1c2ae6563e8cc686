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
    actions, trace = policy.decide(tensor, masks, np.random.default_rng(2))
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
