"""`extends`: override per key and per parameter, remove, replace; resolution errors located."""

from __future__ import annotations

import pytest
from clock_support import cpu_seconds
from hansa.compiler.errors import HansaError
from hansa.compiler.nodes.rules import RuleSet
from hansa.compiler.rules.resolve import resolve
from test_rules_lower import ROOT, lower_all, where

BASE = ROOT.replace("EXTRA", "bonus plus_3 = extra_actions(count: 3) count 2")


def resolved(child: str, name: str = "child", child_file: str = "child.hansa") -> RuleSet:
    rulesets, _ = lower_all(BASE, "root.hansa")
    more, _ = lower_all(child, child_file)
    return resolve(name, {**rulesets, **more})


def resolve_error(child: str, name: str = "child") -> HansaError:
    with pytest.raises(HansaError) as info:
        resolved(child, name)
    return info.value


def test_child_without_statements_equals_parent_with_a_new_name():
    parent = resolved("rules child extends root { }", name="root")
    child = resolved("rules child extends root { }")
    assert child.name == "child" and child.extends is None
    assert child.title == parent.title  # inherited when the child gives none
    assert child.abilities == parent.abilities and child.bonus_markers == parent.bonus_markers
    assert child.sources == ("root.hansa", "child.hansa")
    # components keep their defining spans from the parent's file
    assert all(a.span.file == "root.hansa" for a in child.abilities)


def test_override_updates_only_the_parameters_written():
    child = resolved(
        'rules child "House" extends root {\n'
        "    bonus plus_3 count 5\n"
        "    ability keys full_pp 4\n"
        "    pieces traders 30\n"
        "    action create_route east_west_awards 9, 5\n"
        "    score C bonus_markers table { 1: 2, 2+: 5 }\n"
        "    option no_op_actions = legal\n"
        "}\n"
    )
    parent = resolved("rules child extends root { }", name="root")
    plus = next(b for b in child.bonus_markers if b.name == "plus_3")
    assert (plus.kind, plus.params, plus.count, plus.start) == (
        "extra_actions",
        (("count", 3),),
        5,
        0,
    )
    keys = child.abilities[0]
    assert keys.full_pp == 4 and keys.values == parent.abilities[0].values
    assert child.pieces.traders == 30 and child.pieces.merchants == 4
    assert child.actions[4].east_west_awards == (9, 5)
    assert child.actions[4].control_pp == parent.actions[4].control_pp
    assert child.scoring[1].kind == "bonus_markers" and child.scoring[1].param("table") == (
        (1, 2),
        (2, 5),
    )
    assert child.option("no_op_actions") == "legal" and child.title == "House"
    # an overridden component is "defined at" the child's statement; the rest stay at the root
    assert str(plus.span) == "child.hansa:2:5"
    assert str(keys.span) == "child.hansa:3:5"
    assert child.abilities[1].span.file == "root.hansa"
    # the order of components is the parent's
    assert [b.name for b in child.bonus_markers] == [b.name for b in parent.bonus_markers]


def test_new_components_are_appended_and_need_their_required_parameters():
    child = resolved("rules child extends root {\n    score E controlled_cities pp 4\n}\n")
    assert [c.key for c in child.scoring] == ["A", "C", "F", "E"]
    err = resolve_error("rules child extends root {\n    bonus plus_2 = extra_actions count 1\n}\n")
    assert "bonus extra_actions needs parameter count" in err.message
    assert where(err) == "child.hansa:2:5"


def test_remove():
    child = resolved(
        "rules child extends root {\n"
        "    remove bonus plus_3\n"
        "    remove end marker_supply_empty\n"
        "    remove score C\n"
        "}\n"
    )
    assert [b.name for b in child.bonus_markers] == [
        "additional_trading_post",
        "exchange_trading_posts",
        "move_tradesmen",
    ]
    assert [e.kind for e in child.end_triggers] == ["track_pp", "completed_cities"]
    assert [c.key for c in child.scoring] == ["A", "F"]
    err = resolve_error("rules child extends root {\n    remove bonus plus_4\n}\n")
    assert "cannot remove bonus marker plus_4: root has no such bonus marker" in err.message
    assert "did you mean 'plus_3'" in err.message and where(err) == "child.hansa:2:18"


