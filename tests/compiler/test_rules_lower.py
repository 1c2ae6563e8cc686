"""Rules language: parsing and lowering each construct; every lowering error at file:line:col."""

from __future__ import annotations

import pytest
from hansa.compiler.errors import HansaError
from hansa.compiler.nodes.rules import (
    BonusMarker,
    CreateRoute,
    Displace,
    Game,
    Income,
    Move,
    Place,
    RuleSet,
    TieBreakStep,
)
from hansa.compiler.rules.catalogue import COMPONENTS, kinds
from hansa.compiler.rules.lower import lower_game, lower_rules
from hansa.compiler.rules.resolve import resolve
from hansa.compiler.syntax.parser import parse_text

FILE = "test.hansa"

# A complete, small root rule set; tests splice statements into it.
ROOT = """\
rules root "Root" {
    pieces traders 27 merchants 4
    setup personal_traders 4 per_seat_traders 1 personal_merchants 1
    ability keys      values 1, 2, 2, 3, 4          covered_by trader   full_pp 0
    ability actions   values 2, 3, 3, 4, 4, 5       covered_by trader   full_pp 4
    ability privilege values white, orange, pink, black covered_by trader full_pp 4
    ability book      values 2, 3, 4, 5             covered_by merchant full_pp 4
    ability bank      values 3, 5, 7, all           covered_by trader   full_pp 4
    action income
    action place
    action displace
    action move
    action create_route
    bonus additional_trading_post count 4 start 1
    bonus exchange_trading_posts(must_own_one: yes) count 3 start 1
    bonus move_tradesmen(count: 3, whose: opponents) count 2 start 1
    markers usable_in_taking_action no
    end when track_pp >= 20 | marker_supply_empty | completed_cities >= board
    score A track
    score C bonus_markers table { 1: 1, 2..3: 3, 4+: 6 }
    score F network
    tiebreak fewest ability actions, most score network, shared
    option displaced_extra_kind = owner_chooses
    option displaced_piece_without_point = personal_supply
    option unplaceable_marker = out_of_game
    option no_op_actions = illegal
    option move_must_place_all = yes
    EXTRA
}
"""


def lower_all(text: str, file: str = FILE) -> tuple[dict[str, RuleSet], dict[str, Game]]:
    rulesets, games = {}, {}
    for decl in parse_text(text, file).children:
        if decl.data == "rules":
            rs = lower_rules(decl, file)
            rulesets[rs.name] = rs
        elif decl.data == "game":
            g = lower_game(decl, file)
            games[g.name] = g
    return rulesets, games


def root(extra: str = "") -> RuleSet:
    rulesets, _ = lower_all(ROOT.replace("EXTRA", extra))
    return resolve("root", rulesets)


def error_of(text: str, file: str = FILE) -> HansaError:
    with pytest.raises(HansaError) as info:
        rulesets, _ = lower_all(text, file)
        for name in rulesets:
            resolve(name, rulesets)
    return info.value


def where(err: HansaError, index: int = 0) -> str:
    d = err.diagnostics[index]
    return f"{d.span.file}:{d.span.line}:{d.span.column}"


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_root_lowers_every_section():
    rs = root()
    assert rs.name == "root" and rs.title == "Root" and rs.extends is None
    assert (
        rs.pieces.traders == 27 and rs.pieces.merchants == 4 and rs.pieces.score_marker == "trader"
    )
    assert (rs.setup.personal_traders, rs.setup.per_seat_traders, rs.setup.personal_merchants) == (
        4,
        1,
        1,
    )
    assert [a.name for a in rs.abilities] == ["keys", "actions", "privilege", "book", "bank"]
    assert rs.abilities[2].values == ("white", "orange", "pink", "black")
    assert rs.abilities[4].values == (3, 5, 7, "all")
    # the role defaults from the ability's name
    assert [a.role for a in rs.abilities] == [
        "network_factor",
        "actions_per_turn",
        "post_privilege",
        "move_count",
        "income",
    ]
    assert [type(a) for a in rs.actions] == [Income, Place, Displace, Move, CreateRoute]
    # catalogue defaults fill parameters not written
    assert rs.actions[2] == Displace()
    assert rs.actions[4].east_west_awards == (7, 4, 2)
    assert rs.bonus_markers[1] == BonusMarker(
        "exchange_trading_posts", (("must_own_one", True),), 3, 1, "exchange_trading_posts"
    )
    assert rs.marker_rules.placement == ("no_marker", "no_pieces", "vacant_space_in_a_city")
    assert [(e.kind, e.threshold) for e in rs.end_triggers] == [
        ("track_pp", 20),
        ("marker_supply_empty", None),
        ("completed_cities", None),
    ]
    assert rs.scoring[1].param("table") == ((1, 1), (2, 3), (4, 6))
    assert rs.tiebreak == (
        TieBreakStep("fewest", "ability", "actions"),
        TieBreakStep("most", "score", "network"),
        TieBreakStep("shared"),
    )
    assert rs.option("move_must_place_all") is True
    assert rs.option("no_op_actions") == "illegal"
    assert rs.sources == (FILE,)


