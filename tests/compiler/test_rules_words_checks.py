"""Rules in words are checked before they run: names, types, hooks and effects, each problem at
file:line:col; whatever the checks accept builds and plays (also without any one action)."""

from __future__ import annotations

import random

import pytest
from hansa.compiler.project import load_project
from hansa.compiler.rules.resolve import resolve
from variant_support import SPEC, problems, variant


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            'score H "x": 2 PP per city where coinz > 0',
            "2:38: unknown quantity 'coinz' (did you mean 'coins'?)",
        ),
        ("score H: 1 PP per city where controller > 2", "2:34: cannot compare a player with a"),
        ("forbid displace when victim", "2:26: `forbid … when` takes a condition; 'victim' is"),
        ("end when some player has track PP >= 3 + you", "2:46: '+' needs numbers, got a player"),
        ("at setup: gain 2 actions", "2:15: 'gain 2 actions' cannot be done at setup"),
        ("after create_route: develop boook", "2:25: unknown ability 'boook' (did you mean 'book'"),
        ("at turn start: receive marker nope", "2:20: unknown bonus marker 'nope'"),
        ("tiebreak most posts here, shared", "2:19: 'posts here' needs a city"),
        ("forbid place when track PP of the victim > 1", "2:23: 'victim' is known only in"),
        ("at turn start: lose 1 PP * level of book of them", "2:32: 'them' only inside"),
        ("at turn start: gain 1 PP * level of boko", "2:32: unknown ability 'boko'"),
        ("at turn start: gain 2", "2:25: say what to gain: write a unit"),
        ("at turn start: gain 3 PP / 0", "2:32: division by zero"),
        ("at turn start: gain 1 PP if 3", "2:33: `if` takes a condition; '3' is a number"),
        ('score H "x": 1 PP * score of A', "2:5: a scoring category cannot read `score of …`"),
        ('replace score A "again": 2 PP', ""),  # replaces the catalogue's category A: fine
        ("forbid fly when seat = 1", "2:5: unknown action 'fly'"),
        ("tiebreak fewest actions, shared", "2:21: unknown quantity 'actions'; write `fewest abil"),
        ("at turn start: your favour becomes 2", "2:20: 'favour' is not a parameter a rule can"),
        ("at turn start: gain 2 plums", "2:27: unknown unit 'plums' after 2 (units: PP, actions)"),
        ("score H: 2 actions", "2:14: a scoring category gives PP, not actions"),
        ("at setup: gain 1 PP per planet", "2:29: unknown set 'planet'"),
        ("at setup: take 2 ducats from the stock", "2:15: take traders or merchants, not 'ducat"),
    ],
)
def test_errors_are_located_and_say_what_is_wrong(body, expected, tmp_path):
    found = problems(body, tmp_path)
    if not expected:
        assert found == []
    else:
        assert found and found[0].startswith(expected), found


def test_a_scoring_category_cannot_take_an_effect(tmp_path):
    """A category is an amount of PP; an effect there is not even a sentence of the language."""
    found = problems('score H "x": gain 2 PP', tmp_path)
    assert found and found[0].startswith("2:18: scoring category H cannot take an effect"), found


@pytest.mark.parametrize("action", ["income", "place", "displace", "move", "create_route"])
def test_a_rule_set_without_one_action_builds_and_plays(action):
    """`remove action X` passes the checks, so it builds: the turn never offers X. (Without
    Create Route nothing ends the game but a condition in words:
    tests/compiler/test_authoring_traps.py.)"""
    ending = "\nend when turn number >= 60" if action == "create_route" else ""
    game = variant(f"remove action {action}{ending}")
    words = {
        "income": "income",
        "place": "place ",
        "displace": "displace",
        "move": "move own tradesmen",
        "create_route": "create route",
    }
    rng = random.Random(3)
    state = game.new_initial_state(seed=5)
    for _ in range(3000):
        if state.is_terminal():
            break
        actions = state.legal_actions()
        if not state.to_dict()["stack"]:  # the turn decision: which action to take
            names = [state.action_to_string(a) for a in actions]
            assert not any(n.startswith(words[action]) for n in names), names
        state.apply_action(rng.choice(actions))


def test_diff_shows_a_rule_in_words_by_its_changed_words(tmp_path):
    """`hansa diff` compares rules in words by their words: `score G: 2 → 3 PP per city …`."""
    from hansa.compiler.diff.edits import diff_rulesets

    path = tmp_path / "more.hansa"
    path.write_text(
        "rules more extends harbour_master {\n"
        '    score G "Harbour master": 3 PP per city where coins > 0 and your posts here > 0\n'
        "    forbid move when rank = 1\n"
        "    tiebreak fewest pieces in stock, shared\n"
        "}\n",
        encoding="utf-8",
    )
    project = load_project([path, SPEC])
    a = resolve("harbour_master", project.rulesets)
    b = resolve("more", project.rulesets)
    messages = sorted(edit.describe() for edit in diff_rulesets(a, b))
    assert (
        "score G 'Harbour master': 2 → 3 PP per city where coins > 0 and your posts here > 0"
        in messages
    )
    assert "forbid move added (forbid move when rank = 1)" in messages
    assert (
        "tie-break step 1 'fewest ability actions' replaced by 'fewest pieces in stock'" in messages
    )
    assert diff_rulesets(b, b) == []
