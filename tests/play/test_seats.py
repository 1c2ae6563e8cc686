"""Seats rotate when the agents differ (`--seats fixed` keeps the order given); results are
reported by agent and by seat. `strong` names the recommended search settings."""

from __future__ import annotations

import json

from hansa.play.mcts import MCTSAgent
from hansa.play.simulate import STRONG_SETTINGS, make_agent, seated, simulate
from play_support import run_cli, without_cost

import hansa

AGENTS = ["random", "greedy", "greedy", "greedy"]


def test_each_agent_plays_each_seat_equally_often():
    games = [seated(["a", "b", "c"], i) for i in range(6)]
    for seat in range(3):
        column = [names[seat] for names in games]
        assert sorted(column) == ["a", "a", "b", "b", "c", "c"]
    assert seated(["a", "b", "c"], 0) == ["a", "b", "c"]


def test_simulate_rotates_differing_agents_and_reports_by_agent():
    result = simulate("bigbox-hanseatic-45p", 4, players=4, agents=AGENTS, jobs=1)
    doc = result.to_json()
    assert doc["seats"] == "rotate"
    assert [r["agents"].index("random") for r in result.records] == [0, 1, 2, 3]
    by_agent = doc["by_agent"]
    assert by_agent["random"]["seats"] == 4 and by_agent["greedy"]["seats"] == 12
    # the random agent loses every game to the beginners, whatever its seat
    assert by_agent["random"]["win_rate"]["mean"] == 0.0
    assert abs(sum(r["win_rate"]["mean"] * r["seats"] for r in by_agent.values()) / 4 - 1) < 1e-3
    two = simulate("bigbox-hanseatic-45p", 4, players=4, agents=AGENTS, jobs=2).to_json()
    assert without_cost(doc) == without_cost(two)  # the CPU and wall seconds vary by run
    fixed = simulate("bigbox-hanseatic-45p", 4, players=4, agents=AGENTS, jobs=1, seats="fixed")
    assert fixed.to_json()["seats"] == "fixed"
    assert all(r["agents"] == AGENTS for r in fixed.records)
    assert fixed.to_json()["win_rate_by_seat"][0]["mean"] == 0.0  # random stays in seat 0
    same = simulate("bigbox-hanseatic-45p", 2, players=4, agents="greedy", jobs=1)
    assert same.to_json()["seats"] == "fixed"  # nothing to rotate


def test_seats_on_the_command_line(capsys):
    base = ["simulate", "bigbox-hanseatic-45p", "-n", "2", "--players", "4", "-j", "1"]
    code, out, err = run_cli(capsys, *base, "--agents", ",".join(AGENTS), "--json")
    assert code == 0, err
    assert json.loads(out)["seats"] == "rotate"
    code, out, err = run_cli(capsys, *base, "--agents", ",".join(AGENTS), "--seats", "fixed")
    assert code == 0 and "win rate by agent" in out and "seats rotate" not in out
    code, out, err = run_cli(
        capsys, "diff", "bigbox-hanseatic-45p", "short-hanseatic-45p", "--seats", "fixed"
    )
    assert code == 2 and "--seats only apply with --simulate N" in err


def test_strong_is_the_recommended_search_and_is_deterministic_per_seed():
    agent = make_agent("strong", 3)
    assert isinstance(agent, MCTSAgent)
    assert (agent.iterations, agent.turns) == (
        STRONG_SETTINGS["iterations"],
        STRONG_SETTINGS["turns"],
    )
    assert make_agent("strong:iterations=5", 3).iterations == 5
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    state = game.new_initial_state(2)
    for _ in range(3):  # a few greedy moves in
        state.apply_action(make_agent("greedy", 1).step(state, state.legal_actions()))
    choices = {
        make_agent("strong:iterations=6", 9).step(state, state.legal_actions()) for _ in range(2)
    }
    assert len(choices) == 1