def test_spans_point_at_each_statement():
    rs = root()
    text = ROOT
    assert rs.abilities[2].span.line == line_of(text, "ability privilege")
    assert rs.abilities[2].span.column == 5
    assert rs.bonus_markers[2].span.line == line_of(text, "bonus move_tradesmen")
    assert rs.end_triggers[1].span.line == line_of(text, "end when")
    assert (
        rs.end_triggers[1].span.column
        == text.splitlines()[line_of(text, "end when") - 1].index("marker_supply_empty") + 1
    )
    assert rs.scoring[1].span.line == line_of(text, "score C")
    assert rs.options[4].span.line == line_of(text, "move_must_place_all")
    assert rs.pieces.span.line == 2 and rs.setup.span.line == 3


def test_labels_parenthesised_and_clause_parameters():
    rs = root(
        "bonus plus_3 = extra_actions(count: 3) count 2\n"
        "    bonus remove_tradesmen(count: 2, to: stock) count 1\n"
        "    score E controlled_cities(pp: 3)\n"
        "    score D special_prestige\n"
    )
    plus = rs.bonus_markers[3]
    assert (plus.name, plus.kind, plus.params, plus.count, plus.start) == (
        "plus_3",
        "extra_actions",
        (("count", 3),),
        2,
        0,
    )
    remove = rs.bonus_markers[4]
    assert remove.params == (("count", 2), ("whose", "opponents"), ("to", "stock"))
    assert rs.scoring[3].params == (("pp", 3),)


def test_comma_lists_maps_strings_and_titles():
    text = ROOT.replace("EXTRA", "") + (
        "rules t extends root {\n"
        "    action displace cost { trader: 2, merchant: 3 } fallback supply, stock"
        " extras_declinable no\n}\n"
    )
    rulesets, _ = lower_all(text)
    displace = resolve("t", rulesets).actions[2]
    assert displace.cost == (("trader", 2), ("merchant", 3))
    assert displace.compensation == (("trader", 1), ("merchant", 2))
    assert displace.fallback == ("supply", "stock")
    assert displace.extras_declinable is False
    rulesets, _ = lower_all('rules t "A \\"quoted\\" title\\nwith a newline" extends root { }')
    assert rulesets["t"].title == 'A "quoted" title\nwith a newline'


def test_games_lower_ranges_single_counts_and_lists():
    _, games = lower_all(
        "game a = r on b players 4..5\n"
        "game b-2 = r on b players 3\n"
        'game "c" = r on b players 2, 3, 5\n'
    )
    assert games["a"] == Game("a", "r", "b", (4, 5))
    assert games["b-2"].players == (3,)
    assert games["c"].players == (2, 3, 5)
    assert games["a"].span.line == 1 and games["b-2"].span.line == 2


@pytest.mark.parametrize(
    "extra, message, needle",
    [
        (
            "bonus extra_action(count: 3)",
            "unknown bonus marker kind 'extra_action'",
            "extra_action(",
        ),
        ("bonus extra_action(count: 3)", "did you mean 'extra_actions'", "extra_action("),
        ("action displaces", "unknown action 'displaces' (did you mean 'displace'", "displaces"),
        ("ability key values 1 covered_by trader full_pp 0", "unknown ability 'key'", "key "),
        ("end when track >= 3", "unknown quantity 'track' (did you mean 'track PP'", "track >="),
        (
            "end when track_p >= 3",
            "unknown end trigger 'track_p' (did you mean 'track_pp'",
            "track_p",
        ),
        ("score G networks", "unknown scoring kind 'networks' (did you mean 'network'", "networks"),
        ("option no_op_action = illegal", "unknown option 'no_op_action'", "no_op_action"),
        (
            "action move swap yes",
            "unknown parameter 'swap' for action move (did you mean 'swaps'",
            "swap",
        ),
        (
            "action income count 1",
            "unknown parameter 'count' for action income; it takes no",
            "count",
        ),
        (
            "pieces trader 3",
            "unknown parameter 'trader' for pieces (did you mean 'traders'",
            "trader",
        ),
        ("bonus extra_actions(count: 3) coutn 2", "unknown parameter 'coutn'", "coutn"),
        ("bonus extra_actions(cnt: 3)", "unknown parameter 'cnt' for bonus extra_actions", "cnt"),
    ],
)
def test_unknown_names_are_errors_with_location_and_hint(extra, message, needle):
    text = ROOT.replace("EXTRA", extra)
    err = error_of(text)
    assert message in err.message
    line = line_of(text, extra)
    assert where(err) == f"{FILE}:{line}:{text.splitlines()[line - 1].index(needle) + 1}"


