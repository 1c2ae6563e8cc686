"""The greedy agent never builds the same route for nothing forever: in the 2-player variant two
greedy players once created routes whose step 3 offered neither a post nor an ability, turn after
turn, by the pawn, and the game never ended (seed 23)."""

from __future__ import annotations

from hansa.play.simulate import make_agents, play_game

import hansa


def test_two_greedy_players_end_the_2_player_game_that_once_stalled():
    game = hansa.load_game("original-hanseatic-2p", players=2)
    record, state = play_game(game, make_agents(["greedy", "greedy"], 23), 23, max_decisions=3000)
    assert state.is_terminal(), f"stopped after {record.decisions} decisions"
    assert record.end_trigger != "unfinished"


def test_greedy_ends_every_2_player_game_of_a_short_study():
    game = hansa.load_game("original-hanseatic-2p", players=2)
    for seed in range(20, 30):
        record, state = play_game(game, make_agents(["greedy"] * 2, seed), seed, max_decisions=3000)
        assert state.is_terminal(), f"seed {seed}: stopped after {record.decisions} decisions"
