"""End timing (issue 21, construct 4): `end when … after turn` / `after round` next to the usual
end at once — stated per trigger, checked, compiled to plain Python, kept in the state JSON,
played by the native target too (spec/house/last_round.hansa)."""

from __future__ import annotations

import json
import random

import pytest
from hansa.play.simulate import UNFINISHED, make_agents, play_game
from hansa.runtime.errors import HansaError
from variant_support import play_checked, variant

import hansa


def turns_played(game, seed: int) -> list[tuple[int, str]]:
    """(turn player, game_ends_after) after every decision of one random game."""
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    seen = []
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        turn = state.to_dict()["turn"]
        seen.append((turn["player"], turn["game_ends_after"]))
    return seen


def last_turn(game, seed: int) -> dict:
    """The `turn` entry of the final state of one random game."""
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state.to_dict()["turn"]


def test_after_round_plays_the_round_out_to_the_last_seat():
    # turn number >= 6 holds from the 6th turn (seat 1's second); the round ends with seat 3's
    game = variant("end when turn number >= 6 after round")
    for seed in range(3):
        turn = last_turn(game, seed)
        assert turn["number"] == 8 and turn["player"] == 3 and turn["game_ends_after"] == "round"


def test_after_turn_ends_the_game_with_the_turn_in_which_it_fired():
    game = variant("end when turn number >= 6 after turn")
    turn = last_turn(game, 0)
    assert (turn["number"], turn["player"], turn["game_ends_after"]) == (6, 1, "turn")


def test_at_once_stays_the_default_and_turn_beats_round():
    game = variant("end when turn number >= 6")
    assert last_turn(game, 0)["number"] == 6  # ended after the 6th turn's first action
    # a round already running out ends earlier when a trigger timed `after turn` fires
    game = variant("end when turn number >= 5 after round | turn number >= 6 after turn")
    assert last_turn(game, 0)["number"] == 6


def test_the_shipped_house_rule_plays_out_the_round():
    game = hansa.load_game("last-round-hanseatic-45p", 4)
    for seed in range(6):
        record, state = play_game(game, make_agents(["greedy"] * 4, seed), seed)
        assert state.is_terminal() and record.end_trigger != UNFINISHED
        turn = state.to_dict()["turn"]
        if turn["game_ends_after"] == "round":
            assert turn["player"] == 3  # the round ends with the last seat
    for seed in range(3):
        seen = turns_played(game, seed)
        pending = [i for i, (_p, after) in enumerate(seen) if after != "action"]
        assert pending, "the game ended through a timed trigger"
        first = pending[0]
        # once set in motion, the end stays pending, and play goes on to the end of the turn or
        # of the round (the seats after the one that set it, up to the last seat)
        assert all(after == seen[first][1] for _p, after in seen[first:])
        later = [p for p, _after in seen[first:]]
        assert later == sorted(later) and later[-1] == (
            3 if seen[first][1] == "round" else later[0]
        )


def test_random_play_keeps_the_invariants_and_ends():
    game = variant("end when track_pp >= 12 after round | marker_supply_empty after turn")
    for seed in range(3):
        play_checked(game, seed, 2000)
        record, state = play_game(game, make_agents(["random"] * 4, seed), seed)
        assert state.is_terminal() and record.end_trigger != UNFINISHED


def test_the_state_json_keeps_what_is_pending_and_checks_it():
    game = variant("end when turn number >= 2 after round")
    state = game.new_initial_state(0)
    rng = random.Random(0)
    while state.to_dict()["turn"]["game_ends_after"] != "round":
        state.apply_action(rng.choice(state.legal_actions()))
    text = state.to_json()
    assert game.state_from_json(text).to_json() == text
    doc = json.loads(text)
    doc["turn"]["game_ends_after"] = "game"
    with pytest.raises(HansaError, match="turn.game_ends_after.*'action', 'turn', 'round'"):
        game.state_from_json(json.dumps(doc))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "end when track_pp >= 16 after game",
            "2:35: unexpected 'game'; expected 'round' or 'turn'",
        ),
        (
            "end when turn number >= 9 after rund",
            "2:37: unexpected 'rund'; expected 'round' or 'turn' (did you mean 'round'?)",
        ),
    ],
)
def test_a_wrong_timing_is_one_located_error(tmp_path, body: str, expected: str):
    from variant_support import problems

    found = problems(body, tmp_path)
    assert len(found) == 1 and found[0].startswith(expected), found


def test_the_timing_is_part_of_the_rule_and_of_the_diff():
    from hansa.compiler.diff.edits import diff_rulesets
    from hansa.compiler.project import load_project
    from hansa.compiler.rules.resolve import resolve

    project = load_project([hansa.compiler.LIBRARY_DIR])
    base = resolve("bigbox_2021", project.rulesets)
    house = resolve("last_round", project.rulesets)
    assert {t.kind: t.timing for t in house.end_triggers} == {
        "track_pp": "round",
        "marker_supply_empty": "turn",
        "completed_cities": "now",
    }
    edits = [e.describe() for e in diff_rulesets(base, house)]
    assert "end trigger 'track_pp': timing now → round" in edits


def test_the_native_target_plays_a_timed_end_as_the_python_one():
    """The last round played out natively: the state after the trigger (`game_ends_after`) and
    the game's end agree with the Python backend decision for decision (tests/games/test_native.py
    plays 200 greedy games more)."""
    from hansa.play.differential import verify

    native = hansa.load_game("last-round-hanseatic-45p", 4, backend="native")
    python = hansa.Game(native.module, 4)
    result = verify(python, native, 6, seed=40, policy="greedy")
    assert result.divergence is None, result.divergence.report()
    delayed = set()
    for seed in range(6):  # random games: each ends by a trigger of its own timing
        state = native.new_initial_state(seed)
        native.random_steps(state, 10**6, seed=seed)
        assert state.is_terminal() and state.to_python().terminal
        delayed.add(state.to_dict()["turn"]["game_ends_after"])
    assert delayed & {"turn", "round"}
