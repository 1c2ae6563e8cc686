"""Whatever `hansa check` accepts plays the same on both backends: rule sets drawn by hypothesis,
with numbers at and just below every bound (docs/rules-language.md, "Limits") and the rules of
`spec/house/`, are checked, built natively and played side by side (`hansa verify`'s comparison:
legal lists, rule counters, state, scores, returns, end triggers); one past a bound is refused."""

from __future__ import annotations

import re
from pathlib import Path

from hansa.compiler.model.sizes import (
    MAX_ABILITY_VALUE,
    MAX_EXTRA_ACTIONS,
    MAX_MOVE,
    MAX_PARAM,
)
from hansa.compiler.syntax.limits import MAX_NUMBER
from hansa.play.differential import verify
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from play_support import needs_c_compiler

import hansa
from hansa.cli import main

SPEC = Path(__file__).resolve().parents[2] / "spec"

# (statement with a hole {v}, the bound of that number)
BOUNDED = (
    ("ability book values 2, 3, 4, {v} covered_by merchant full_pp 4 role move_count", MAX_MOVE),
    (
        "ability actions values 2, 3, 3, 4, 4, {v} covered_by trader full_pp 4"
        " role actions_per_turn",
        MAX_ABILITY_VALUE,
    ),
    ("bonus move_tradesmen(count: {v}, whose: any) count 2", MAX_MOVE),
    ("bonus extra_actions(count: {v}) count 2", MAX_EXTRA_ACTIONS),
    ('bonus "Fortune" count 2 when used: gain {v} PP', MAX_NUMBER),
    ('bonus "Rush" count 1 when used: gain {v} actions', MAX_NUMBER),
    ('bonus "Params" count 1 when used: your trader compensation becomes {v}', MAX_PARAM),
    ('bonus "Stock" count 1 when used: you may take {v} pieces from the stock', MAX_NUMBER),
)
# Statements of one kind a rule set holds once (a second one replaces or conflicts)
ONCE = ("end when", "control", "tiebreak", "replace score", "action displace")


def _house_statements() -> list[str]:
    """The statements of the house rules' rule sets (not their boards), continuations joined."""
    statements = []
    for path in sorted((SPEC / "house").glob("*.hansa")):
        text = path.read_text(encoding="utf-8")
        for body in re.findall(r"^rules [^{]*\{\n(.*?)^\}", text, re.M | re.S):
            if re.search(r"^ *(counter|flag) ", body, re.M):  # its rules read what it declares
                statements.append("\n    ".join(line.strip() for line in body.splitlines()))
                continue
            for line in body.splitlines():
                if line.startswith("        ") and statements:
                    statements[-1] += " " + line.strip()
                elif line.strip() and not line.strip().startswith("#"):
                    statements.append(line.strip())
    return statements


HOUSE = _house_statements()


def _rules_text(lines: list[str]) -> str:
    body = "\n".join(f"    {line}" for line in lines)
    return (
        f'rules drawn "drawn" extends bigbox_2021 {{\n{body}\n}}\n'
        "game drawn-hanseatic-45p = drawn on hanseatic_45p players 4..5\n"
    )


@st.composite
def rule_sets(draw) -> tuple[list[str], tuple[str, int]]:
    """(statements at or just below their bounds and some house rules, one bounded statement
    with its number one past the bound)."""
    lines = []
    for template, bound in BOUNDED:
        if draw(st.booleans()):
            lines.append(template.format(v=draw(st.sampled_from((bound - 1, bound)))))
    house = draw(st.lists(st.sampled_from(HOUSE), max_size=3, unique=True))
    for statement in house:
        kind = next((k for k in ONCE if statement.startswith(k)), None)
        if kind is None or not any(line.startswith(kind) for line in lines):
            lines.append(statement)
    return lines, draw(st.sampled_from(BOUNDED))


def test_the_house_statements_are_found():
    assert len(HOUSE) >= 15
    assert any(s.startswith("at turn start:") and "max track PP" in s for s in HOUSE)


@needs_c_compiler
@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(rule_sets())
def test_rule_sets_at_the_bounds_play_the_same_on_both_backends(tmp_path_factory, drawn):
    lines, (template, bound) = drawn
    folder = tmp_path_factory.mktemp("drawn")
    path = folder / "drawn.hansa"
    path.write_text(_rules_text(lines), encoding="utf-8")
    assert main(["check", str(path)]) == 0, lines
    native = hansa.compile_game(str(path), 4, spec_dir=str(SPEC), backend="native")
    python = hansa.Game(native.module, 4)
    for policy, games in (("greedy", 2), ("kinds", 1)):
        result = verify(python, native, games, seed=21, policy=policy)
        assert result.divergence is None, (lines, result.divergence.report())
    past = folder / "past.hansa"
    past.write_text(_rules_text([template.format(v=bound + 1)]), encoding="utf-8")
    # one located error (tests/games/test_bounds.py words it)
    assert main(["check", str(past)]) == 1
