"""Properties of the rules language: overrides touch exactly what they name; any input either
lowers or fails with a located HansaError (never another exception)."""

from __future__ import annotations

import functools
from pathlib import Path

from hansa.compiler.errors import HansaError
from hansa.compiler.rules.catalogue import spec_text
from hansa.compiler.rules.checks import check_ruleset
from hansa.compiler.rules.lower import lower_rules
from hansa.compiler.rules.resolve import resolve
from hansa.compiler.syntax.parser import parse_text
from hypothesis import given, settings
from hypothesis import strategies as st
from test_rules_lower import lower_all

SPEC = Path(__file__).resolve().parents[2] / "spec" / "bigbox_2021.hansa"
BIGBOX_TEXT = SPEC.read_text(encoding="utf-8")


@functools.cache
def bigbox() -> dict:
    """The Big Box rule set, lowered once per process, on first use."""
    tree = parse_text(BIGBOX_TEXT, "bb.hansa")
    return {"bigbox_2021": lower_rules(tree.children[0], "bb.hansa")}


@functools.cache
def parent():
    return resolve("bigbox_2021", bigbox())


# create_route parameters and strategies for values of their types
CREATE_ROUTE = {
    "control_pp": st.integers(0, 9),
    "control_tie": st.sampled_from(["rightmost_post", "nobody"]),
    "coin_pp": st.booleans(),
    "establish_trading_post": st.booleans(),
    "develop_ability": st.booleans(),
    "special_prestige": st.booleans(),
    "east_west_awards": st.lists(st.integers(0, 9), min_size=1, max_size=4).map(
        lambda xs: tuple(sorted(xs, reverse=True))
    ),
}


@settings(max_examples=60, deadline=None)
@given(st.fixed_dictionaries({}, optional=CREATE_ROUTE), st.integers(1, 5), st.integers(20, 40))
def test_an_override_changes_exactly_the_parameters_it_names(overrides, develop_count, traders):
    clauses = " ".join(f"{k} {spec_text(v)}" for k, v in overrides.items())
    text = (
        "rules child extends bigbox_2021 {\n"
        f"    action create_route {clauses}\n"
        f"    bonus develop_ability count {develop_count}\n"
        f"    pieces traders {traders}\n"
        "}\n"
    )
    rulesets, _ = lower_all(text, "child.hansa")
    child = resolve("child", {**bigbox(), **rulesets})
    parent_route, child_route = parent().actions[4], child.actions[4]
    for name in CREATE_ROUTE:
        expected = overrides.get(name, getattr(parent_route, name))
        assert getattr(child_route, name) == expected, name
    assert str(child_route.span) == "child.hansa:2:5"
    develop = next(b for b in child.bonus_markers if b.kind == "develop_ability")
    assert (develop.count, develop.start, develop.params) == (
        develop_count,
        0,
        (("ability", "any"),),
    )
    assert child.pieces.traders == traders and child.pieces.merchants == 4
    # everything not named keeps the parent's value and the parent's span
    assert child.abilities == parent().abilities
    assert [a.span for a in child.abilities] == [a.span for a in parent().abilities]
    assert child.actions[:4] == parent().actions[:4] and child.scoring == parent().scoring


TOKENS = [
    "rules", "game", "extends", "{", "}", "(", ")", ",", ":", "=", "..", "+", ">=", "|",
    "pieces", "setup", "markers", "ability", "action", "bonus", "end", "when", "score",
    "tiebreak", "option", "remove", "replace", "with", "fewest", "most", "shared", "on", "players",
    "keys", "actions", "values", "covered_by", "trader", "merchant", "count", "start", "yes", "no",
    "displace", "cost", "extra_actions", "move_tradesmen", "track_pp", "table", "A", "network",
    "board", "x", "bigbox_2021", "hanseatic_45p", "0", "1", "3", "20", '"t"', '"a\\"b"', "\n",
]  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=40), st.booleans())
def test_any_token_soup_lowers_or_fails_with_a_located_error(tokens, wrap):
    body = " ".join(tokens)
    text = f"rules x extends bigbox_2021 {{\n {body}\n}}\n" if wrap else body
    try:
        rulesets, _ = lower_all(text, "soup.hansa")
        for name in rulesets:
            resolved = resolve(name, {**bigbox(), **rulesets})
            check_ruleset(resolved)
    except HansaError as err:
        for d in err.diagnostics:
            assert d.message
            assert d.span is not None and d.span.file == "soup.hansa"


WORDS = BIGBOX_TEXT.split(" ")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(WORDS) - 1), st.sampled_from([*TOKENS, ""])),
        min_size=1,
        max_size=3,
    )
)
def test_mutated_bigbox_lowers_or_fails_with_a_located_error(edits):
    words = list(WORDS)
    for index, token in edits:
        words[index] = token
    text = " ".join(words)
    try:
        rulesets, _ = lower_all(text, "mutant.hansa")
        for name in rulesets:
            check_ruleset(resolve(name, rulesets))
    except HansaError as err:
        for d in err.diagnostics:
            assert d.message
            assert d.span is not None and d.span.file == "mutant.hansa"
