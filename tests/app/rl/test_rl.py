"""The RL adapters (extra `rl`), checked by each library's own tools: PettingZoo's api_test and
seed_test, Gymnasium's check_env, gymnasium.make/make_vec, OpenSpiel's random simulation test,
MCTSBot, ISMCTSBot, evaluate_bots and rl_environment; bad input refused the way each library
expects; hidden information kept hidden; truncation the same everywhere; the docs example."""

from __future__ import annotations

import random
import re
import warnings
from pathlib import Path

import pytest
from hansa.play.greedy import GreedyAgent

import hansa

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")
pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install -e '.[rl]')")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium.error import InvalidAction, ResetNeeded  # noqa: E402

GAMES = sorted(hansa.available_games())
DOCS = Path(__file__).resolve().parents[3] / "docs" / "rl.md"
MISSIONS = "bigbox-hanseatic-3p-missions"


def most_players(name: str) -> int:
    return max(hansa.load_game(name).info.player_counts)


def first_legal(mask) -> int:
    return int(np.flatnonzero(mask)[0])


# ---- PettingZoo
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")  # a dict with the mask
@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_api_and_seed_tests_pass(name):
    from pettingzoo.test import api_test, seed_test

    from hansa.rl.pettingzoo import env

    players = most_players(name)
    api_test(env(name, players), num_cycles=25, verbose_progress=False)
    api_test(env(name, players, max_decisions=20), num_cycles=25, verbose_progress=False)
    seed_test(lambda **kwargs: env(name, players, **kwargs), num_cycles=25)


def test_pettingzoo_game_ends_with_final_pp_as_rewards():
    from hansa.rl.pettingzoo import env

    environment = env("bigbox-hanseatic-45p", 4)
    environment.reset(seed=3)
    agents = [GreedyAgent(p) for p in range(4)]
    totals = dict.fromkeys(environment.possible_agents, 0)
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, _info = environment.last()
        totals[agent] += reward
        if termination or truncation:
            environment.step(None)
            continue
        player = environment.possible_agents.index(agent)
        state = environment.hansa_state
        assert state.current_player() == player
        assert np.flatnonzero(observation["action_mask"]).tolist() == state.legal_actions()
        assert np.array_equal(observation["observation"], state.observation_tensor(player))
        environment.step(agents[player].step(state, state.legal_actions()))
    final = environment.hansa_state.returns()
    assert environment.hansa_state.is_terminal() and max(final) > 0
    assert [totals[a] for a in environment.possible_agents] == final


def test_pettingzoo_refuses_actions_that_are_not_action_ids():
    from hansa.rl.pettingzoo import env

    environment = env("bigbox-hanseatic-45p", 4)
    environment.reset(seed=1)
    before = environment.hansa_state.to_json()
    legal = environment.hansa_state.legal_actions()
    for bad in (legal[0] + 0.7, 1.0 * legal[0], str(legal[0]), True, None, -1, 10**6):
        with pytest.raises(hansa.HansaError, match="illegal action"):
            environment.step(bad)
        assert environment.hansa_state.to_json() == before and environment.decisions == 0
    environment.step(np.int64(legal[0]))  # an integer of another type is an action id
    assert environment.decisions == 1


def test_pettingzoo_step_and_last_after_the_game_follow_the_conventions():
    from hansa.rl.pettingzoo import env

    environment = env("bigbox-hanseatic-45p", 4, max_decisions=6)
    with pytest.raises(AssertionError, match="reset"):
        environment.step(0)
    environment.reset(seed=2)
    for _agent in environment.agent_iter():
        observation, _reward, termination, truncation, _info = environment.last()
        environment.step(
            None if termination or truncation else first_legal(observation["action_mask"])
        )
    assert environment.agents == []
    observation, reward, termination, truncation, info = environment.last()
    assert (reward, termination, truncation, info) == (0, False, True, {})
    assert not observation["action_mask"].any()
    environment.step(None)  # PettingZoo: a warning, nothing else
    environment.step(3)
    assert environment.decisions == 6


