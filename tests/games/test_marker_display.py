"""The marker display and where a returned marker goes (issue 33, item 5): `at marker draw: choose
from N on display` lays the top N markers of the supply face up for every player, the player who
takes a route's marker chooses its replacement among them; `option returned_marker` puts a marker
going back into the supply shuffled in, at the bottom or on top (spec/house/marker_market.hansa)."""

from __future__ import annotations

import json
import random

import pytest
from hansa.play.simulate import UNFINISHED, make_agents, play_game
from hansa.runtime.errors import HansaError
from scenario_support import act, doc
from test_variants import full_board
from variant_support import (
    SPEC,
    decision_positions,
    house_rule_text,
    play_checked,
    problems,
    variant,
)

import hansa

DISPLAY = "at marker draw: choose from 3 on display"


def test_the_display_lies_face_up_from_setup_for_every_player():
    game = variant(DISPLAY)
    state = game.new_initial_state(5)
    doc = state.to_dict()
    assert doc["marker_display"] == doc["marker_supply"][:3]
    for p in range(4):
        seen = state.observation(p)
        assert seen["marker_display"] == doc["marker_supply"][:3]
        assert "marker_supply" not in seen
        assert seen["marker_supply_size"] == len(doc["marker_supply"])
        face_down = doc["marker_supply"][3:]
        assert seen["marker_supply_counts"] == {m: face_down.count(m) for m in set(face_down)}
    layout = {block["name"]: block for block in game.observation_tensor_layout()}
    offset, (types,) = layout["marker_display"]["offset"], layout["marker_display"]["shape"]
    tensor = state.observation_tensor(0)
    keys = game.module.MARKER_KEYS
    for m in range(types):
        assert tensor[offset + m] == doc["marker_supply"][:3].count(keys[m])


def test_the_creator_takes_a_face_up_marker_and_the_next_one_turns_up():
    game = variant(DISPLAY)
    for state in decision_positions(game, "choose_from_display"):
        doc = state.to_dict()
        assert doc["stack"][-2]["frame"] == "create_route"  # step 3 waits for the choice
        shown = doc["marker_display"]
        actions = state.legal_actions()
        texts = [game.action_to_string(a) for a in actions]
        assert len(actions) == len(set(shown)) >= 2
        assert all(t.startswith("take the face-up marker") for t in texts)
        supply = doc["marker_supply"]
        taken = texts[-1].split()[4]
        state.apply_action(actions[-1])
        after = state.to_dict()
        assert after["turn"]["markers_to_place"][-1] == taken
        rest = list(supply)
        rest.remove(taken)  # the first of its kind, on display
        assert after["marker_supply"] == rest
        assert after["marker_display"] == rest[:3]  # the next face-down marker turned up
        assert after["stack"][-1]["frame"] == "create_route"


def test_a_display_of_one_kind_is_taken_without_a_decision():
    """A display of one marker (or of one kind) offers nothing to choose: greedy games (which
    create routes often) never meet the decision, and each route's replacement is the marker
    that lay face up."""
    from hansa.play.greedy import GreedyAgent

    game = variant("at marker draw: choose from 1 on display")
    kind = game.module.FRAME_NAMES.index("choose_from_display")
    drawn = 0
    for seed in range(2):
        state = game.new_initial_state(seed)
        agents = [GreedyAgent(seed=seed * 4 + p) for p in range(4)]
        while not state.is_terminal():
            assert not (state.stack and state.stack[-1][0] == kind)
            before = state.to_dict()
            action = agents[state.current_player()].step(state, state.legal_actions())
            state.apply_action(action)
            after = state.to_dict()
            if len(after["marker_supply"]) == len(before["marker_supply"]) - 1:
                if game.action_to_string(action).startswith("create"):
                    # the face-up marker is the replacement (nothing was there to choose)
                    assert after["turn"]["markers_to_place"][-1] == before["marker_display"][0]
                    drawn += 1
    assert drawn > 0


def test_an_illegal_choice_changes_nothing():
    game = variant(DISPLAY)
    state = decision_positions(game, "choose_from_display")[0]
    text = state.to_json()
    shown = set(state.to_dict()["marker_display"])
    missing = [
        game.module.A_DISPLAY_MARKER + m
        for m, key in enumerate(game.module.MARKER_KEYS)
        if key not in shown
    ]
    assert missing
    with pytest.raises(HansaError):
        state.apply_action(missing[0])
    assert state.to_json() == text


