"""The semantic diff engine on IR objects: reference JSON boards, rule sets built by hand."""

from __future__ import annotations

import dataclasses
import functools
import json
import random
from pathlib import Path

import pytest
from hansa.compiler.board.json_io import load_board_json
from hansa.compiler.diff.edits import (
    Side,
    diff,
    diff_boards,
    diff_games,
    diff_rulesets,
    format_json,
    format_markdown,
    format_text,
    table_changes,
)
from hansa.compiler.errors import Span
from hansa.compiler.nodes.board import Board, Route
from hansa.compiler.nodes.rules import (
    Ability,
    BonusMarker,
    CreateRoute,
    Displace,
    EndTrigger,
    Game,
    Income,
    MarkerRules,
    Move,
    Option,
    Pieces,
    Place,
    RuleSet,
    ScoreCategory,
    Setup,
    TieBreakStep,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

BOARDS = Path(__file__).resolve().parents[1] / "fixtures" / "boards"


def board(name: str) -> Board:
    return load_board_json(BOARDS / f"{name}.json")


def at(line: int, file: str = "a.hansa") -> Span:
    return Span(file, line, 5)


def bigbox(file: str = "bigbox.hansa") -> RuleSet:
    """RULES.md §§2–7 as a resolved rule set, every node with a span in `file`."""
    return RuleSet(
        name="bigbox_2021",
        title="Big Box",
        pieces=Pieces(27, 4, "trader", span=at(2, file)),
        setup=Setup(4, 1, 1, span=at(3, file)),
        abilities=(
            Ability("keys", (1, 2, 2, 3, 4), "trader", 0, "network_factor", span=at(4, file)),
            Ability(
                "actions", (2, 3, 3, 4, 4, 5), "trader", 4, "actions_per_turn", span=at(5, file)
            ),
            Ability(
                "privilege",
                ("white", "orange", "pink", "black"),
                "trader",
                4,
                "post_privilege",
                span=at(6, file),
            ),
            Ability("book", (2, 3, 4, 5), "merchant", 4, "move_count", span=at(7, file)),
            Ability("bank", (3, 5, 7, "all"), "trader", 4, "income", span=at(8, file)),
        ),
        actions=(
            Income(span=at(9, file)),
            Place(span=at(10, file)),
            Displace(span=at(11, file)),
            Move(span=at(12, file)),
            CreateRoute(span=at(13, file)),
        ),
        bonus_markers=(
            BonusMarker("additional_trading_post", (), 4, 1, span=at(14, file)),
            BonusMarker(
                "exchange_trading_posts", (("must_own_one", True),), 3, 1, span=at(15, file)
            ),
            BonusMarker("extra_actions", (("count", 3),), 2, 0, span=at(16, file)),
            BonusMarker("extra_actions", (("count", 4),), 2, 0, span=at(17, file)),
            BonusMarker("develop_ability", (("ability", "any"),), 2, 0, span=at(18, file)),
            BonusMarker(
                "move_tradesmen",
                (("count", 3), ("whose", "opponents")),
                2,
                1,
                span=at(19, file),
            ),
        ),
        marker_rules=MarkerRules(span=at(20, file)),
        end_triggers=(
            EndTrigger("track_pp", 20, span=at(21, file)),
            EndTrigger("marker_supply_empty", span=at(21, file)),
            EndTrigger("completed_cities", None, span=at(21, file)),
        ),
        scoring=(
            ScoreCategory("A", "track", span=at(22, file)),
            ScoreCategory("B", "full_abilities", span=at(23, file)),
            ScoreCategory(
                "C",
                "bonus_markers",
                (("table", ((1, 1), (2, 3), (4, 6), (6, 10), (8, 15), (10, 21))),),
                span=at(24, file),
            ),
            ScoreCategory("D", "special_prestige", span=at(25, file)),
            ScoreCategory("E", "controlled_cities", (("pp", 2),), span=at(26, file)),
            ScoreCategory("F", "network", span=at(27, file)),
        ),
        tiebreak=(
            TieBreakStep("fewest", "ability", "actions", span=at(28, file)),
            TieBreakStep("most", "score", "network", span=at(28, file)),
            TieBreakStep("shared", span=at(28, file)),
        ),
        options=(
            Option("displaced_extra_kind", "owner", span=at(29, file)),
            Option("move_must_replace_all", True, span=at(30, file)),
        ),
        span=at(1, file),
    )


def original(file: str = "original.hansa") -> RuleSet:
    """RULES.md §11 applied to `bigbox`: markers and tie-break differ, the rest is the same."""
    base = bigbox(file)
    markers = (
        BonusMarker("additional_trading_post", (), 5, 1, span=at(40, file)),
        BonusMarker("exchange_trading_posts", (("must_own_one", False),), 2, 1, span=at(41, file)),
        base.bonus_markers[2],
        base.bonus_markers[3],
        BonusMarker("develop_ability", (("ability", "any"),), 3, 0, span=at(42, file)),
        BonusMarker(
            "remove_tradesmen",
            (("count", 3), ("whose", "opponents"), ("to", "personal")),
            2,
            1,
            span=at(43, file),
        ),
    )
    return dataclasses.replace(
        base,
        name="original_2009",
        title="Original",
        bonus_markers=markers,
        tiebreak=(TieBreakStep("shared", span=at(44, file)),),
    )


def messages(edits) -> list[str]:
    return [e.describe() for e in edits]


# ------------------------------------------------------------------------------------ rule sets


def test_editions_differ_in_markers_and_tiebreak_only():
    edits = diff_rulesets(original(), bigbox())
    assert messages(edits) == [
        "bonus marker 'remove 3 tradesmen' replaced by 'move 3 tradesmen' "
        "(whose: opponents; count 2, start 1)",
        "bonus marker 'additional trading post': count 5 → 4",
        "bonus marker 'develop ability': count 3 → 2",
        "bonus marker 'exchange trading posts': must_own_one no → yes",
        "bonus marker 'exchange trading posts': count 2 → 3",
        "tie-break step 1 'fewest ability actions' added",
        "tie-break step 2 'most score network' added",
    ]
    assert {e.area for e in edits} == {"bonus markers", "tie-break"}


def test_edits_name_both_definitions():
    edits = diff_rulesets(original(), bigbox())
    replaced = edits[0]
    assert replaced.op == "replaced"
    assert replaced.old_at == at(43, "original.hansa")
    assert replaced.new_at == at(19, "bigbox.hansa")
    count = edits[1]
    assert (count.old_at.file, count.old_at.line) == ("original.hansa", 40)
    assert (count.new_at.file, count.new_at.line) == ("bigbox.hansa", 14)
    added = [e for e in edits if e.op == "added"][0]
    assert added.old_at is None and added.new_at == at(28, "bigbox.hansa")


def test_replacement_needs_matching_count_and_start():
    a = bigbox()
    swap = dataclasses.replace(
        a.bonus_markers[5],
        kind="remove_tradesmen",
        params=(("count", 3), ("whose", "any"), ("to", "stock")),
        count=1,
    )
    b = dataclasses.replace(a, bonus_markers=a.bonus_markers[:5] + (swap,))
    ops = sorted(e.op for e in diff_rulesets(a, b))
    assert ops == ["added", "removed"]


def test_parameter_and_table_row_changes():
    a = bigbox()
    scoring = list(a.scoring)
    scoring[2] = dataclasses.replace(
        scoring[2], params=(("table", ((1, 1), (2, 3), (4, 7), (6, 10), (8, 15), (10, 21))),)
    )
    b = dataclasses.replace(
        a,
        pieces=dataclasses.replace(a.pieces, traders=25),
        actions=a.actions[:2] + (Displace(cost=(("trader", 1), ("merchant", 3))),) + a.actions[3:],
        scoring=tuple(scoring),
    )
    assert messages(diff_rulesets(a, b)) == [
        "pieces: traders 27 → 25",
        "action 'displace': cost merchant 2 → 3",
        "score C 'bonus_markers': 4-5 markers: 6 → 7 PP",
    ]


def test_table_rows_added_and_removed():
    a = bigbox()
    scoring = list(a.scoring)
    scoring[2] = dataclasses.replace(scoring[2], params=(("table", ((1, 1), (2, 3), (12, 30))),))
    b = dataclasses.replace(a, scoring=tuple(scoring))
    edits = diff_rulesets(a, b)
    assert [(e.field, e.old, e.new) for e in edits] == [
        ("4-5 markers", 6, 3),
        ("6-7 markers", 10, 3),
        ("8-9 markers", 15, 3),
        ("10-11 markers", 21, 3),
        ("12+ markers", 21, 30),
    ]


def test_a_table_is_compared_as_a_function_of_the_count():
    """A new `4+: 9` row that replaces the rows above 4 is one change per count range, not
    'row 6 10 → none' (the issue's example); rows that give the same PP are no change."""
    a = bigbox()
    scoring = list(a.scoring)
    scoring[2] = dataclasses.replace(scoring[2], params=(("table", ((1, 1), (2, 3), (4, 9))),))
    b = dataclasses.replace(a, scoring=tuple(scoring))
    assert messages(diff_rulesets(a, b)) == [
        "score C 'bonus_markers': 4-5 markers: 6 → 9 PP",
        "score C 'bonus_markers': 6-7 markers: 10 → 9 PP",
        "score C 'bonus_markers': 8-9 markers: 15 → 9 PP",
        "score C 'bonus_markers': 10+ markers: 21 → 9 PP",
    ]
    same = dataclasses.replace(
        scoring[2],
        params=(("table", ((1, 1), (2, 3), (3, 3), (4, 6), (6, 10), (8, 15), (10, 21))),),
    )
    scoring[2] = same
    assert diff_rulesets(a, dataclasses.replace(a, scoring=tuple(scoring))) == []
    assert table_changes({1: 1, 6: 10}, {1: 1, 6: 9}) == [(6, None, 10, 9)]
    assert table_changes({1: 1, 6: 10, 7: 12}, {1: 1, 6: 9, 7: 12}) == [(6, 6, 10, 9)]


def test_components_added_removed_and_options():
    a = bigbox()
    b = dataclasses.replace(
        a,
        actions=a.actions[:3] + a.actions[4:],
        end_triggers=(EndTrigger("track_pp", 25),) + a.end_triggers[1:],
        options=(Option("displaced_extra_kind", "displacer"), Option("new_rule", 3)),
        marker_rules=None,
    )
    assert messages(diff_rulesets(a, b)) == [
        "action 'move' removed",
        "marker rules removed",
        "end trigger 'track_pp': threshold 20 → 25",
        "option 'displaced_extra_kind': value owner → displacer",
        "option 'move_must_replace_all' removed (value yes)",
        "option 'new_rule' added (value 3)",
    ]


def test_order_of_declarations_and_spans_are_no_difference():
    a = bigbox("one.hansa")
    rng = random.Random(5)

    def shuffled(items):
        items = list(items)
        rng.shuffle(items)
        return tuple(items)

    b = dataclasses.replace(
        bigbox("two.hansa"),
        abilities=shuffled(a.abilities),
        actions=shuffled(a.actions),
        bonus_markers=shuffled(a.bonus_markers),
        end_triggers=shuffled(a.end_triggers),
        scoring=shuffled(a.scoring),
        options=shuffled(a.options),
        name="renamed",
        title="another title",
    )
    assert diff_rulesets(a, b) == []


def test_tiebreak_order_matters():
    a = bigbox()
    b = dataclasses.replace(a, tiebreak=(a.tiebreak[1], a.tiebreak[0], a.tiebreak[2]))
    assert diff_rulesets(a, b) != []


# ------------------------------------------------------------------------------------ boards


def test_board_sides_differ_as_printed():
    edits = diff_boards(board("hanseatic_3p"), board("hanseatic_45p"))
    text = messages(edits)
    assert "board: players 3 → 4, 5" in text
    assert "route 'Emden -- Stade' added (points 3 house)" in text
    assert "city 'Stade', space 1: coin 1 → 0" in text
    assert "city 'Bremen', space 2 added (square pink)" in text
    assert all(e.area in {"board", "cities", "routes"} for e in edits)


def test_board_equal_to_itself_and_ignores_positions():
    a = board("eastern")
    moved = dataclasses.replace(
        a,
        cities=tuple(dataclasses.replace(c, position=(0.5, 0.5), aliases=()) for c in a.cities),
        verification=(),
        frame=None,
    )
    assert diff_boards(a, moved) == []


def test_route_orientation_is_no_difference_but_points_are_read_consistently():
    a = board("britannia_45p")
    sea = next(r for r in a.routes if r.permanent_bonus == "place_2_tradesmen_in_wales_or_scotland")
    flipped = Route(
        (sea.cities[1], sea.cities[0]),
        sea.points[::-1],
        sea.tavern,
        sea.permanent_bonus,
        sea.country,
    )
    b = dataclasses.replace(a, routes=tuple(flipped if r is sea else r for r in a.routes))
    assert diff_boards(a, b) == []
    changed = dataclasses.replace(flipped, points=sea.points)  # now genuinely different
    c = dataclasses.replace(a, routes=tuple(changed if r is sea else r for r in a.routes))
    assert [e.field for e in diff_boards(a, c)] == ["points"]


def test_route_attributes():
    a = board("hanseatic_45p")
    first = a.routes[0]
    edited = dataclasses.replace(first, tavern=not first.tavern, points=first.points + ("any",))
    b = dataclasses.replace(a, routes=(edited,) + a.routes[1:])
    name = f"route '{first.cities[0]} -- {first.cities[1]}'"
    assert sorted(messages(diff_boards(a, b))) == sorted(
        [
            f"{name}: points {len(first.points)} house → {len(first.points) + 1} house",
            f"{name}: tavern {'yes' if first.tavern else 'no'} → {'no' if first.tavern else 'yes'}",
        ]
    )


def test_britannia_country_facts():
    edits = diff_boards(board("britannia_3p"), board("britannia_45p"))
    text = messages(edits)
    assert "board: countries england, wales → england, wales, scotland" in text
    assert "city 'London': permissions wales → scotland, wales" in text
    assert "route 'Carlisle -- Isle of Man': permanent_bonus move_2_any_tradesmen → none" in text


# ------------------------------------------------------------------------------------ games


def test_games_compare_declaration_rules_and_board():
    ga = Game("orig-hanseatic-3p", "original_2009", "hanseatic_3p", (3,), span=at(1, "g.hansa"))
    gb = Game("bb-hanseatic-45p", "bigbox_2021", "hanseatic_45p", (4, 5), span=at(2, "g.hansa"))
    edits = diff_games(ga, gb, original(), bigbox(), board("hanseatic_3p"), board("hanseatic_45p"))
    text = messages(edits)
    assert text[:3] == [
        "game: rules original_2009 → bigbox_2021",
        "game: board hanseatic_3p → hanseatic_45p",
        "game: players 3 → 4, 5",
    ]
    areas = [e.area for e in edits]
    assert areas.index("cities") < areas.index("bonus markers")
    assert len(edits) == 3 + len(diff_rulesets(original(), bigbox())) + len(
        diff_boards(board("hanseatic_3p"), board("hanseatic_45p"))
    )


def test_diff_refuses_mixed_kinds():
    with pytest.raises(TypeError):
        diff(bigbox(), board("eastern"))


# ------------------------------------------------------------------------------------ reports


def test_reports():
    a_side, b_side = Side("rules", "original_2009", "o.hansa"), Side("rules", "bigbox_2021")
    edits = diff_rulesets(original(), bigbox())
    text = format_text(edits, a_side, b_side)
    assert "7 differences" in text and "\nbonus markers\n" in text and "\033[" not in text
    assert "A: original.hansa:43   B: bigbox.hansa:19" in text
    assert "\033[" in format_text(edits, a_side, b_side, color=True)
    doc = json.loads(format_json(edits, a_side, b_side))
    assert doc["schema_version"] == 1 and doc["equal"] is False
    first = doc["edits"][0]
    assert first["op"] == "replaced"
    assert first["old_at"] == {"file": "original.hansa", "line": 43, "column": 5}
    assert first["path"] == ["bonus_marker:remove_tradesmen,count=3,to=personal,whose=opponents"]
    md = format_markdown(edits, a_side, b_side)
    assert md.count("\n| ") == len(edits) + 1
    assert "no differences" in format_text([], a_side, b_side)
    assert json.loads(format_json([], a_side, b_side))["edits"] == []


# ------------------------------------------------------------------------------------ properties

# Fields that identify an item (changing them is a rename, not a parameter change) or are ignored.
IDENTITY = {
    ("HookRule", "key"),  # a rule in words is identified by its key
    ("HookRule", "label"),  # … and named by its label
    ("TieBreakStep", "expr"),  # compared through its text, the step's name
    ("City", "name"),
    ("Ability", "name"),
    ("Option", "name"),
    ("EndTrigger", "kind"),
    ("ScoreCategory", "kind"),
    ("BonusMarker", "kind"),
    ("BonusMarker", "name"),
    ("Route", "cities"),
    ("SpecialPrestige", "city"),
    ("RuleSet", "name"),
    ("RuleSet", "title"),
    ("RuleSet", "extends"),
    ("Board", "id"),
    ("Board", "title"),
    ("Board", "side"),
    ("Board", "verification"),
    ("Board", "frame"),
    ("Board", "frame_note"),
    ("Board", "allow_disconnected"),
    ("City", "position"),
    ("City", "aliases"),
    ("Route", "sea"),
}


def leaves(node, path=()):
    """Every scalar parameter of an IR tree, as a path of field names / indexes."""
    if dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            if f.compare and (type(node).__name__, f.name) not in IDENTITY:
                yield from leaves(getattr(node, f.name), path + (f.name,))
    elif isinstance(node, tuple):
        for i, item in enumerate(node):
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str | int):
                yield from leaves(item[1], path + (i, 1))  # a mapping entry: its value only
            else:
                yield from leaves(item, path + (i,))
    elif isinstance(node, bool | int | str):
        yield path, node


