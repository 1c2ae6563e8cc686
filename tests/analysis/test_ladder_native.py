"""A ladder on the native backend plays the same games as on the Python backend (slow: it builds
the game natively)."""

from __future__ import annotations

import pytest
from hansa.analysis.ladder import run_ladder
from hansa.play.simulate import default_loader
from play_support import without_cost

from hansa.resolve import load_native_game

pytest.importorskip("choix")

GAME = "bigbox-hanseatic-45p"
AGENTS = "random,greedy,mcts:iterations=3,turns=1"  # a short search: its rollouts are greedy


def test_a_native_ladder_is_the_python_ladder():
    reports = []
    for loader in (default_loader, load_native_game):
        game = loader(GAME, 4)
        ladder = run_ladder(game, 8, AGENTS, seed=11, jobs=2, loader=loader, bootstrap=50)
        reports.append(without_cost(ladder.to_json()))
    assert type(load_native_game(GAME, 4)).__name__ == "NativeGame"
    assert reports[0] == reports[1]