# ---- Gymnasium
@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_check_env_passes_on_every_built_game(name):
    from gymnasium.utils.env_checker import check_env

    import hansa.rl.gymnasium  # noqa: F401  (registers the ids)

    players = most_players(name)
    environment = gymnasium.make(f"hansa/{name}-v0", players=players, opponents="random")
    assert environment.unwrapped.game.num_players() == players
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # check_env's warnings fail the test too
        check_env(environment.unwrapped)
        if name == "bigbox-hanseatic-45p":  # the defaults (greedy opponents) and self-play
            check_env(gymnasium.make(f"hansa/{name}-v0").unwrapped)
            check_env(gymnasium.make(f"hansa/{name}-v0", seat=None, max_decisions=40).unwrapped)


def test_gymnasium_env_plays_one_seat_against_agents():
    from hansa.rl.gymnasium import HansaGymEnv

    environment = HansaGymEnv("bigbox-hanseatic-45p", 4, seat=2, opponents="greedy")
    observation, info = environment.reset(seed=5)
    again, _ = HansaGymEnv("bigbox-hanseatic-45p", 4, seat=2).reset(seed=5)
    assert np.array_equal(observation["observation"], again["observation"])
    agent = GreedyAgent(0)
    total, steps, terminated = 0.0, 0, False
    while not terminated:
        assert environment.observation_space.contains(observation)
        state = environment.state
        assert state.current_player() == 2
        assert np.flatnonzero(observation["action_mask"]).tolist() == state.legal_actions()
        assert np.array_equal(info["action_mask"], environment.action_masks())
        action = agent.step(state, state.legal_actions())
        observation, reward, terminated, truncated, info = environment.step(action)
        total += reward
        steps += 1
        assert not truncated
    assert total == environment.state.returns()[2] and steps > 20
    with pytest.raises(ResetNeeded, match="game is over"):
        environment.step(0)
    with pytest.raises(hansa.HansaError, match="seat must be 0 to 3"):
        HansaGymEnv("bigbox-hanseatic-45p", 4, seat=4)


def test_gymnasium_step_before_reset_needs_a_reset():
    from hansa.rl.gymnasium import HansaGymEnv, HansaVectorEnv

    with pytest.raises(ResetNeeded):
        HansaGymEnv("bigbox-hanseatic-45p", 4).step(0)
    with pytest.raises(ResetNeeded):
        gymnasium.make("hansa/bigbox-hanseatic-45p-v0", players=4).step(0)
    with pytest.raises(ResetNeeded):
        HansaVectorEnv("bigbox-hanseatic-45p", 2, 4).step([0, 0])


def test_gymnasium_illegal_actions_are_penalised_or_raise_and_change_nothing():
    from hansa.rl.gymnasium import HansaGymEnv

    environment = HansaGymEnv("bigbox-hanseatic-45p", 4, seat=None, illegal_penalty=-2.5)
    observation, _ = environment.reset(seed=0)
    before = environment.state.to_json()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    again, reward, terminated, truncated, info = environment.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-2.5, False, False, True)
    assert environment.state.to_json() == before
    assert np.array_equal(again["action_mask"], info["action_mask"])
    assert np.array_equal(again["observation"], observation["observation"])
    for bad in (1.7, "3", True, -1, environment.action_space.n):
        with pytest.raises(InvalidAction):
            environment.step(bad)
    strict = HansaGymEnv("bigbox-hanseatic-45p", 4, seat=None, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(hansa.HansaError, match="illegal action"):
        strict.step(illegal)
    assert strict.state.to_json() == before
    with pytest.raises(hansa.HansaError, match="illegal_action must be"):
        HansaGymEnv("bigbox-hanseatic-45p", 4, illegal_action="ignore")


def test_gymnasium_vector_env_steps_games_with_masks_and_same_step_autoreset():
    from gymnasium.vector import AutoresetMode

    import hansa.rl.gymnasium  # noqa: F401

    envs = gymnasium.make_vec(
        "hansa/bigbox-hanseatic-45p-v0", num_envs=3, players=4, seat=None, max_decisions=25
    )
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    observations, infos = envs.reset(seed=7)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        assert envs.observation_space.contains(observations)
        for i, state in enumerate(envs.unwrapped.states):
            player = int(infos["player"][i])
            assert state.current_player() == player
            assert np.flatnonzero(observations["action_mask"][i]).tolist() == state.legal_actions()
            assert np.array_equal(observations["observation"][i], state.observation_tensor(player))
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in observations["action_mask"]]
        observations, rewards, terminated, truncated, infos = envs.step(actions)
        assert not terminated.any() and (rewards == 0).all()  # cut at 25 decisions: truncated
        if truncated.any():
            ended += int(truncated.sum())
            for i in np.flatnonzero(truncated):
                assert infos["_final_obs"][i] and not infos["final_obs"][i]["action_mask"].any()
    assert ended == 6  # every game was cut twice (25 decisions each) and started again
    again = gymnasium.make_vec(
        "hansa/bigbox-hanseatic-45p-v0", num_envs=3, players=4, seat=None, max_decisions=25
    )
    first, _ = again.reset(seed=7)
    assert np.array_equal(first["observation"], envs.reset(seed=7)[0]["observation"])
    before = [state.to_json() for state in envs.unwrapped.states]
    legal = [first_legal(mask) for mask in first["action_mask"]]
    for wrong in ([0, 0], np.zeros((3, 1), np.int64), legal[:2] + [1.5], np.array(legal, float)):
        with pytest.raises(InvalidAction):
            envs.step(wrong)
    strict = hansa.rl.gymnasium.HansaVectorEnv(
        "bigbox-hanseatic-45p", 3, 4, seat=None, illegal_action="raise"
    )
    observations, _ = strict.reset(seed=7)
    illegal = int(np.flatnonzero(observations["action_mask"][2] == 0)[0])
    with pytest.raises(hansa.HansaError, match="illegal action"):
        strict.step(legal[:2] + [illegal])
    assert [state.to_json() for state in strict.states] == before  # no game moved