def replace_at(node, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(head, str):
        return dataclasses.replace(node, **{head: replace_at(getattr(node, head), rest, value)})
    items = list(node)
    items[head] = replace_at(items[head], rest, value)
    return tuple(items)


def other_value(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1000
    return value + "_changed"


@functools.cache
def rule_leaves() -> list:
    return list(leaves(bigbox()))


BOARD_NAMES = ["hanseatic_3p", "hanseatic_45p", "eastern", "britannia_3p", "britannia_45p"]


@functools.cache
def reference_board(name: str) -> Board:
    """`board(name)`, read once per process, on first use."""
    return board(name)


PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(st.deferred(lambda: st.sampled_from(rule_leaves())))
def test_one_changed_rule_parameter_is_one_edit(leaf):
    path, value = leaf
    a = bigbox()
    b = replace_at(a, path, other_value(value))
    edits = diff_rulesets(a, b)
    assert len(edits) == 1, (path, messages(edits))
    assert edits[0].op in ("changed", "replaced")


@PROPS
@given(st.sampled_from(BOARD_NAMES), st.data())
def test_one_changed_board_fact_is_one_edit(name, data):
    a = reference_board(name)
    path, value = data.draw(st.sampled_from(list(leaves(a))))
    b = replace_at(a, path, other_value(value))
    edits = diff_boards(a, b)
    assert len(edits) == 1, (path, messages(edits))


def mutate_rules(rules: RuleSet, rng: random.Random, steps: int) -> RuleSet:
    """Random edits: parameters changed, components dropped, markers swapped, order shuffled."""
    all_leaves = list(leaves(rules))
    for _ in range(steps):
        choice = rng.randrange(4)
        if choice == 0:
            path, value = rng.choice(all_leaves)
            try:
                rules = replace_at(rules, path, other_value(value))
            except (IndexError, AttributeError):
                continue
            all_leaves = list(leaves(rules))
        elif choice == 1:
            field = rng.choice(["abilities", "actions", "bonus_markers", "scoring", "options"])
            items = list(getattr(rules, field))
            if items:
                items.pop(rng.randrange(len(items)))
            rules = dataclasses.replace(rules, **{field: tuple(items)})
            all_leaves = list(leaves(rules))
        elif choice == 2:
            new = BonusMarker("remove_tradesmen", (("count", rng.randint(1, 4)),), 2, 1)
            rules = dataclasses.replace(rules, bonus_markers=rules.bonus_markers + (new,))
            all_leaves = list(leaves(rules))
        else:
            items = list(rules.bonus_markers)
            rng.shuffle(items)
            rules = dataclasses.replace(rules, bonus_markers=tuple(items))
    return rules


def canonical(edits) -> list[str]:
    return sorted(json.dumps(e.to_json(), sort_keys=True, ensure_ascii=False) for e in edits)


@PROPS
@given(st.integers(0, 2**32 - 1), st.integers(0, 6), st.integers(0, 6))
def test_rule_diffs_are_inverse_and_self_diff_empty(seed, steps_a, steps_b):
    rng = random.Random(seed)
    a = mutate_rules(bigbox("a.hansa"), rng, steps_a)
    b = mutate_rules(bigbox("b.hansa"), rng, steps_b)
    assert diff_rulesets(a, a) == []
    assert diff_rulesets(b, b) == []
    forward = diff_rulesets(a, b)
    backward = diff_rulesets(b, a)
    assert canonical(e.inverse() for e in forward) == canonical(backward)
    assert len(forward) == len(backward)


@PROPS
@given(st.sampled_from(BOARD_NAMES), st.sampled_from(BOARD_NAMES))
def test_board_diffs_are_inverse_and_self_diff_empty(name_a, name_b):
    a, b = reference_board(name_a), reference_board(name_b)
    assert diff_boards(a, a) == []
    forward, backward = diff_boards(a, b), diff_boards(b, a)
    assert canonical(e.inverse() for e in forward) == canonical(backward)
    for e in forward:
        inverse = {"added": "removed", "removed": "added"}.get(e.op, e.op)
        assert inverse in {x.op for x in backward}


# ---------------------------------------------------------------------------------- the spec files


@pytest.fixture(scope="module")
def spec_project():
    from hansa.compiler.project import load_project

    project = load_project([Path(__file__).resolve().parents[2] / "spec"])
    assert not project.errors, project.format_diagnostics(project.errors)
    return project


def resolved(project, name: str) -> RuleSet:
    from hansa.compiler.rules.resolve import resolve

    return resolve(name, project.rulesets)


def test_spec_declarations_equal_themselves_and_pairs_are_inverse(spec_project):
    rules = [resolved(spec_project, name) for name in sorted(spec_project.rulesets)]
    boards = [spec_project.boards[name] for name in sorted(spec_project.boards)]
    for group, differ in ((rules, diff_rulesets), (boards, diff_boards)):
        for a in group:
            assert differ(a, a) == []
            for b in group:
                forward, backward = differ(a, b), differ(b, a)
                assert canonical(e.inverse() for e in forward) == canonical(backward)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_one_changed_parameter_of_the_spec_editions_is_one_edit(spec_project, data):
    name = data.draw(st.sampled_from(sorted(spec_project.rulesets)))
    a = resolved(spec_project, name)
    path, value = data.draw(st.sampled_from(list(leaves(a))))
    every = diff_rulesets(a, replace_at(a, path, other_value(value)))
    # "places named" is derived from the rules in words (which boards the rule set needs): it
    # comes only with an edit of those rules, and is not counted as a change of its own
    edits = [e for e in every if e.area != "places named"]
    assert len(edits) == 1, (path, messages(every))
    assert len(edits) == len(every) or edits[0].area == "rules in words", messages(every)
    # The edit points at side A's definition of the changed item.
    assert edits[0].old_at is not None and edits[0].old_at.file.endswith(".hansa")


def test_east_west_order_and_restated_sea_are_no_difference():
    a = board("eastern")
    sea = next(r for r in a.routes if r.is_sea)
    b = dataclasses.replace(
        a,
        east_west=(a.east_west[1], a.east_west[0]),
        routes=tuple(dataclasses.replace(r, sea=True) if r is sea else r for r in a.routes),
    )
    assert diff_boards(a, b) == []
    c = dataclasses.replace(
        a, routes=tuple(dataclasses.replace(r, sea=False) if r is sea else r for r in a.routes)
    )
    assert [(e.field, e.old, e.new) for e in diff_boards(a, c)] == [("sea", None, False)]


def test_ability_and_score_replacements():
    a = bigbox()
    treasury = Ability("treasury", (2, 4, 6, "all"), "trader", 4, "income")
    network = ScoreCategory("F", "largest_network", (("pp", 1),))
    b = dataclasses.replace(
        a, abilities=a.abilities[:4] + (treasury,), scoring=a.scoring[:5] + (network,)
    )
    assert messages(diff_rulesets(a, b)) == [
        "ability 'bank' replaced by 'treasury' (values 2, 4, 6, all)",
        "score F 'network' replaced by 'largest_network' (pp 1)",
    ]


def mutate_board(b: Board, rng: random.Random, steps: int) -> Board:
    """Random edits: facts changed, cities and routes dropped, routes flipped, order shuffled."""
    for _ in range(steps):
        choice = rng.randrange(5)
        if choice == 0:
            path, value = rng.choice(list(leaves(b)))
            b = replace_at(b, path, other_value(value))
        elif choice == 1 and b.cities:
            cities = list(b.cities)
            cities.pop(rng.randrange(len(cities)))
            b = dataclasses.replace(b, cities=tuple(cities))
        elif choice == 2 and b.routes:
            routes = list(b.routes)
            routes.pop(rng.randrange(len(routes)))
            b = dataclasses.replace(b, routes=tuple(routes))
        elif choice == 3 and b.routes:
            i = rng.randrange(len(b.routes))
            r = b.routes[i]
            flipped = dataclasses.replace(r, cities=r.cities[::-1], points=r.points[::-1])
            b = dataclasses.replace(b, routes=b.routes[:i] + (flipped,) + b.routes[i + 1 :])
        else:
            cities, routes = list(b.cities), list(b.routes)
            rng.shuffle(cities)
            rng.shuffle(routes)
            b = dataclasses.replace(b, cities=tuple(cities), routes=tuple(routes))
    return b


@PROPS
@given(st.sampled_from(BOARD_NAMES), st.integers(0, 2**32 - 1), st.integers(0, 5))
def test_mutated_board_diffs_are_inverse(name, seed, steps):
    rng = random.Random(seed)
    a = reference_board(name)
    b = mutate_board(a, rng, steps)
    forward, backward = diff_boards(a, b), diff_boards(b, a)
    assert canonical(e.inverse() for e in forward) == canonical(backward)
    assert diff_boards(b, b) == []
    if steps == 0:
        assert forward == []


def test_flipped_and_shuffled_board_is_equal():
    a = reference_board("britannia_45p")
    rng = random.Random(3)
    routes = [
        dataclasses.replace(r, cities=r.cities[::-1], points=r.points[::-1]) for r in a.routes
    ]
    rng.shuffle(routes)
    cities = list(a.cities)
    rng.shuffle(cities)
    b = dataclasses.replace(a, routes=tuple(routes), cities=tuple(cities))
    assert diff_boards(a, b) == []


@pytest.mark.parametrize("name", BOARD_NAMES)
def test_reference_json_and_spec_board_are_equal(spec_project, name):
    """The imported spec boards say what the reference data says (drawing aids aside)."""
    assert diff_boards(reference_board(name), spec_project.boards[name]) == []


@dataclasses.dataclass(frozen=True)
class MovePawn:
    """A component the diff has never heard of (as a later IR addition would be)."""

    borders: int = 2
    span: Span = dataclasses.field(default=at(50), compare=False)


def test_components_unknown_to_the_diff_are_walked_generically():
    a = bigbox()
    b = dataclasses.replace(a, actions=a.actions + (MovePawn(),))
    c = dataclasses.replace(a, actions=(MovePawn(3),) + a.actions)
    assert messages(diff_rulesets(a, b)) == ["move pawn added"]
    assert messages(diff_rulesets(b, c)) == ["move pawn: borders 2 → 3"]
    assert diff_rulesets(b, dataclasses.replace(b, actions=b.actions[::-1])) == []
