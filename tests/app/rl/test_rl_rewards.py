"""Reward choices (`reward=`, `shaped=`) on every adapter: the terminal outcomes of docs/rl.md,
their sums over a game, shaping that pays the score-track PP as they are gained, no outcome for a
truncated game, and one clear error for a bad choice."""

from __future__ import annotations

import random

import pytest

import hansa

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")
pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install -e '.[rl]')")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

import numpy as np  # noqa: E402

from hansa.rl.rewards import REWARD_KINDS, RewardTracker, check_reward, outcome  # noqa: E402

GAME = "bigbox-hanseatic-45p"


def ended_game(seed: int, players: int = 4):
    state = hansa.load_game(GAME, players).new_initial_state(seed)
    state.random_steps(10**7, seed)
    assert state.is_terminal()
    return state


class Ended:
    """A stand-in for an ended state with chosen final PP and winners."""

    def __init__(self, final, winners) -> None:
        self.final, self.won = final, winners

    def returns(self):
        return self.final

    def winners(self):
        return self.won


def test_outcomes_follow_the_docs():
    state = Ended([30, 20, 30, 10], [2])  # player 2 wins the tie on the tie-break chain
    assert outcome(state, "pp") == [30.0, 20.0, 30.0, 10.0]
    assert outcome(state, "win") == [0.0, 0.0, 1.0, 0.0]
    assert outcome(state, "rank") == pytest.approx([1 / 3, -1 / 3, 1.0, -1.0])
    assert outcome(state, "margin") == pytest.approx([10.0, -10 / 3, 10.0, -50 / 3])
    shared = Ended([30, 20, 30, 20], [0, 2])  # a shared victory, and a tie for third
    assert outcome(shared, "win") == [0.5, 0.0, 0.5, 0.0]
    assert outcome(shared, "rank") == pytest.approx([2 / 3, -2 / 3, 2 / 3, -2 / 3])


@pytest.mark.parametrize("seed", range(4))
def test_outcomes_of_real_games_sum_as_the_docs_say(seed):
    state = ended_game(seed)
    assert sum(outcome(state, "win")) == pytest.approx(1.0)
    assert sum(outcome(state, "rank")) == pytest.approx(0.0)
    assert sum(outcome(state, "margin")) == pytest.approx(0.0)
    best = max(range(4), key=lambda p: outcome(state, "rank")[p])
    assert best in state.winners() and outcome(state, "win")[best] > 0


def test_bad_reward_choices_are_one_clear_error():
    for kind, shaped, message in (
        ("money", 0.0, "reward must be one of 'pp', 'win', 'rank', 'margin', got 'money'"),
        (None, 0.0, "reward must be one of"),
        ("pp", -1.0, "shaped must be True, False or a weight of at least 0"),
        ("pp", "yes", "shaped must be"),
        ("pp", float("nan"), "shaped must be"),
    ):
        with pytest.raises(hansa.HansaError, match=message):
            check_reward(kind, shaped)
    from hansa.rl.gymnasium import HansaGymEnv, HansaVectorEnv
    from hansa.rl.pettingzoo import env

    with pytest.raises(hansa.HansaError, match="reward must be one of"):
        HansaGymEnv(GAME, 4, reward="points")
    with pytest.raises(hansa.HansaError, match="reward must be one of"):
        HansaVectorEnv(GAME, 2, 4, reward="points")
    with pytest.raises(hansa.HansaError, match="shaped must be"):
        env(GAME, 4, shaped=-2)
    assert check_reward("win", True) == ("win", 1.0)


def _zoo_totals(reward: str, shaped: float, seed: int = 3, cut: int | None = None):
    from hansa.rl.pettingzoo import env

    environment = env(GAME, 4, reward=reward, shaped=shaped, max_decisions=cut)
    environment.reset(seed=seed)
    rng = random.Random(seed)
    totals = dict.fromkeys(environment.possible_agents, 0.0)
    paid_during = 0.0
    for agent in environment.agent_iter():
        observation, value, termination, truncation, _ = environment.last()
        totals[agent] += value
        if not (termination or truncation):
            paid_during += abs(value)
        action = None
        if not (termination or truncation):
            action = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
        environment.step(action)
    return environment, [totals[a] for a in environment.possible_agents], paid_during


@pytest.mark.parametrize("reward", REWARD_KINDS)
def test_pettingzoo_rewards_sum_to_the_outcome(reward):
    environment, totals, paid_during = _zoo_totals(reward, 0.0)
    state = environment.hansa_state
    assert state.is_terminal() and paid_during == 0.0  # terminal only
    assert totals == pytest.approx(outcome(state, reward))


def test_shaped_rewards_pay_track_pp_as_gained_and_pp_still_sums_to_final_pp():
    environment, totals, paid_during = _zoo_totals("pp", 1.0)
    state = environment.hansa_state
    assert paid_during > 0  # paid while the game ran
    assert totals == pytest.approx([float(pp) for pp in state.returns()])
    environment, totals, _ = _zoo_totals("win", 0.5)
    state = environment.hansa_state
    expected = [o + 0.5 * t for o, t in zip(outcome(state, "win"), state.track_pp(), strict=True)]
    assert totals == pytest.approx(expected)