def test_the_face_down_order_stays_hidden_and_the_display_stays_as_it_lies():
    game = variant(DISPLAY)
    for state in decision_positions(game, "choose_from_display", limit=1):
        for observer in range(4):
            for seed in range(4):
                twin = state.clone()
                twin.resample_hidden(random.Random(seed), observer)
                assert twin.to_dict()["marker_display"] == state.to_dict()["marker_display"]
                assert twin.observation(observer) == state.observation(observer)
                assert list(twin.observation_tensor(observer)) == list(
                    state.observation_tensor(observer)
                )
                assert twin.legal_actions() == state.legal_actions()


def test_the_json_display_must_be_the_first_markers_of_the_supply():
    game = variant(DISPLAY)
    state = decision_positions(game, "choose_from_display")[0]
    doc = state.to_dict()
    assert game.state_from_json(json.dumps(doc)).to_json() == state.to_json()
    del doc["marker_display"]  # optional: the supply says it already
    assert game.state_from_json(json.dumps(doc)).to_json() == state.to_json()
    doc["marker_display"] = list(reversed(doc["marker_supply"][:3]))
    if doc["marker_display"] != doc["marker_supply"][:3]:
        with pytest.raises(HansaError, match="marker_display: the display is the first 3"):
            game.state_from_json(json.dumps(doc))
    refused = 0
    for state in decision_positions(game, "choose_from_display"):
        doc = state.to_dict()
        supply = doc["marker_supply"]
        common = max(set(supply), key=supply.count)
        if supply.count(common) < 3:
            continue
        supply.sort(key=lambda m: m != common)  # one kind face up: nothing to choose
        doc["marker_display"] = supply[:3]
        with pytest.raises(HansaError, match="two kinds face up"):
            game.state_from_json(json.dumps(doc))
        refused += 1
    assert refused


def test_random_and_greedy_play_keep_the_invariants_and_end():
    game = variant(DISPLAY)
    for seed in range(3):
        play_checked(game, seed, 1500)
    shipped = hansa.load_game("marker-market-hanseatic-45p", 4)
    chosen = 0
    for seed in range(3):
        record, state = play_game(
            shipped, make_agents(["greedy"] * 4, seed), seed, record_moves=True
        )
        assert state.is_terminal() and record.end_trigger != UNFINISHED
        chosen += sum(
            shipped.action_to_string(a).startswith("take the face-up") for _p, a in record.moves
        )
    assert chosen > 0


@pytest.mark.parametrize("where", ["face down", "on display only"])
def test_receive_takes_a_face_down_marker_and_leaves_the_display(where: str):
    """`receive marker X` takes a face-down X when there is one (the display stays as it lies),
    else the X on display (and the next face-down marker turns up)."""
    game = variant(
        f"{DISPLAY}\n    at turn start: receive marker plus_3_actions if turn number = 2"
    )
    key = "plus_3_actions"
    for seed in range(300):
        state = game.new_initial_state(seed)
        before = state.to_dict()["marker_supply"]
        face_down = key in before[3:]
        if key in before[:3] and face_down == (where == "face down"):
            break
    else:
        pytest.fail(f"no deal with {key} {where}")
    while state.to_dict()["turn"]["number"] < 2:
        state.apply_action(state.legal_actions()[0])
    after = state.to_dict()
    expected = list(before)
    del expected[before.index(key, 3) if face_down else before.index(key)]
    assert after["marker_supply"] == expected
    assert after["marker_display"] == expected[:3]
    assert sum(s["markers"]["unused"].count(key) for s in after["player_state"]) == 1


def drawn_back(game) -> list[tuple[list, list, list]]:
    """(supply before the keep, supply after, the markers not kept) at `draw N keep 1` decisions
    of random games."""
    found = []
    for state in decision_positions(game, "keep_marker", seeds=range(8), limit=2):
        doc = state.to_dict()
        drawn = doc["stack"][-1]["drawn"]
        action = state.legal_actions()[0]
        kept = game.module.MARKER_KEYS[action - game.module.A_KEEP_MARKER]
        state.apply_action(action)
        rest = list(drawn)
        rest.remove(kept)
        found.append((doc["marker_supply"], state.to_dict()["marker_supply"], rest))
    return found