def test_replace_keeps_the_position_and_takes_the_new_span():
    child = resolved(
        "rules child extends root {\n"
        "    replace bonus move_tradesmen with remove_tradesmen(count: 3, whose: opponents,"
        " to: personal) count 2 start 1\n"
        "    replace score F with controlled_cities pp 3\n"
        "    replace end completed_cities with completed_cities >= 8\n"
        "    tiebreak shared\n"
        "}\n"
    )
    assert [(e.kind, e.threshold) for e in child.end_triggers][2] == ("completed_cities", 8)
    removed = child.bonus_markers[2]
    assert (removed.name, removed.kind, removed.count, removed.start) == (
        "remove_tradesmen",
        "remove_tradesmen",
        2,
        1,
    )
    assert removed.params == (("count", 3), ("whose", "opponents"), ("to", "personal"))
    assert str(removed.span) == "child.hansa:2:5"
    assert [b.name for b in child.bonus_markers] == [
        "additional_trading_post",
        "exchange_trading_posts",
        "remove_tradesmen",
        "plus_3",
    ]
    assert (child.scoring[2].key, child.scoring[2].kind, child.scoring[2].params) == (
        "F",
        "controlled_cities",
        (("pp", 3),),
    )
    # the inherited tie-break named score network, which is gone now: resolve refuses it at the
    # child's statement (the tie-break line is the parent's), naming the parent's line
    err = resolve_error("rules child extends root {\n    replace score F with track\n}\n")
    assert "tie-break inherited from root (root.hansa:22)" in err.message
    assert "comparing score 'network'" in err.message
    assert where(err) == "child.hansa:2:19"


def test_replace_errors():
    err = resolve_error(
        "rules child extends root {\n    replace bonus nothing with extra_actions(count: 2)\n}\n"
    )
    assert "cannot replace bonus marker nothing" in err.message and where(err) == "child.hansa:2:19"
    err = resolve_error(
        "rules child extends root {\n    replace bonus plus_3 with move_tradesmen(count: 2)\n}\n"
    )
    assert "bonus marker move_tradesmen already exists" in err.message
    assert where(err) == "child.hansa:2:31"


def test_an_unknown_label_without_a_kind_is_an_unknown_kind():
    err = resolve_error("rules child extends root {\n    bonus plus_33 count 1\n}\n")
    assert "unknown bonus marker kind 'plus_33' (did you mean 'plus_3'?)" in err.message
    assert "labels in root: " in err.message and where(err) == "child.hansa:2:11"


def test_changing_a_kind_needs_replace():
    err = resolve_error("rules child extends root {\n    bonus plus_3 = develop_ability\n}\n")
    assert (
        "bonus marker plus_3 is of kind extra_actions in root, not develop_ability" in err.message
    )
    assert "replace bonus plus_3 with" in err.message and where(err) == "child.hansa:2:11"
    err = resolve_error("rules child extends root {\n    score F track\n}\n")
    assert "score category F is of kind network in root" in err.message


def test_tiebreak_is_replaced_whole_and_options_by_name():
    child = resolved("rules child extends root {\n    tiebreak most ability keys, shared\n}\n")
    assert [(s.rule, s.what, s.name) for s in child.tiebreak] == [
        ("most", "ability", "keys"),
        ("shared", "", ""),
    ]


def test_chains_of_three_and_sources():
    rulesets, _ = lower_all(BASE, "root.hansa")
    middle, _ = lower_all(
        "rules middle extends root {\n    end when track_pp >= 15\n}\n", "m.hansa"
    )
    leaf, _ = lower_all("rules leaf extends middle {\n    bonus plus_3 count 1\n}\n", "l.hansa")
    rs = resolve("leaf", {**rulesets, **middle, **leaf})
    assert rs.sources == ("root.hansa", "m.hansa", "l.hansa")
    assert rs.end_triggers[0].threshold == 15 and str(rs.end_triggers[0].span) == "m.hansa:2:14"
    assert next(b for b in rs.bonus_markers if b.name == "plus_3").count == 1
    assert rs.extends is None and rs.statements == ()