def test_gymnasium_vector_env_of_one_seat_matches_the_single_env():
    """Game i of a vector environment reset with seed s is the single environment reset with seed
    s + i (as Gymnasium's own vector environments seed their games), next games included."""
    from hansa.rl.gymnasium import HansaGymEnv, HansaVectorEnv

    vector = HansaVectorEnv("bigbox-hanseatic-45p", 2, 4, seat=1, opponents="random")
    observations, _ = vector.reset(seed=3)
    singles = [HansaGymEnv("bigbox-hanseatic-45p", 4, seat=1, opponents="random") for _ in "ab"]
    for i, single in enumerate(singles):
        alone, _ = single.reset(seed=3 + i)
        assert np.array_equal(alone["observation"], observations["observation"][i])
    for _ in range(40):
        actions = [first_legal(mask) for mask in observations["action_mask"]]
        observations, rewards, _terminated, _truncated, _infos = vector.step(actions)
        for i, single in enumerate(singles):
            alone, reward, *_ = single.step(actions[i])
            assert np.array_equal(alone["observation"], observations["observation"][i])
            assert np.array_equal(alone["action_mask"], observations["action_mask"][i])
            assert reward == rewards[i]


# ---- OpenSpiel
def _openspiel():
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed")
    from hansa.rl.openspiel import register

    return pyspiel, register()


def test_openspiel_games_are_declared_honestly_and_pass_the_random_simulation_test():
    pyspiel, names = _openspiel()
    assert sorted(names) == GAMES
    for name, short in names.items():
        game = pyspiel.load_game(short, {"max_decisions": 25})
        kind = game.get_type()
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        # no chance node and no draw during play: the setup is inside the state (docs/rl.md)
        assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
        assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM
        assert kind.provides_information_state_string
        assert kind.provides_information_state_tensor
        assert game.max_chance_outcomes() == 0
        assert game.num_players() == min(hansa.load_game(name).info.player_counts)
        pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
        state = game.new_initial_state()
        assert not state.is_chance_node()
        for _ in range(5):
            state.apply_action(state.legal_actions()[-1])
        copy = game.deserialize_state(state.serialize())
        assert str(copy) == str(state) and copy.history() == state.history()
        assert len(state.information_state_tensor(0)) == game.information_state_tensor_size()