@pytest.mark.parametrize(
    "extra, message, needle",
    [
        ("action move swaps 3", "expected yes or no, got the number 3", "3"),
        (
            "action create_route control_pp yes",
            "expected a whole number, got the word 'yes'",
            "yes",
        ),
        ("action displace cost 1", "expected a map { trader: N, merchant: N }", "1"),
        ("action displace cost { trader: 1 }", "missing piece kind merchant", "{"),
        ("action displace cost { trader: 1, marchant: 2 }", "did you mean 'merchant'", "marchant"),
        ("action displace fallback stock, shop", "unknown value 'shop'", "shop"),
        ("action displace fallback stock, stock", "'stock' is listed twice", "stock\n"),
        (
            "action create_route control_tie leftmost",
            "expected one of rightmost_post, nobody",
            "leftmost",
        ),
        ("bonus move_tradesmen(count: 3, whose: friends)", "unknown value 'friends'", "friends"),
        ("score C bonus_markers table 3", "expected a table", "3"),
        ("score C bonus_markers table { 1: 1, 3: 3, 4+: 4 }", "must join up", "3: 3"),
        ("score C bonus_markers table { 1: 1, 2: 3 }", "must be open-ended", "2: 3"),
        ("score C bonus_markers table { 1+: 1, 2+: 3 }", "only the last row", "1+"),
        ("score C bonus_markers table { 0: 0, 1+: 3 }", "start at 1", "0: 0"),
        ("score C bonus_markers table { 3..2: 1, 3+: 3 }", "empty range", "3..2"),
        ("score C bonus_markers table { a: 1 }", "starts with a count", "a: 1"),
        ("ability keys values 1, x covered_by trader", "values are whole numbers", "values"),
        ("ability keys values 3, 1 covered_by trader", "must not fall", "values"),
        ("ability privilege values white, pink, orange", "colours must rise", "values"),
        ("ability privilege values white, blue", "privilege colours", "values"),
        ("ability bank values all, 3", "values are whole numbers", "values"),
        ("end when marker_supply_empty >= 3", "takes no threshold", "3"),
        ("end when track_pp >= board", "expected a whole number, got the word 'board'", "board"),
        ("option move_must_place_all = maybe", "expected yes or no", "maybe"),
        ("option no_op_actions = sometimes", "unknown value 'sometimes'", "sometimes"),
        ("action move swaps yes swaps no", "parameter 'swaps' is given twice", "swaps no"),
        ("score E controlled_cities(pp: 2) pp 3", "parameter 'pp' is given twice", "pp 3"),
        ("pieces score_marker disc", "one of trader, merchant, none", "disc"),
        ("bonus develop_ability(ability: 3)", "expected an ability name or 'any'", "3"),
    ],
)
def test_wrong_types_name_the_expected_type_at_the_value(extra, message, needle):
    text = ROOT.replace("EXTRA", extra)
    err = error_of(text)
    assert message in err.message, err.message
    line = line_of(text, extra)
    col = (text.splitlines()[line - 1] + "\n").index(needle) + 1
    assert where(err) == f"{FILE}:{line}:{col}"


def test_every_bad_statement_is_reported_at_once():
    text = ROOT.replace("EXTRA", "action move swap yes\n    score G networks\n    option x = 1")
    err = error_of(text)
    assert len(err.diagnostics) == 3
    assert [d.span.line for d in err.diagnostics] == [
        line_of(text, "swap yes"),
        line_of(text, "networks"),
        line_of(text, "option x"),
    ]