def test_unknown_parent_and_cycles():
    err = resolve_error("rules child extends roots { }")
    assert "unknown rule set 'roots' (did you mean 'root'?)" in err.message
    assert where(err) == "child.hansa:1:21"
    a, _ = lower_all("rules a extends b { }\n", "a.hansa")
    b, _ = lower_all("rules b extends a { }\n", "b.hansa")
    with pytest.raises(HansaError) as info:
        resolve("a", {**a, **b})
    assert "cycle: a → b → a" in info.value.message
    assert where(info.value) == "b.hansa:1:17"
    own, _ = lower_all("rules me extends me { }\n", "me.hansa")
    with pytest.raises(HansaError) as info:
        resolve("me", own)
    assert "cycle" in info.value.message and where(info.value) == "me.hansa:1:18"
    with pytest.raises(HansaError) as info:
        resolve("nobody", own)
    assert "unknown rule set 'nobody'" in info.value.message


def test_a_child_that_removes_a_required_component_is_incomplete():
    err = resolve_error(
        "rules child extends root {\n    remove score A\n    remove score C\n    remove score F\n"
        "    tiebreak shared\n}\n"
    )
    assert "rule set child is incomplete: it declares no `score` category" in err.message
    assert where(err) == "child.hansa:1:1"


def test_all_statement_errors_of_a_child_are_reported():
    err = resolve_error("rules child extends root {\n    remove bonus x\n    remove score Z\n}\n")
    assert [where(err, i) for i in range(len(err.diagnostics))] == [
        "child.hansa:2:18",
        "child.hansa:3:18",
    ]


def chain_project(folder, levels: int):
    """A spec folder whose rule sets extend each other `levels` deep, with one game at the end."""
    from pathlib import Path

    spec = Path(__file__).resolve().parents[2] / "spec"
    (folder / "boards").mkdir()
    (folder / "boards" / "hanseatic_45p.hansa").write_text(
        (spec / "boards" / "hanseatic_45p.hansa").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (folder / "bigbox_2021.hansa").write_text(
        (spec / "bigbox_2021.hansa").read_text(encoding="utf-8"), encoding="utf-8"
    )
    lines = ['rules r0 "chain" extends bigbox_2021 { action create_route control_pp 0 }']
    for i in range(1, levels):
        lines.append(f"rules r{i} extends r{i - 1} {{ action create_route control_pp {i % 3} }}")
    lines.append(f"game chain = r{levels - 1} on hanseatic_45p players 4")
    (folder / "chain.hansa").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return levels - 1


def test_a_2000_level_extends_chain_resolves_in_linear_time(tmp_path):
    """Resolution is iterative (no RecursionError however deep) and folds each link once for the
    whole project (it used to be quadratic: 1,000 levels took 85 s)."""

    from hansa.compiler.project import load_project

    last = chain_project(tmp_path, 2000)
    started = cpu_seconds()
    project = load_project([tmp_path])
    assert [d for d in project.diagnostics if d.severity == "error"] == []
    rules = project.resolved_rulesets[f"r{last}"]
    assert rules.extends is None
    create = next(a for a in rules.actions if type(a).__name__ == "CreateRoute")
    assert create.control_pp == last % 3
    assert create.span.line == last + 1  # the statement that last set it
    assert cpu_seconds() - started < 10  # measured: about 1.5 s


def test_a_long_cycle_is_one_short_error():
    """A cycle through many rule sets is reported once per rule set, in one line with the middle
    of the chain left out, and never overflows the stack."""
    text = "\n".join(f"rules c{i} extends c{(i + 1) % 3000} {{ }}" for i in range(3000))
    rulesets, _ = lower_all(text, "cycle.hansa")
    with pytest.raises(HansaError) as info:
        resolve("c0", rulesets)
    message = info.value.message
    assert message.startswith("rule sets extend each other in a cycle: c0 → c1 →")
    assert "more …" in message and len(message) < 300


def test_check_and_diff_of_a_2000_level_chain(tmp_path, capsys):
    """`hansa check` and `hansa diff` on the chain: no RecursionError, a plain answer."""
    from hansa.cli import main

    last = chain_project(tmp_path, 2000)
    assert main(["check", str(tmp_path)]) == 0
    assert "0 errors" in capsys.readouterr().out
    code = main(["diff", "r2", f"r{last}", "--spec", str(tmp_path)])  # control_pp 2 → 1
    out = capsys.readouterr().out
    assert code == 1, out
    assert "control_pp" in out