def test_openspiel_errors_are_spiel_errors():
    pyspiel, _ = _openspiel()
    for params, message in (
        ({"players": 9}, "is for 4, 5 players, not 9"),
        ({"max_decisions": -1}, "max_decisions"),
        ({"rng_seed": -2}, "rng_seed"),
    ):
        with pytest.raises(pyspiel.SpielError, match=message):
            pyspiel.load_game("hansa_bigbox_hanseatic_45p", params)
    state = pyspiel.load_game("hansa_bigbox_hanseatic_45p", {"players": 4}).new_initial_state()
    before = str(state)
    for action in (1000000, -5, state.legal_actions()[-1] + 1):
        with pytest.raises(pyspiel.SpielError):
            state.apply_action(action)
        assert str(state) == before and state.history() == []
    with pytest.raises(pyspiel.SpielError):
        state.observation_string(7)
    with pytest.raises(pyspiel.SpielError):
        state.information_state_string(4)


def test_openspiel_chance_cannot_be_enumerated_and_seeds_are_private():
    """No chance node: each game's setup comes from 128 fresh random bits; `rng_seed` makes a
    run reproducible; no string a player reads names the seed."""
    pyspiel, _ = _openspiel()
    fresh = pyspiel.load_game("hansa_bigbox_hanseatic_45p", {"players": 4})
    texts = {str(fresh.new_initial_state()) for _ in range(8)}
    assert len(texts) == 8
    first = pyspiel.load_game("hansa_bigbox_hanseatic_45p", {"players": 4, "rng_seed": 5})
    second = pyspiel.load_game("hansa_bigbox_hanseatic_45p", {"players": 4, "rng_seed": 5})
    a, b = first.new_initial_state(), second.new_initial_state()
    assert str(a) == str(b)
    assert "seed" not in a.information_state_string(0) + a.observation_string(0)


def test_openspiel_information_state_is_a_real_one_and_resampling_keeps_it():
    """resample_from_infostate draws the hidden part again (others' cards, face-down order); the
    player's information state and observation stay the same, the whole state need not; the
    information state records what the position forgets (setup, decisions, face-down counts)."""
    pyspiel, _ = _openspiel()
    game = pyspiel.load_game("hansa_" + hansa.available_games()[MISSIONS], {"rng_seed": 3})
    state = game.new_initial_state()
    agents = [GreedyAgent(p) for p in range(3)]
    changed = 0
    while not state.is_terminal() and len(state.history()) < 120:
        player = state.current_player()
        text = state.information_state_string(player)
        assert text != state.observation_string(player)
        assert text.endswith(state.observation_string(player))
        for i in range(3):
            other = state.resample_from_infostate(
                player, pyspiel.UniformProbabilitySampler(i, 0, 1)
            )
            assert other.information_state_string(player) == text
            assert other.observation_tensor(player) == state.observation_tensor(player)
            assert other.legal_actions() == state.legal_actions()
            changed += str(other) != str(state)
        through_cpp = pyspiel.State.observation_tensor(state, player)  # pyspiel's own path
        assert state.observation_tensor(player) == list(through_cpp)
        hansa_state = state.hansa_state
        state.apply_action(agents[player].step(hansa_state, hansa_state.legal_actions()))
    assert changed > 100
    head = state.information_state_string(0).split("\n", 1)[0]
    assert '"face_down_after":[[' in head  # markers were drawn and their counts recorded


@pytest.mark.parametrize("name", GAMES)
def test_the_public_setup_in_information_states_is_every_players_and_hides_nothing(name):
    """The information state's setup line is the setup observation without the observer's own
    secrets: the same for every player, and the same for setups that differ only in hidden
    information (the face-down order, the other players' cards)."""
    game = hansa.load_game(name, most_players(name))
    state = game.new_initial_state(9)
    other = state.clone()
    other.resample_hidden(random.Random(1), 0)

    def public(s, p):
        seen = s.observation(p)
        del seen["own"], seen["observer"]
        return seen

    views = [public(s, p) for s in (state, other) for p in range(game.num_players())]
    assert all(view == views[0] for view in views)


