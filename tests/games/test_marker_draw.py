"""The moment a bonus marker is drawn (issue 21, construct 4): `at marker draw:` in words and the
rule `draw N keep 1` — checked, compiled to plain Python, a decision of the drawer only that player
sees, played by greedy and by the native target (spec/house/draw_three.hansa)."""

from __future__ import annotations

import json
import random

import pytest
from hansa.play.simulate import UNFINISHED, make_agents, play_game
from hansa.runtime.errors import HansaError
from variant_support import decision_positions, play_checked, variant

import hansa

DRAW_THREE = "at marker draw: draw 3 keep 1"


_POSITIONS: list = []


def keep_positions(game, seeds=range(4), limit=3):
    """States of random games at a `keep` decision (up to `limit` per game; made once)."""
    if not _POSITIONS:
        _POSITIONS.extend(decision_positions(game, "keep_marker", seeds, limit))
    return [state.clone() for state in _POSITIONS]


def test_draw_three_keep_one_is_a_choice_of_the_drawer_and_the_rest_go_back():
    game = variant(DRAW_THREE)
    for state in keep_positions(game):
        doc = state.to_dict()
        frame = doc["stack"][-1]
        drawn = frame["drawn"]
        assert len(drawn) == 3 and len(set(drawn)) >= 2
        assert doc["stack"][-2]["frame"] == "create_route"  # step 3 waits for the choice
        actions = state.legal_actions()
        texts = [game.action_to_string(a) for a in actions]
        assert len(actions) == len(set(drawn))
        assert all(t.startswith("keep the drawn marker") for t in texts)
        supply, plate = len(doc["marker_supply"]), len(doc["turn"]["markers_to_place"])
        state.apply_action(actions[-1])
        after = state.to_dict()
        assert len(after["marker_supply"]) == supply + 2  # the two not kept are back
        assert len(after["turn"]["markers_to_place"]) == plate + 1
        assert after["stack"][-1]["frame"] == "create_route"


def test_the_drawn_markers_are_seen_by_the_drawer_only():
    game = variant(DRAW_THREE)
    for state in keep_positions(game):
        drawer = state.current_player()
        other = (drawer + 1) % state.num_players
        mine, theirs = state.observation(drawer), state.observation(other)
        assert mine["own"]["drawn_markers"] == state.to_dict()["stack"][-1]["drawn"]
        assert "drawn_markers" not in theirs["own"]
        assert "drawn" not in json.dumps(theirs["stack"]).replace("drawn_count", "")
        assert theirs["stack"][-1]["drawn_count"] == 3
        # another player cannot tell it from any other three drawn: resampling what that player
        # cannot see leaves their observation and tensor as they were
        for seed in range(5):
            twin = state.clone()
            twin.resample_hidden(random.Random(seed), other)
            assert twin.information_state_string(other) == state.information_state_string(other)
            assert list(twin.observation_tensor(other)) == list(state.observation_tensor(other))
            assert twin.observation(drawer)["own"] != {} and twin.legal_actions()


def test_the_drawers_own_view_changes_with_what_was_drawn():
    game = variant(DRAW_THREE)
    state = keep_positions(game)[0]
    drawer = state.current_player()
    changed = False
    for seed in range(10):
        twin = state.clone()
        twin.resample_hidden(random.Random(seed), (drawer + 1) % state.num_players)
        changed |= twin.observation(drawer) != state.observation(drawer)
    assert changed


def test_random_play_keeps_the_invariants_and_ends():
    game = variant(DRAW_THREE)
    for seed in range(4):
        play_checked(game, seed, 1500)
    for seed in range(3):
        record, state = play_game(game, make_agents(["random"] * 4, seed), seed)
        assert state.is_terminal() and record.end_trigger != UNFINISHED


def test_greedy_plays_the_shipped_house_rule_to_the_end():
    game = hansa.load_game("draw-three-hanseatic-45p", 4)
    kept = 0
    for seed in range(3):
        record, state = play_game(game, make_agents(["greedy"] * 4, seed), seed, record_moves=True)
        assert state.is_terminal() and record.end_trigger != UNFINISHED
        kept += sum(game.action_to_string(a).startswith("keep") for _p, a in record.moves)
    assert kept > 0


def test_other_effects_at_the_draw_keep_the_usual_draw_of_one():
    game = variant("at marker draw: gain 2 PP")
    state = game.new_initial_state(1)
    rng = random.Random(1)
    while not state.is_terminal():
        before = state.to_dict()
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        after = state.to_dict()
        drew = len(after["marker_supply"]) == len(before["marker_supply"]) - 1
        if drew and game.action_to_string(action).startswith("create"):
            p = before["turn"]["player"]
            track = [s["track"] for s in after["player_state"]]
            was = [s["track"] for s in before["player_state"]]
            assert track[p] >= was[p] + 2  # the draw's 2 PP (and the route's control PP)
            assert len(after["turn"]["markers_to_place"]) == 1 + len(
                before["turn"]["markers_to_place"]
            )
            return
    pytest.fail("no marker was drawn")


def test_a_keep_frame_of_one_kind_is_refused_on_load():
    game = variant(DRAW_THREE)
    state = keep_positions(game)[0]
    doc = state.to_dict()
    drawn = doc["stack"][-1]["drawn"]
    doc["marker_supply"] = doc["marker_supply"] + drawn[1:]
    doc["stack"][-1]["drawn"] = [drawn[0]]
    with pytest.raises(HansaError, match="two kinds drawn"):
        game.state_from_json(json.dumps(doc))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("at marker draw: draw 3 keep 2", "2:33: `draw N keep 1`: one drawn marker is kept"),
        ("at marker draw: draw 1 keep 1", "2:21: `draw N keep 1` draws at least 2 markers"),
        ("at marker draw: develop an ability", "2:21: 'develop an ability' cannot be done"),
        ("at marker draw: receive marker plus_3_actions", "2:21: 'receive marker plus_3_actions'"),
        ("at turn end: draw 3 keep 1", "2:18: 'draw 3 keep 1' cannot be done at turn end"),
        (
            "at marker draw: draw 3 keep 1\n    at marker draw: gain 1 PP, draw 2 keep 1",
            "3:32: the marker draw is already changed by 'draw 3 keep 1' (line 2)",
        ),
    ],
)
def test_mistakes_give_one_located_error(tmp_path, body: str, expected: str):
    from variant_support import problems

    found = problems(body, tmp_path)
    assert len(found) == 1 and found[0].startswith(expected), found


def test_the_native_target_draws_and_keeps_as_the_python_one():
    """Greedy games with keep decisions (the drawn markers put back where the state-seeded
    generator says: CPython's seeding of a string, SHA-512 included, redone in C) agree decision
    for decision; the tensors of the other players count the drawn markers with the supply."""
    from hansa.play.differential import verify

    native = hansa.load_game("draw-three-hanseatic-45p", 4, backend="native")
    python = hansa.Game(native.module, 4)
    result = verify(python, native, 8, seed=60, policy="greedy")
    assert result.divergence is None, result.divergence.report()
    keep = native.module.A_KEEP_MARKER
    kept = 0
    for seed in range(3):
        record, state = play_game(
            native, make_agents(["greedy"] * 4, seed), seed, record_moves=True
        )
        twin = python.new_initial_state(seed)
        for _player, action in record.moves:
            if action >= keep:
                kept += 1
                assert twin.stack[-1][0] == native.module.F_KEEP  # the keep decision
            twin.apply_action(action)
        assert twin.to_json() == state.to_json()
    assert kept > 0
