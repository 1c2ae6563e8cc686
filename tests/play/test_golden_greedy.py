"""Golden greedy games: one seed gives the same game, decision by decision, for every built game.

A change that should not alter behaviour (moving a catalogue template into the spec prelude, a
faster code path, a refactor of the code generator) must leave these files unchanged. Each file
records, per player count, the greedy game of one seed: every decision's stable key, the score
breakdown and the end trigger. Regenerate deliberately, after a rule change, with

    HANSA_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/play/test_golden_greedy.py

and review the diff: only games whose rules changed may move.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hansa.play.logs import action_keys
from hansa.play.simulate import make_agents, play_game

import hansa

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "greedy"
SEED = 7
BUILT = sorted(hansa.available_games())


def _player_counts(name: str) -> list[int]:
    return list(hansa.load_game(name).info.player_counts)


def _play(name: str, players: int) -> dict:
    game = hansa.load_game(name, players)
    agents = make_agents(["greedy"] * players, SEED)
    record, _state = play_game(game, agents, SEED, record_moves=True)
    keys = action_keys(game)
    return {
        "seed": SEED,
        "decisions": record.decisions,
        "end_trigger": record.end_trigger,
        "breakdown": record.breakdown,
        "winners": record.winners,
        "keys": [keys[action] for _player, action in record.moves],
    }


@pytest.mark.parametrize("name", BUILT)
def test_greedy_game_matches_its_golden_log(name: str) -> None:
    path = GOLDEN / f"{name}.json"
    played = {f"{n}p": _play(name, n) for n in _player_counts(name)}
    if os.environ.get("HANSA_REGEN_GOLDEN"):
        path.write_text(json.dumps(played, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    assert path.exists(), f"no golden log for {name}: run with HANSA_REGEN_GOLDEN=1"
    golden = json.loads(path.read_text(encoding="utf-8"))
    assert sorted(played) == sorted(golden)
    for count, game in played.items():
        want = golden[count]
        for i, (got_key, want_key) in enumerate(zip(game["keys"], want["keys"], strict=False)):
            assert got_key == want_key, f"{name} {count}: decision {i + 1} differs"
        assert game == want, f"{name} {count}: same decisions, different outcome"