@pytest.mark.parametrize("where", ["bottom", "top"])
def test_returned_markers_go_to_the_bottom_or_on_top(where: str):
    game = variant(f"at marker draw: draw 3 keep 1\n    option returned_marker = {where}")
    for before, after, back in drawn_back(game):
        if where == "bottom":
            assert after == before + back  # one after the other, as they are returned
        else:
            assert after == list(reversed(back)) + before  # the last returned is on top


def test_returned_markers_are_shuffled_in_by_default_reproducibly():
    game = variant("at marker draw: draw 3 keep 1")
    places = set()
    results = drawn_back(game)
    assert results == drawn_back(game)  # the state seeds the generator
    for before, after, back in results:
        assert sorted(after) == sorted(before + back)
        assert after != before + back or after != list(reversed(back)) + before
        places.add(tuple(i for i, m in enumerate(after) if i >= len(before) or m != before[i]))
    assert len(places) > 1  # not always the same place


@pytest.mark.parametrize("where", ["bottom", "top", "shuffled"])
def test_an_unplaceable_marker_goes_back_under_the_display(where: str):
    """With a display, a marker going back lands in the face-down part: the display stays."""
    game = variant(
        f"{DISPLAY}\n    option unplaceable_marker = back_to_supply\n"
        f"    option returned_marker = {where}"
    )
    state = full_board(game).to_move(0, plate=("plus_3_actions",)).state()
    before = doc(state)["marker_supply"]
    assert len(before) > 3
    act(state, "end the turn")
    after = doc(state)["marker_supply"]
    assert after[:3] == before[:3] and doc(state)["marker_display"] == before[:3]
    if where == "bottom":
        assert after == before + ["plus_3_actions"]
    elif where == "top":
        assert after == before[:3] + ["plus_3_actions"] + before[3:]
    else:
        assert sorted(after) == sorted(before + ["plus_3_actions"])
        assert game.state_from_json(state.to_json()).to_json() == state.to_json()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("at marker draw: choose from 0 on display", "2:33: a display holds at least 1 marker"),
        (
            "at marker draw: choose from 3 on display if turn number > 2",
            "2:49: the display lies face up the whole game: it takes no `if`",
        ),
        ("at turn end: choose from 3 on display", "2:18: 'choose from 3 on display' cannot be"),
        (
            "at marker draw: draw 3 keep 1\n    at marker draw: choose from 2 on display",
            "3:21: the marker draw is already changed by 'draw 3 keep 1' (line 2)",
        ),
        ("option returned_marker = sideways", "2:30: "),
    ],
)
def test_mistakes_give_one_located_error(tmp_path, body: str, expected: str):
    found = problems(body, tmp_path)
    assert len(found) == 1 and found[0].startswith(expected), found


def test_the_native_target_plays_the_display_and_returns_as_the_python_one(tmp_path):
    """Greedy games agree decision for decision on both targets: the shipped market, a display
    with markers returned on top, and `draw 2 keep 1` with the others to the bottom."""
    from hansa.play.differential import verify

    native = hansa.load_game("marker-market-hanseatic-45p", 4, backend="native")
    games = [(hansa.Game(native.module, 4), native)]
    for i, body in enumerate(
        (
            f"{DISPLAY}\n    option returned_marker = top\n"
            "    option unplaceable_marker = back_to_supply",
            "at marker draw: draw 2 keep 1\n    option returned_marker = bottom",
        )
    ):
        path = tmp_path / f"variant{i}.hansa"
        path.write_text(house_rule_text(body), encoding="utf-8")
        built = hansa.compile_game(str(path), 4, spec_dir=str(SPEC), backend="native")
        games.append((hansa.Game(built.module, 4), built))
    for python, built in games:
        result = verify(python, built, 4, seed=40, policy="greedy")
        assert result.divergence is None, result.divergence.report()


def test_the_text_board_shows_the_display_and_counts_the_face_down_markers_apart():
    from hansa.rl.render import ansi_board

    game = variant(DISPLAY)
    state = game.new_initial_state(1)
    lines = ansi_board(state, game.module).splitlines()
    doc = state.to_dict()
    assert f"markers on display: {', '.join(doc['marker_display'])}" in lines
    assert f"face-down markers: {len(doc['marker_supply']) - 3}" in lines
