"""The mcts agent: deterministic for a seed, reads the position only through public methods,
never changes the state it is asked about; agent names with key=value parameters in play,
simulate and diff --simulate."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hansa.runtime.errors import HansaError
from hansa.runtime.greedy import GreedyAgent
from hansa.runtime.mcts import MCTSAgent, rewards_of
from hansa.runtime.simulate import make_agent, parse_agents, play_game
from play_support import run_cli

import hansa

CHEAP = "mcts:iterations=4,depth=2"


def short_game(spec: str, seed: int):
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    agents = [make_agent(spec, seed)] + [GreedyAgent(p) for p in (1, 2, 3)]
    return play_game(game, agents, seed, 200, record_moves=True)


def test_same_seed_same_game_and_another_seed_another():
    first, _ = short_game(CHEAP, 1)
    again, _ = short_game(CHEAP, 1)
    other, _ = short_game(CHEAP + ",seed=99", 1)
    assert first.moves == again.moves
    assert first.moves != other.moves


def test_step_leaves_the_state_unchanged_and_returns_a_legal_action():
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(2)
    before = state.to_json()
    for rollout in ("greedy", "random"):
        agent = MCTSAgent(seed=3, iterations=12, depth=3, rollout=rollout)
        action = agent.step(state, state.legal_actions())
        assert action in state.legal_actions()
        assert state.to_json() == before
    timed = MCTSAgent(seed=3, seconds=0.05, depth=2)
    assert timed.step(state, state.legal_actions()) in state.legal_actions()
    assert timed.decisions == 1 and timed.search_seconds >= 0.05


def test_rewards_favour_the_leader_and_the_winner():
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(2)
    assert rewards_of(state) == [0.0] * 4  # nobody leads at the start
    agents = [GreedyAgent(p) for p in range(4)]
    while not state.is_terminal():
        state.apply_action(agents[state.current_player()].step(state, state.legal_actions()))
    rewards = rewards_of(state)
    for winner in state.winners():
        assert rewards[winner] == max(rewards) > 1.0


def test_mcts_reads_only_public_methods_of_the_state():
    source = Path(hansa.runtime.mcts.__file__).read_text(encoding="utf-8")
    state_class = type(hansa.load_game("bigbox-hanseatic-45p", players=4).new_initial_state(0))
    used = {
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in ("state", "root_state")
    }
    assert "resample_hidden" in used and "clone" in used
    for name in used:
        assert not name.startswith("_") and callable(getattr(state_class, name, None)), name


def test_agent_parameters_are_parsed_generically():
    agent = make_agent("mcts:iterations=7,rollout=random,depth=0,c=1.5", 5)
    assert (agent.iterations, agent.rollout, agent.depth, agent.c) == (7, "random", 0, 1.5)
    assert parse_agents("mcts:iterations=7,depth=3,greedy,random,greedy", 4) == [
        "mcts:iterations=7,depth=3",
        "greedy",
        "random",
        "greedy",
    ]
    assert parse_agents("mcts:iterations=7,depth=3", 3) == ["mcts:iterations=7,depth=3"] * 3
    with pytest.raises(HansaError, match="unknown parameter 'iteration'"):
        make_agent("mcts:iteration=7", 0)
    with pytest.raises(HansaError, match="rollout must be greedy or random"):
        make_agent("mcts:rollout=smart", 0)
    with pytest.raises(HansaError, match="expected key=value"):
        make_agent("mcts:iterations=3,=4", 0)
    with pytest.raises(HansaError, match="unknown parameter 'depth'"):
        make_agent("greedy:depth=3", 0)


def test_play_simulate_and_diff_accept_mcts(capsys):
    agents = f"{CHEAP},greedy,greedy,greedy"
    code, out, _err = run_cli(
        capsys, "play", "bigbox-hanseatic-45p", "--players", "4", "--agents", agents
    )
    assert code == 0 and "mcts:iterations=4,depth=2" in out
    code, out, _err = run_cli(
        capsys, "simulate", "bigbox-hanseatic-45p", "-n", "2", "--players", "4", "--agents",
        agents, "--jobs", "1",
    )  # fmt: skip
    assert code == 0 and "agents mcts:iterations=4,depth=2, greedy" in out
    code, _out, _err = run_cli(
        capsys, "diff", "bigbox_2021", "spec/house/short_game.hansa", "--simulate", "1",
        "--players", "4", "--agents", CHEAP, "--jobs", "1",
    )  # fmt: skip
    assert code in (0, 1)


def test_a_parameter_of_the_wrong_type_is_one_clear_error():
    """`--agents mcts:iterations=x` names the parameter and what it must be (no TypeError)."""
    import pytest
    from hansa.runtime.errors import HansaError
    from hansa.runtime.simulate import make_agent

    with pytest.raises(HansaError, match="iterations must be a whole number, not 'x'"):
        make_agent("mcts:iterations=x", 1)
    with pytest.raises(HansaError, match="depth must be a whole number, not 1.5"):
        make_agent("mcts:depth=1.5", 1)
