"""One API test that every game in spec/ passes (the committed generated modules, via load_game)."""

from __future__ import annotations

import json

import pytest
from hansa.play.agents import RandomAgent, play
from play_support import game_cases

import hansa

GAMES = sorted(hansa.available_games())
CASES = game_cases()


def test_every_game_of_the_spec_is_built():
    from hansa.compiler.project import load_project

    project = load_project(["spec"])
    assert sorted(project.games) == GAMES
    assert {
        "bigbox-hanseatic-3p",
        "bigbox-hanseatic-45p",
        "original-hanseatic-23p",
        "original-hanseatic-45p",
        "bigbox-eastern",
        "bigbox-britannia-3p",
        "bigbox-britannia-45p",
    } <= set(GAMES)


@pytest.mark.parametrize("name,players", CASES)
def test_game_api(name, players):
    game = hansa.load_game(name, players=players)
    assert game.num_players() == players
    total = game.num_distinct_actions()
    state = game.new_initial_state(seed=3)
    # The first seat starts; in a game with the neutral pawn the last seat first places the pawn.
    placer = players - 1 if "pawn" in json.loads(state.to_json()) else 0
    assert state.current_player() == placer
    assert not state.is_terminal()
    assert state.returns() == [0] * players
    breakdown = state.score_breakdown()
    assert len(breakdown) == players and sorted(breakdown[0]) == sorted(game.info.score_keys)
    assert set("ABCDEF") <= set(breakdown[0])  # a house rule may add a category (G …)
    agent = RandomAgent(5)
    for _ in range(300):
        legal = state.legal_actions()
        assert legal == sorted(legal) and len(set(legal)) == len(legal)
        assert all(0 <= a < total for a in legal)
        assert all(isinstance(state.action_to_string(a), str) for a in legal)
        mask = state.legal_actions_mask()
        assert sum(mask) == len(legal) and len(mask) == total
        assert 0 <= state.current_player() < players
        state.apply_action(agent.step(state, legal))
    # clone is independent
    copy = state.clone()
    assert copy == state and copy.to_json() == state.to_json()
    copy.apply_action(copy.legal_actions()[-1])
    assert copy != state
    # JSON round trip
    text = state.to_json()
    loaded = game.state_from_json(text)
    assert loaded.to_json() == text and loaded.legal_actions() == state.legal_actions()
    assert json.loads(text)["game"] == name
    # play to the end
    play(state, RandomAgent(9), max_decisions=200_000)
    assert state.is_terminal()
    assert state.current_player() == hansa.TERMINAL
    assert state.legal_actions() == []
    returns = state.returns()
    assert returns == [sum(b.values()) for b in state.score_breakdown()]
    winners = state.winners()
    assert winners and all(returns[w] == max(returns) for w in winners)


def test_load_game_errors():
    with pytest.raises(hansa.HansaError, match="unknown game 'bigbox-hanseatic-4p'.*did you mean"):
        hansa.load_game("bigbox-hanseatic-4p")
    with pytest.raises(hansa.HansaError, match="is for 4, 5 players, not 3"):
        hansa.load_game("bigbox-hanseatic-45p", players=3)
    with pytest.raises(hansa.HansaError, match="seed must be a whole number"):
        hansa.load_game("bigbox-hanseatic-3p").new_initial_state(seed="x")


def test_compile_game_matches_the_committed_module():
    built = hansa.compile_game("bigbox-hanseatic-45p", players=4)
    loaded = hansa.load_game("bigbox-hanseatic-45p", players=4)
    a, b = built.new_initial_state(11), loaded.new_initial_state(11)
    actions = play(a, RandomAgent(1), max_decisions=500)
    for action in actions:
        b.apply_action(action)
    assert a.to_json() == b.to_json()


def test_compile_game_from_a_file(tmp_path):
    path = tmp_path / "quick.hansa"
    path.write_text(
        "rules quick extends bigbox_2021 {\n"
        "    end when track_pp >= 8 | marker_supply_empty | completed_cities >= board\n}\n"
        "game quick-hanseatic-45p = quick on hanseatic_45p players 4\n",
        encoding="utf-8",
    )
    game = hansa.compile_game(str(path), players=4)
    assert game.name == "quick-hanseatic-45p"
    state = game.new_initial_state(2)
    play(state, RandomAgent(2))
    assert state.is_terminal()
    data = state.to_dict()
    track = [b["A"] for b in state.score_breakdown()]
    assert max(track) >= 8 or data["completed_cities"] >= 10 or not data["marker_supply"]
