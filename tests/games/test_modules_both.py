"""Both Hanseatic modules together (Big Box rule book p. 11: the mission cards and Emperor's
Favour "may be added individually or together"): games `bigbox-hanseatic-3p-missions-favour` and
`bigbox-hanseatic-45p-missions-favour` deal the secret cards and show the tiles, score category M,
and play to their end."""

from __future__ import annotations

import pytest
from hansa.compiler.project import load_project
from hansa.compiler.rules.resolve import resolve
from hansa.play.greedy import GreedyAgent

import hansa

CASES = [("bigbox-hanseatic-3p-missions-favour", 3), ("bigbox-hanseatic-45p-missions-favour", 4)]


def test_the_combined_rule_set_is_the_two_modules():
    """The same tiles as the favour module and the same cards as the missions module."""
    project = load_project(["spec"])
    both = resolve("bigbox_missions_favour", project.rulesets)
    favour = resolve("bigbox_favour", project.rulesets)
    missions = resolve("bigbox_missions", project.rulesets)
    tiles = sorted(r.text() for r in both.hook_rules if r.hook == "favour")
    assert tiles == sorted(r.text() for r in favour.hook_rules if r.hook == "favour")
    assert len(tiles) == 6
    assert both.scoring == missions.scoring


@pytest.mark.parametrize("name, players", CASES)
def test_cards_tiles_and_the_end(name, players):
    game = hansa.load_game(name, players=players)
    state = game.new_initial_state(seed=5)
    assert len(state.deal()["missions"]) == players
    assert len(state.favour_tiles_face_up()) == players
    for p in range(players):  # each seat sees its own card only
        assert state.observation(p)["own"]["mission"] == state.deal()["missions"][p]
    taken = 0
    for seed in range(4):
        state = game.new_initial_state(seed)
        agents = [GreedyAgent(seed * 7 + p) for p in range(players)]
        for _ in range(4000):
            if state.is_terminal():
                break
            action = agents[state.current_player()].step(state, state.legal_actions())
            taken += state.action_to_string(action).startswith("take favour")
            state.apply_action(action)
        assert state.is_terminal()
        assert all(list(b) == ["A", "B", "C", "D", "E", "F", "M"] for b in state.score_breakdown())
    assert taken >= 1
