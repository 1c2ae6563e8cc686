"""The bounds of docs/rules-language.md ("Limits"): what `hansa check` accepts plays the same on
both backends, and one past each limit is one located error at the statement stating the largest
value allowed. The four reproducers of the user's report (F34-F37) are refused at check."""

from __future__ import annotations

from pathlib import Path

import pytest
from hansa.compiler.model.sizes import (
    MAX_ABILITY_LEVELS,
    MAX_ABILITY_VALUE,
    MAX_ACTIONS_LEFT,
    MAX_EXTRA_ACTIONS,
    MAX_MARKERS,
    MAX_MOVE,
    MAX_PARAM,
    MAX_PP,
    MAX_RULE_DECISIONS,
    MAX_TAKE,
    MAX_VALUE,
)
from hansa.compiler.syntax.limits import MAX_NUMBER
from hansa.play.differential import verify
from hypothesis import given, settings
from hypothesis import strategies as st
from play_support import needs_c_compiler

import hansa
from hansa.cli import main

SPEC = Path(__file__).resolve().parents[2] / "spec"
BIGBOX_MARKERS = 15  # the Big Box's own markers (spec/bigbox_2021.hansa)


def rules_text(*lines: str) -> str:
    body = "\n".join(f"    {line}" for line in lines)
    return (
        'rules bounds "bounds" extends bigbox_2021 {\n'
        f"{body}\n"
        "}\n"
        "game bounds-hanseatic-45p = bounds on hanseatic_45p players 4..5\n"
    )


def check(tmp_path, capsys, *lines: str) -> tuple[int, str, Path]:
    path = tmp_path / "bounds.hansa"
    path.write_text(rules_text(*lines), encoding="utf-8")
    code = main(["check", str(path)])
    return code, capsys.readouterr().err, path


def refused(tmp_path, capsys, line: str, *fragments: str, col: int = 5) -> None:
    """One error, at line 2 (the statement; `col` its column), with every fragment."""
    code, err, path = check(tmp_path, capsys, line)
    assert code == 1, err
    assert err.count("error:") == 1, err
    assert f"{path}:2:{col}: error:" in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def accepted(tmp_path, capsys, *lines: str) -> None:
    code, err, _path = check(tmp_path, capsys, *lines)
    assert code == 0, err


ACTIONS = (
    "ability actions values 2, 3, 3, 4, 4, {v} covered_by trader full_pp 4 role actions_per_turn"
)
BOOK = "ability book values 2, 3, 4, {v} covered_by merchant full_pp 4 role move_count"


# ---- the user's reproducers: each one located error stating the maximum


def test_f34_an_ability_value_past_the_limit_is_refused(tmp_path, capsys):
    line = ACTIONS.replace("2, 3, 3, 4, 4, {v}", ", ".join(["40000"] * 6))
    refused(tmp_path, capsys, line, "is 40,000: at most 999")


def test_f35_two_hundred_bonus_markers_are_refused(tmp_path, capsys):
    refused(
        tmp_path,
        capsys,
        'bonus "Plenty" count 200 when used: gain 1 PP',
        "215 bonus markers (at most 100)",
    )


def test_f36_a_number_past_the_limit_is_refused_at_the_number(tmp_path, capsys):
    line = 'bonus "Fortune" count 2 when used: gain 99999999999 PP'
    refused(tmp_path, capsys, line, "numbers go up to 1000000", col=5 + line.index("9999"))


def test_f36_a_product_past_64_bit_safety_is_refused_at_the_rule(tmp_path, capsys):
    refused(
        tmp_path,
        capsys,
        'bonus "Fortune" count 2 when used: gain 1000000 * 1000000 * 1001 PP',
        f"could reach 1,001,000,000,000,000 (at most {MAX_VALUE:,})",
    )


def test_f37_a_million_pieces_moved_is_refused(tmp_path, capsys):
    refused(tmp_path, capsys, BOOK.format(v=1_000_000), "is 1,000,000: at most 100")


# ---- one past each limit


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        (ACTIONS.format(v=MAX_ABILITY_VALUE + 1), f"at most {MAX_ABILITY_VALUE}"),
        (BOOK.format(v=MAX_MOVE + 1), f"at most {MAX_MOVE}"),
        (
            f"bonus move_tradesmen(count: {MAX_MOVE + 1}, whose: any) count 1",
            f"at most {MAX_MOVE}",
        ),
        (
            f"bonus extra_actions(count: {MAX_EXTRA_ACTIONS + 1}) count 1",
            f"at most {MAX_EXTRA_ACTIONS}",
        ),
        (
            f'bonus "More" count {MAX_MARKERS - BIGBOX_MARKERS + 1} when used: gain 1 PP',
            f"(at most {MAX_MARKERS})",
        ),
        (
            f'bonus "More" count 1 when used: your city pp becomes {MAX_PARAM + 1}',
            f"at most {MAX_PARAM:,}",
        ),
        (
            "ability keys values "
            + ", ".join(["1"] * (MAX_ABILITY_LEVELS + 1))
            + " covered_by trader full_pp 0 role network_factor\n"
            + "    pieces traders 200 merchants 4 score_marker trader",
            f"at most {MAX_ABILITY_LEVELS}",
        ),
        (
            'bonus "More" count 1 when used: gain track PP * 1000000 * 1001 PP',
            f"at most {MAX_VALUE:,}",
        ),
    ],
)
def test_one_past_each_limit_is_one_located_error(tmp_path, capsys, line, fragment):
    refused(tmp_path, capsys, line, fragment)