def test_duplicates_within_one_rule_set():
    text = ROOT.replace("EXTRA", "bonus additional_trading_post count 2")
    err = error_of(text)
    assert "bonus marker additional_trading_post is declared twice in rule set root" in err.message
    assert f"(first at {FILE}:{line_of(text, 'count 4 start 1')}:11)" in err.message
    text = ROOT.replace(
        "EXTRA", "bonus plus = extra_actions(count: 3)\n    bonus plus = extra_actions(count: 4)"
    )
    err = error_of(text)
    assert where(err) == f"{FILE}:{line_of(text, 'count: 4')}:11"
    err = error_of(ROOT.replace("EXTRA", "pieces traders 3"))
    assert "pieces is declared twice" in err.message
    err = error_of(ROOT.replace("EXTRA", "tiebreak shared"))
    assert "tiebreak is declared twice" in err.message
    err = error_of(ROOT.replace("EXTRA", "end when track_pp >= 3"))
    assert "end trigger track_pp is declared twice" in err.message


def test_missing_required_parameters_and_remove_in_a_root():
    text = ROOT.replace("EXTRA", "bonus extra_actions count 2")
    err = error_of(text)
    assert "bonus extra_actions needs parameter count" in err.message
    assert where(err) == f"{FILE}:{line_of(text, 'bonus extra_actions')}:5"
    text = ROOT.replace("EXTRA", "").replace("pieces traders 27 merchants 4", "pieces merchants 4")
    assert "pieces needs parameter traders" in error_of(text).message
    text = ROOT.replace("EXTRA", "remove bonus nothing_here")
    err = error_of(text)
    assert "cannot remove bonus marker nothing_here" in err.message
    assert where(err) == f"{FILE}:{line_of(text, 'remove bonus')}:18"


def test_incomplete_root_lists_every_missing_component():
    err = error_of('rules bare "Bare" {\n    pieces traders 27 merchants 4\n}\n')
    messages = [d.message for d in err.diagnostics]
    assert all(where(err, i) == f"{FILE}:1:1" for i in range(len(messages)))
    assert any("declares no `setup`" in m for m in messages)
    assert any("declares no `ability`" in m for m in messages)
    assert any("`option move_must_place_all = yes`" in m for m in messages)
    assert any("declares no `tiebreak` chain" in m for m in messages)
    text = ROOT.replace("EXTRA", "").replace("    option no_op_actions = illegal\n", "")
    err = error_of(text)
    assert [d.message for d in err.diagnostics] == [
        "rule set root is incomplete: it declares no `option no_op_actions = illegal`"
    ]


def test_bad_game_declarations():
    err = error_of("game g = r on b players 5..4\n")
    assert "empty player range 5..4" in err.message and where(err) == f"{FILE}:1:25"
    err = error_of("game g = r on b players 3, 3\n")
    assert "listed twice" in err.message
    err = error_of("game g = r on b players 4, 3\n")
    assert "rising order" in err.message


def test_syntax_errors_are_located():
    err = error_of("rules r {\n    ability keys values 1,\n}\n")
    assert where(err).startswith(f"{FILE}:3:1")
    err = error_of("rules r {\n    tiebreak fewest )\n}\n")
    assert where(err) == f"{FILE}:2:21"
    assert "expected" in err.message and "'ability'" in err.message


def test_catalogue_lists_every_required_kind():
    assert kinds("ability") == ("keys", "actions", "privilege", "book", "bank")
    assert kinds("action") == ("income", "place", "displace", "move", "create_route")
    assert set(kinds("bonus")) == {
        "additional_trading_post",
        "exchange_trading_posts",
        "develop_ability",
        "extra_actions",
        "move_tradesmen",
        "remove_tradesmen",
    }
    assert kinds("end") == ("track_pp", "marker_supply_empty", "completed_cities")
    assert set(kinds("score")) == {
        "track",
        "full_abilities",
        "bonus_markers",
        "special_prestige",
        "controlled_cities",
        "network",
        "country_majority",
        "missions",  # the Big Box mission cards (spec/modules/missions.hansa)
    }
    assert len(kinds("option")) == 6  # returned_marker: house rules only (not a Decision)
    # every parameter has a type whose name appears in messages and docs
    assert all(p.type.expected for c in COMPONENTS for p in c.params)


def test_a_game_can_name_any_board_a_board_declaration_accepts():
    # A board may be declared with a quoted name holding any text; a game must be able to name it.
    _, games = lower_all('game odd = bigbox on "odd \\"board\\" {{x}}" players 4')
    assert games["odd"].board == 'odd "board" {{x}}'