def test_a_truncated_game_pays_no_outcome_but_pays_shaping():
    environment, totals, _ = _zoo_totals("win", 0.0, cut=200)
    assert not environment.hansa_state.is_terminal() and totals == [0.0] * 4
    environment, totals, _ = _zoo_totals("rank", 1.0, cut=400)
    state = environment.hansa_state
    assert not state.is_terminal()
    assert totals == pytest.approx([float(pp) for pp in state.track_pp()])


@pytest.mark.parametrize("reward", REWARD_KINDS)
def test_gymnasium_seat_and_self_play_rewards_sum_to_the_outcome(reward):
    from hansa.rl.gymnasium import HansaGymEnv

    for seat, shaped in ((1, 0.0), (None, 1.0)):
        environment = HansaGymEnv(GAME, 4, seat=seat, opponents="random", reward=reward)
        if shaped:
            environment = HansaGymEnv(GAME, 4, seat=None, reward=reward, shaped=shaped)
        observation, info = environment.reset(seed=11)
        rng = np.random.default_rng(0)
        totals = [0.0] * 4
        terminated = False
        while not terminated:
            player = info["player"]
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            observation, value, terminated, truncated, info = environment.step(action)
            assert not truncated
            if seat is None:
                everyone = info.get("rewards", [0.0] * 4)
                assert everyone[player] == value
                totals = [a + b for a, b in zip(totals, everyone, strict=True)]
            else:
                totals[seat] += value
        state = environment.state
        final = outcome(state, reward)
        if shaped and reward != "pp":
            final = [f + t for f, t in zip(final, state.track_pp(), strict=True)]
        if seat is None:
            assert totals == pytest.approx(final)
        else:
            assert totals[seat] == pytest.approx(final[seat])


def test_gymnasium_make_and_make_vec_take_the_reward():
    import gymnasium

    import hansa.rl.gymnasium  # noqa: F401

    single = gymnasium.make(f"hansa/{GAME}-v0", players=4, reward="win", opponents="random")
    assert single.unwrapped._settings.reward == "win"
    vector = gymnasium.make_vec(
        f"hansa/{GAME}-v0", num_envs=2, players=4, seat=None, reward="margin", shaped=1.0
    )
    observations, _ = vector.reset(seed=1)
    rng = np.random.default_rng(1)
    paid = 0.0
    assert vector.unwrapped._settings.shaped == 1.0
    for _ in range(20000):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in observations["action_mask"]]
        observations, rewards, terminated, _truncated, _ = vector.step(actions)
        paid += float(np.abs(rewards).sum())
        if paid:
            break
    assert paid > 0 and not terminated.any()  # shaped rewards arrive while the games run


def test_openspiel_reward_parameters():
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed")
    from hansa.rl.openspiel import register

    register()
    for reward in REWARD_KINDS:
        game = pyspiel.load_game(
            "hansa_bigbox_hanseatic_45p", {"players": 4, "rng_seed": 2, "reward": reward}
        )
        assert game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
        state = game.new_initial_state()
        rng = random.Random(2)
        while not state.is_terminal():
            assert state.returns() == [0.0] * 4
            state.apply_action(rng.choice(state.legal_actions()))
        expected = outcome(state.hansa_state, reward)
        assert state.returns() == pytest.approx(expected) == state.rewards()
        assert game.min_utility() <= min(expected) <= max(expected) <= game.max_utility()
    shaped = pyspiel.load_game(
        "hansa_bigbox_hanseatic_45p", {"players": 4, "rng_seed": 2, "shaped": 1.0}
    )
    assert shaped.get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS
    state = shaped.new_initial_state()
    rng = random.Random(2)
    summed = [0.0] * 4
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        summed = [a + b for a, b in zip(summed, state.rewards(), strict=True)]
        if not state.is_terminal():
            assert state.returns() == pytest.approx(state.hansa_state.track_pp())
    assert summed == pytest.approx(state.returns())
    assert state.returns() == pytest.approx(state.hansa_state.returns())
    for params, message in (
        ({"reward": "gold"}, "parameter reward must be one of"),
        ({"shaped": -0.5}, "shaped must be"),
    ):
        with pytest.raises(pyspiel.SpielError, match=message):
            pyspiel.load_game("hansa_bigbox_hanseatic_45p", params)


def test_the_tracker_pays_nothing_without_shaping_until_the_end():
    state = hansa.load_game(GAME, 4).new_initial_state(5)
    tracker = RewardTracker("margin")
    tracker.reset(state)
    for _ in range(60):
        state.apply_action(state.legal_actions()[-1])
        assert tracker.step(state) is None
    state = ended_game(5)
    assert tracker.step(state) == outcome(state, "margin")


@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")  # a dict with the mask
def test_the_libraries_checkers_pass_with_reward_choices():
    import warnings

    import gymnasium
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test

    import hansa.rl.gymnasium  # noqa: F401
    from hansa.rl.pettingzoo import env

    api_test(env(GAME, 4, reward="rank", shaped=1.0), num_cycles=25, verbose_progress=False)
    api_test(env(GAME, 4, reward="win", max_decisions=30), num_cycles=25, verbose_progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kwargs in (
            {"opponents": "random", "reward": "margin", "shaped": 0.5},
            {"seat": None, "reward": "win", "max_decisions": 40},
        ):  # made by gymnasium.make: check_env also tries the other render modes then
            check_env(gymnasium.make(f"hansa/{GAME}-v0", players=4, **kwargs).unwrapped)