def test_openspiel_algorithms_run_on_every_built_game():
    """MCTSBot through evaluate_bots, and rl_environment with a random agent, on a short game
    (`max_decisions`) of every built game."""
    pyspiel, names = _openspiel()
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import evaluate_bots, mcts, random_agent

    for index, short in enumerate(names.values()):
        game = pyspiel.load_game(short, {"max_decisions": 30, "rng_seed": index})
        rng = np.random.RandomState(index)
        evaluator = mcts.RandomRolloutEvaluator(1, rng)
        bots = [mcts.MCTSBot(game, 2.0, 4, evaluator, random_state=rng)]
        bots += [pyspiel.make_uniform_random_bot(p, index) for p in range(1, game.num_players())]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        assert returns == [0.0] * game.num_players()  # truncated: nobody has final PP
        environment = rl_environment.Environment(game, seed=index)
        agents = [
            random_agent.RandomAgent(p, game.num_distinct_actions())
            for p in range(game.num_players())
        ]
        step = environment.reset()
        decisions = 0
        while not step.last():
            player = step.observations["current_player"]
            step = environment.step([agents[player].step(step).action])
            decisions += 1
        assert decisions == 30 and environment.get_state.truncated


def test_openspiel_ismcts_plays_a_whole_missions_game():
    pyspiel, _ = _openspiel()
    from open_spiel.python.algorithms import ismcts

    from hansa.rl.openspiel import AgentBot, ScoreEvaluator

    game = pyspiel.load_game("hansa_" + hansa.available_games()[MISSIONS], {"rng_seed": 1})
    bots = [
        ismcts.ISMCTSBot(game, ScoreEvaluator(), 10.0, 4, random_state=np.random.RandomState(0)),
        AgentBot("greedy", 1),
        AgentBot("greedy", 2),
    ]
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        player = state.current_player()
        searched += player == 0
        state.apply_action(bots[player].step(state))
    assert not state.truncated and state.hansa_state.is_terminal()
    assert searched > 20 and max(state.returns()) > 0


# ---- every adapter
def test_truncation_means_the_same_in_every_adapter():
    """Cut after N decisions: truncated, not terminated, every reward 0, in PettingZoo,
    Gymnasium (single and vector) and OpenSpiel."""
    from hansa.rl.gymnasium import HansaGymEnv, HansaVectorEnv
    from hansa.rl.pettingzoo import env

    pyspiel, _ = _openspiel()
    cut = 12
    zoo = env("bigbox-hanseatic-45p", 4, max_decisions=cut)
    zoo.reset(seed=0)
    rewards = dict.fromkeys(zoo.possible_agents, 0)
    for agent in zoo.agent_iter():
        observation, reward, termination, truncation, _ = zoo.last()
        rewards[agent] += reward
        assert not termination
        zoo.step(None if truncation else first_legal(observation["action_mask"]))
    assert zoo.decisions == cut and set(rewards.values()) == {0}
    gym_env = HansaGymEnv("bigbox-hanseatic-45p", 4, seat=None, max_decisions=cut)
    observation, _ = gym_env.reset(seed=0)
    for step in range(cut):
        observation, reward, terminated, truncated, _ = gym_env.step(
            first_legal(observation["action_mask"])
        )
        assert reward == 0 and not terminated and truncated == (step == cut - 1)
    vector = HansaVectorEnv("bigbox-hanseatic-45p", 1, 4, seat=None, max_decisions=cut)
    observations, _ = vector.reset(seed=0)
    for step in range(cut):
        observations, rewards_v, terminated_v, truncated_v, _ = vector.step(
            [first_legal(observations["action_mask"][0])]
        )
        assert rewards_v[0] == 0 and not terminated_v[0] and truncated_v[0] == (step == cut - 1)
    game = pyspiel.load_game("hansa_bigbox_hanseatic_45p", {"players": 4, "max_decisions": cut})
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert len(state.history()) == cut and state.truncated
    assert state.returns() == [0.0] * 4 and not state.hansa_state.is_terminal()


def test_the_docs_examples_run():
    """The PettingZoo, Gymnasium and OpenSpiel examples of docs/rl.md, as written."""
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    ran = set()
    for block in blocks:
        for adapter in ("pettingzoo", "gymnasium", "openspiel"):
            if f"hansa.rl.{adapter}" in block:
                namespace: dict = {}
                exec(compile(block, str(DOCS), "exec"), namespace)
                ran.add(adapter)
                if adapter == "pettingzoo":
                    environment = namespace["environment"]
                    assert environment.decisions == 300 or environment.hansa_state.is_terminal()
                if adapter == "gymnasium" and "environment" in namespace:  # not the batched one
                    assert namespace["environment"].unwrapped.state is not None
    assert ran == {"pettingzoo", "gymnasium", "openspiel"}
