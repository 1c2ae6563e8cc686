"""The RL adapters (extra `rl`): PettingZoo AEC API and seed tests, OpenSpiel's random simulation
test with serialization, the Gymnasium single-seat environment, and the docs/rl.md example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hansa.play.greedy import GreedyAgent

import hansa

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")
pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install -e '.[rl]')")

import numpy as np  # noqa: E402

GAMES = sorted(hansa.available_games())
DOCS = Path(__file__).resolve().parent.parent / "docs" / "rl.md"


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_api_and_seed_tests_pass(name):
    from pettingzoo.test import api_test, seed_test

    from hansa.rl.pettingzoo import env

    players = max(hansa.load_game(name).info.player_counts)
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
        state = environment.state
        assert state.current_player() == player
        assert np.flatnonzero(observation["action_mask"]).tolist() == state.legal_actions()
        environment.step(agents[player].step(state, state.legal_actions()))
    final = environment.state.returns()
    assert environment.state.is_terminal() and max(final) > 0
    assert [totals[a] for a in environment.possible_agents] == final


def test_openspiel_games_pass_the_random_simulation_test_with_serialization():
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed")
    from hansa.rl.openspiel import register

    names = register()
    assert sorted(names) == GAMES
    for name, short in names.items():
        game = pyspiel.load_game(short, {"max_decisions": 25})
        kind = game.get_type()
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM
        assert game.num_players() == min(hansa.load_game(name).info.player_counts)
        pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_openspiel_state_wraps_the_hansa_state_and_hides_the_chance_outcome():
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed")
    from hansa.rl.openspiel import register

    register()
    game = pyspiel.load_game("hansa_bigbox_hanseatic_45p", {"players": 4})
    state = game.new_initial_state()
    assert state.is_chance_node()
    state.apply_action(7)
    reference = hansa.load_game("bigbox-hanseatic-45p", 4).new_initial_state(7)
    assert str(state) == reference.to_json()
    assert state.legal_actions() == reference.legal_actions()
    action = state.legal_actions()[0]
    state.apply_action(action)
    reference.apply_action(action)
    for player in range(4):
        text = state.information_state_string(player)
        assert text.startswith(f"[{action}]\n")  # the players' actions, not the setup outcome
        assert text.endswith(reference.information_state_string(player))
        assert state.observation_string(player) == reference.information_state_string(player)
        assert np.array_equal(
            np.asarray(state.observation_tensor(player), np.float32),
            reference.observation_tensor(player),
        )
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.history() == state.history()


def test_gymnasium_env_plays_one_seat_against_agents():
    from hansa.rl.gymnasium import HansaGymEnv

    environment = HansaGymEnv("bigbox-hanseatic-45p", 4, seat=2, opponents="greedy")
    observation, _info = environment.reset(seed=5)
    again, _ = HansaGymEnv("bigbox-hanseatic-45p", 4, seat=2).reset(seed=5)
    assert np.array_equal(observation["observation"], again["observation"])
    agent = GreedyAgent(0)
    total, steps, terminated = 0.0, 0, False
    while not terminated:
        assert environment.observation_space.contains(observation)
        state = environment.state
        assert state.current_player() == 2
        assert np.flatnonzero(observation["action_mask"]).tolist() == state.legal_actions()
        action = agent.step(state, state.legal_actions())
        observation, reward, terminated, truncated, _ = environment.step(action)
        total += reward
        steps += 1
        assert not truncated
    assert total == environment.state.returns()[2] and steps > 20
    with pytest.raises(hansa.HansaError, match="seat must be 0 to 3"):
        HansaGymEnv("bigbox-hanseatic-45p", 4, seat=4)


def test_the_docs_example_runs():
    """The PettingZoo example of docs/rl.md, as written."""
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    example = next(b for b in blocks if "hansa.rl.pettingzoo" in b)
    namespace: dict = {}
    exec(compile(example, str(DOCS), "exec"), namespace)
    environment = namespace["environment"]
    assert environment.decisions == 300 or environment.state.is_terminal()