def test_the_state_json_reads_every_saturated_number_back():
    from hansa.runtime.state_json import TRACK_LIMIT

    assert TRACK_LIMIT == MAX_PP


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2 * MAX_NUMBER))
def test_a_number_in_words_is_accepted_exactly_up_to_the_limit(tmp_path_factory, value):
    path = tmp_path_factory.mktemp("n") / "n.hansa"
    path.write_text(rules_text(f'bonus "N" count 1 when used: gain {value} PP'), "utf-8")
    if value <= MAX_NUMBER:
        hansa.compile_game(str(path), 4, spec_dir=str(SPEC))
    else:
        with pytest.raises(hansa.HansaError, match="numbers go up to"):
            hansa.compile_game(str(path), 4, spec_dir=str(SPEC))


# ---- every limit at once, exactly at its value: checked, built natively, the same on both

AT_LIMITS = (
    BOOK.format(v=MAX_MOVE),
    ACTIONS.format(v=MAX_ABILITY_VALUE),
    f"bonus move_tradesmen(count: {MAX_MOVE}, whose: any) count 2",
    f"bonus extra_actions(count: {MAX_EXTRA_ACTIONS}) count 2",
    # 1,000 * 1,000,000 * 1,000,000 = MAX_VALUE: the track saturates at MAX_PP
    f'bonus "Fortune" count {MAX_MARKERS - BIGBOX_MARKERS - 6} when used:'
    " gain 1000 * 1000000 * 1000000 PP",
    f'bonus "Rush" count 1 when used: gain {MAX_NUMBER} actions',
    f'bonus "Params" count 1 when used: your trader compensation becomes {MAX_PARAM}',
    f'bonus "Stock" count 1 when used: you may take {MAX_NUMBER} pieces from the stock',
    f'bonus "Cities" count 1 when used: your city pp becomes {MAX_PARAM}',
)


def test_values_at_every_limit_are_accepted(tmp_path, capsys):
    accepted(tmp_path, capsys, *AT_LIMITS)
    levels = ", ".join(["1"] * MAX_ABILITY_LEVELS)
    keys = f"ability keys values {levels} covered_by trader full_pp 0 role network_factor"
    accepted(tmp_path, capsys, keys, "pieces traders 200 merchants 4 score_marker trader")


@needs_c_compiler
def test_values_at_every_limit_play_the_same_on_both_backends(tmp_path):
    path = tmp_path / "at_limits.hansa"
    path.write_text(rules_text(*AT_LIMITS), encoding="utf-8")
    native = hansa.compile_game(str(path), 4, spec_dir=str(SPEC), backend="native")
    python = hansa.Game(native.module, 4)
    for policy, games in (("greedy", 6), ("kinds", 2)):
        result = verify(python, native, games, seed=11, policy=policy)
        assert result.divergence is None, result.divergence.report()
    assert sum(python.module.MARKER_COUNT) == MAX_MARKERS
    # the saturating numbers reach their maximum and stay there on both backends
    tracks = []
    for seed in range(3):
        nat = native.new_initial_state(seed)
        native.random_steps(nat, 20_000, seed=seed)
        py = nat.to_python()
        assert max(py.track) <= MAX_PP and py.actions_left <= MAX_ACTIONS_LEFT
        tracks += py.track
        # a saturated position is one the state JSON reads back (its bounds are these)
        assert python.state_from_json(py.to_json()).to_dict() == py.to_dict()
    assert MAX_PP in tracks
    assert MAX_TAKE < 2**15  # the native frame's 16 bits
    results = native.playouts(20, seed=1)
    assert all(r["length"] > 0 for r in results)


def test_decisions_rules_leave_pending_past_the_limit_are_refused(tmp_path, capsys):
    many = ", ".join(["develop an ability"] * (MAX_RULE_DECISIONS + 1))
    refused(
        tmp_path,
        capsys,
        f'bonus "Deep" count 2 when used: {many}',
        f"at most {MAX_RULE_DECISIONS}): this rule adds {MAX_RULE_DECISIONS + 1}",
    )


@needs_c_compiler
def test_a_deep_decision_stack_plays_the_same_on_both_backends(tmp_path):
    """20 pending `develop an ability` decisions: deeper than the 16 frames the native stack used
    to hold whatever the rules (it overflowed); now sized by the rules' decisions."""
    import random

    path = tmp_path / "deep.hansa"
    effects = ", ".join(["develop an ability"] * 20)
    path.write_text(rules_text(f'bonus "Deep" count 2 when used: {effects}'), encoding="utf-8")
    native = hansa.compile_game(str(path), 4, spec_dir=str(SPEC), backend="native")
    python = hansa.Game(native.module, 4)
    seed = 3  # this seed's random game stacks 20 develop decisions
    py, nat = python.new_initial_state(seed), native.new_initial_state(seed)
    rng = random.Random(seed)
    deepest = 0
    for _ in range(50_000):
        legal = py.legal_actions()
        assert legal == nat.legal_actions()
        if py.is_terminal():
            break
        assert legal, "a game that is not over always has a decision"
        action = rng.choice(legal)
        py.apply_action(action)
        nat.apply_action(action)
        deepest = max(deepest, len(py.stack))
    assert deepest == 20
    assert nat.to_python().to_dict() == py.to_dict()
    # a develop decision left with nothing to develop (the tracks filled by the ones before it)
    # is dropped on both backends: the games go on and agree (seed 2 used to stop with no
    # decision, which `hansa verify` met as an IndexError)
    for policy in ("kinds", "uniform"):
        result = verify(python, native, 3, seed=0, policy=policy)
        assert result.divergence is None, result.divergence.report()
