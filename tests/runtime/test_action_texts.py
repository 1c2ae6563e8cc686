"""Every action of every game has a text and a log key of its own, so a log names each decision
exactly and the game's own log replays. (City names holding '–', the separator of a route's two
cities in these texts, are refused by the board checks: tests/compiler/test_language_limits.py.)"""

from __future__ import annotations

import pytest
from hansa.play.logs import action_key, header_for, replay, write_log
from hansa.play.simulate import make_agents, play_game

import hansa

GAMES = sorted(hansa.available_games())
# One game per board (and the 2-player pawn, the favour tiles): their logs replay.
ONE_PER_BOARD = [
    "bigbox-britannia-3p",
    "bigbox-britannia-45p",
    "bigbox-eastern",
    "bigbox-hanseatic-45p-favour",
    "original-hanseatic-2p",
]


@pytest.mark.parametrize("name", GAMES)
def test_every_action_text_and_key_names_one_action(name):
    game = hansa.load_game(name)
    n = game.num_distinct_actions()
    texts = [game.action_to_string(a) for a in range(n)]
    keys = [action_key(game, a) for a in range(n)]
    for what, values in (("text", texts), ("key", keys)):
        repeated = {v for v in values if values.count(v) > 1} if len(set(values)) < n else set()
        assert not repeated, f"{name}: {what}s naming two actions: {sorted(repeated)[:3]}"


@pytest.mark.parametrize("name", ONE_PER_BOARD)
def test_the_games_own_log_replays(name, tmp_path):
    game = hansa.load_game(name)
    agents = ["random"] * game.num_players()
    record, state = play_game(game, make_agents(agents, 5), 5, max_decisions=120, record_moves=True)
    path = tmp_path / "game.jsonl"
    write_log(str(path), game, header_for(game, 5, agents), record, state)
    result = replay(str(path), lambda _name, players: hansa.load_game(name, players))
    assert result.state.to_json() == state.to_json() and not result.warnings
