"""The rule sets in spec/: Big Box values, the original's differences, house rules, names."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hansa.compiler.errors import HansaError
from hansa.compiler.nodes.rules import (
    Ability,
    BoardRule,
    BonusMarker,
    CreateRoute,
    Displace,
    EndTrigger,
    Income,
    MarkerRules,
    Move,
    Option,
    PermanentMarker,
    Pieces,
    Place,
    RuleSet,
    ScoreCategory,
    Setup,
    TieBreakStep,
)
from hansa.compiler.project import load_project
from hansa.compiler.rules.resolve import resolve
from test_rules_lower import lower_all

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec"
MIXES = json.loads((ROOT / "tests/fixtures/modules/bonus_markers.json").read_text(encoding="utf-8"))

# RULES.md §2-7 and §11, written out by hand: what the Big Box spec must resolve to.
BIGBOX = RuleSet(
    name="bigbox_2021",
    title="Hansa Teutonica Big Box (2021)",
    pieces=Pieces(traders=27, merchants=4, score_marker="trader"),
    setup=Setup(personal_traders=4, per_seat_traders=1, personal_merchants=1),
    abilities=(
        Ability("keys", (1, 2, 2, 3, 4), "trader", 0, "network_factor"),
        Ability("actions", (2, 3, 3, 4, 4, 5), "trader", 4, "actions_per_turn"),
        Ability("privilege", ("white", "orange", "pink", "black"), "trader", 4, "post_privilege"),
        Ability("book", (2, 3, 4, 5), "merchant", 4, "move_count"),
        Ability("bank", (3, 5, 7, "all"), "trader", 4, "income"),
    ),
    actions=(
        Income(),
        Place(),
        Displace(
            cost=(("trader", 1), ("merchant", 2)),
            compensation=(("trader", 1), ("merchant", 2)),
            fallback=("stock", "supply", "board"),
            extras_declinable=True,
        ),
        Move(swaps=True),
        CreateRoute(
            control_pp=1,
            control_tie="rightmost_post",
            coin_pp=True,
            establish_trading_post=True,
            develop_ability=True,
            special_prestige=True,
            east_west_awards=(7, 4, 2),
        ),
    ),
    bonus_markers=(
        BonusMarker("additional_trading_post", (), 4, 1, "additional_trading_post"),
        BonusMarker(
            "exchange_trading_posts", (("must_own_one", True),), 3, 1, "exchange_trading_posts"
        ),
        BonusMarker("develop_ability", (("ability", "any"),), 2, 0, "develop_ability"),
        BonusMarker("extra_actions", (("count", 3),), 2, 0, "plus_3_actions"),
        BonusMarker("extra_actions", (("count", 4),), 2, 0, "plus_4_actions"),
        BonusMarker(
            "move_tradesmen", (("count", 3), ("whose", "opponents")), 2, 1, "move_tradesmen"
        ),
    ),
    marker_rules=MarkerRules(
        usable_in_taking_action=False,
        placement=(
            "no_marker",
            "no_pieces",
            "vacant_space_in_a_city",
            "no_permanent_marker",
            "not_in_permission_country",
        ),
    ),
    end_triggers=(
        EndTrigger("track_pp", 20),
        EndTrigger("marker_supply_empty"),
        EndTrigger("completed_cities", None),
    ),
    scoring=(
        ScoreCategory("A", "track"),
        ScoreCategory("B", "full_abilities"),
        ScoreCategory(
            "C",
            "bonus_markers",
            (("table", ((1, 1), (2, 3), (4, 6), (6, 10), (8, 15), (10, 21))),),
        ),
        ScoreCategory("D", "special_prestige"),
        ScoreCategory("E", "controlled_cities", (("pp", 2),)),
        ScoreCategory("F", "network"),
        ScoreCategory("G", "country_majority", (("pp", (7, 4, 2)),)),
    ),
    tiebreak=(
        TieBreakStep("fewest", "ability", "actions"),
        TieBreakStep("most", "score", "network"),
        TieBreakStep("shared"),
    ),
    options=(
        Option("displaced_extra_kind", "owner_chooses"),
        Option("displaced_piece_without_point", "personal_supply"),
        Option("unplaceable_marker", "out_of_game"),
        Option("no_op_actions", "illegal"),
        Option("move_must_place_all", True),
    ),
    # §9-10 (Big Box pp. 12-14): the rules of play of the Eastern and Britannia boards' features.
    board_rules=(
        BoardRule("green_cities", (("first_post_completes", True), ("additional_post", True))),
        BoardRule(
            "countries",
            (
                ("displaced_to", "own_or_free"),
                ("move", "own_or_free"),
                ("marker_move", "same_country"),
            ),
        ),
        BoardRule("permissions", (("once_per_turn", True), ("actions", ("place", "displace")))),
    ),
    permanent_markers=(
        PermanentMarker("move_2_any_tradesmen", "move_tradesmen", (("count", 2), ("whose", "any"))),
        PermanentMarker("develop_privilege", "develop_ability", (("ability", "privilege"),)),
        PermanentMarker("post_in_green_city", "green_city_post", (("side", "right"),)),
        PermanentMarker("place_2_tradesmen_from_route", "place_from_route", (("count", 2),)),
        PermanentMarker(
            "place_2_tradesmen_in_wales_or_scotland",
            "place_in_countries",
            (("count", 2), ("from", ("stock", "supply", "board"))),
        ),
    ),
)


@pytest.fixture(scope="module")
def project():
    project = load_project([SPEC])
    assert project.errors == []
    return project


@pytest.fixture(scope="module")
def rules(project) -> dict[str, RuleSet]:
    return {name: resolve(name, project.rulesets) for name in project.rulesets}


def components(rs: RuleSet) -> dict[tuple[str, str], object]:
    """A rule set as (section, key) → component, to compare two rule sets part by part."""
    out: dict[tuple[str, str], object] = {
        ("pieces", ""): rs.pieces,
        ("setup", ""): rs.setup,
        ("markers", ""): rs.marker_rules,
        ("tiebreak", ""): rs.tiebreak,
    }
    out.update({("ability", a.name): a for a in rs.abilities})
    out.update({("action", type(a).__name__): a for a in rs.actions})
    out.update({("bonus", b.name): b for b in rs.bonus_markers})
    out.update({("end", e.kind): e for e in rs.end_triggers})
    out.update({("score", s.key): s for s in rs.scoring})
    out.update({("option", o.name): o for o in rs.options})
    return out


def differences(a: RuleSet, b: RuleSet) -> set[tuple[str, str]]:
    ca, cb = components(a), components(b)
    return {k for k in ca.keys() | cb.keys() if ca.get(k) != cb.get(k)}


def test_bigbox_resolves_to_the_rule_book(rules):
    bigbox = rules["bigbox_2021"]
    assert bigbox == BIGBOX
    # spot checks, one per component, so a failure names the part
    for key, component in components(BIGBOX).items():
        assert components(bigbox)[key] == component, key
    assert bigbox.sources == ("spec/bigbox_2021.hansa",) or bigbox.sources[0].endswith(
        "spec/bigbox_2021.hansa"
    )


def test_every_component_keeps_a_span_into_its_file(rules):
    for rs in rules.values():
        for key, component in components(rs).items():
            items = component if isinstance(component, tuple) else (component,)
            for item in items:
                assert item.span.line > 0, (rs.name, key)
                assert item.span.file in rs.sources, (rs.name, key)


def test_bigbox_mix_matches_the_reference(rules):
    mix = MIXES["big_box_2021"]
    names = {
        "additional_trading_post": "additional_trading_post",
        "exchange_trading_posts": "exchange_trading_posts",
        "move_3_tradesmen": "move_tradesmen",
        "develop_ability": "develop_ability",
        "plus_3_actions": "plus_3_actions",
        "plus_4_actions": "plus_4_actions",
    }
    markers = {b.name: b for b in rules["bigbox_2021"].bonus_markers}
    assert Counter({names[k]: 1 for k in mix["start"]}) == Counter(
        {b.name: b.start for b in markers.values() if b.start}
    )
    for ref, count in mix["supply"].items():
        marker = markers[names[ref]]
        assert marker.count - marker.start == count, ref
    assert sum(b.count for b in markers.values()) == mix["total"] == 15


def test_original_differs_exactly_in_the_intended_components(rules):
    bigbox, original = rules["bigbox_2021"], rules["original_2009"]
    assert differences(bigbox, original) == {
        ("bonus", "additional_trading_post"),
        ("bonus", "exchange_trading_posts"),
        ("bonus", "develop_ability"),
        ("bonus", "move_tradesmen"),  # replaced by …
        ("bonus", "remove_tradesmen"),  # … this one, in the same place
        ("tiebreak", ""),
    }
    markers = {b.name: b for b in original.bonus_markers}
    assert markers["additional_trading_post"].count == 5
    assert markers["exchange_trading_posts"].params == (("must_own_one", False),)
    assert markers["exchange_trading_posts"].count == 2
    assert markers["develop_ability"].count == 3
    assert markers["remove_tradesmen"] == BonusMarker(
        "remove_tradesmen",
        (("count", 3), ("whose", "opponents"), ("to", "personal")),
        2,
        1,
        "remove_tradesmen",
    )
    assert [b.name for b in original.bonus_markers][5] == "remove_tradesmen"
    assert original.tiebreak == (TieBreakStep("shared"),)
    assert original.title == "Hansa Teutonica (Argentum 2009)"
    assert [Path(s).name for s in original.sources] == ["bigbox_2021.hansa", "original_2009.hansa"]


def test_original_mix_matches_the_reference(rules):
    mix = MIXES["original_2009"]
    names = {
        "additional_kontor": "additional_trading_post",
        "swap_kontor": "exchange_trading_posts",
        "remove_3_tradesmen": "remove_tradesmen",
        "develop_ability": "develop_ability",
        "plus_3_actions": "plus_3_actions",
        "plus_4_actions": "plus_4_actions",
    }
    markers = {b.name: b for b in rules["original_2009"].bonus_markers}
    assert {names[k] for k in mix["start"]} == {b.name for b in markers.values() if b.start == 1}
    assert sum(b.start for b in markers.values()) == 3
    for ref, count in mix["supply"].items():
        assert markers[names[ref]].count - markers[names[ref]].start == count, ref
    assert sum(b.count for b in markers.values()) == mix["total"] == 16


def test_games(project):
    games = project.games
    expected = {
        "bigbox-hanseatic-3p": ("bigbox_2021", "hanseatic_3p", (3,)),
        "bigbox-hanseatic-45p": ("bigbox_2021", "hanseatic_45p", (4, 5)),
        "original-hanseatic-23p": ("original_2009", "hanseatic_3p", (3,)),
        "original-hanseatic-2p": ("original_2009_2p", "hanseatic_3p", (2,)),
        "original-hanseatic-45p": ("original_2009", "hanseatic_45p", (4, 5)),
        "short-hanseatic-45p": ("short_game", "hanseatic_45p", (4, 5)),
        "no-compensation-hanseatic-45p": ("no_compensation", "hanseatic_45p", (4, 5)),
        "bigbox-eastern": ("bigbox_2021", "eastern", (3, 4, 5)),
        "bigbox-britannia-3p": ("bigbox_2021", "britannia_3p", (3,)),
        "bigbox-britannia-45p": ("bigbox_2021", "britannia_45p", (4, 5)),
        "bigbox-hanseatic-3p-missions": ("bigbox_missions", "hanseatic_3p", (3,)),
        "bigbox-hanseatic-45p-missions": ("bigbox_missions", "hanseatic_45p", (4, 5)),
        "bigbox-hanseatic-3p-favour": ("bigbox_favour", "hanseatic_3p", (3,)),
        "bigbox-hanseatic-45p-favour": ("bigbox_favour", "hanseatic_45p", (4, 5)),
        "bigbox-hanseatic-3p-missions-favour": ("bigbox_missions_favour", "hanseatic_3p", (3,)),
        "bigbox-hanseatic-45p-missions-favour": (
            "bigbox_missions_favour",
            "hanseatic_45p",
            (4, 5),
        ),
    }
    for rule in (  # the house rules written in words (tests/games/test_rules_words.py)
        "guild_charter",
        "harbour_master",
        "three_full_abilities",
        "last_seat_book",
        "no_bullying",
        "stock_tiebreak",
        "draw_three",  # at marker draw (tests/games/test_marker_draw.py)
        "last_round",  # end timing (tests/games/test_end_timing.py)
        "city_bonus",  # what the action did, effects on other players, shared control (#21)
        "full_income",
        "protected_merchants",
        "catch_up",
        "shared_control",
        "first_link",  # places, networks and per-player state (#33)
        "hinterland",
        "merchant_once",
        "catch_up_order",
        "marker_market",  # the marker display (#33)
    ):
        expected[rule.replace("_", "-") + "-hanseatic-45p"] = (rule, "hanseatic_45p", (4, 5))
    # a board that extends a board (tests/compiler/test_board_extends.py)
    expected["large-hamburg-hanseatic-45p"] = ("bigbox_2021", "large_hamburg_45p", (4, 5))
    assert {name: (g.rules, g.board, g.players) for name, g in games.items()} == expected


def test_house_rules_are_short_and_change_one_thing(rules):
    for name in ("short_game", "no_compensation"):
        text = (SPEC / "house" / f"{name}.hansa").read_text(encoding="utf-8")
        assert len(text.splitlines()) < 10
        assert "extends bigbox_2021" in text and "\ngame " in text
    bigbox = rules["bigbox_2021"]
    short = rules["short_game"]
    assert differences(bigbox, short) == {("end", "track_pp")}
    assert short.end_triggers[0] == EndTrigger("track_pp", 15)
    assert short.end_triggers[0].span.file.endswith("house/short_game.hansa")
    no_comp = rules["no_compensation"]
    assert differences(bigbox, no_comp) == {("action", "Displace")}
    displace = no_comp.actions[2]
    assert displace.compensation == (("trader", 0), ("merchant", 0))
    assert displace.cost == (("trader", 1), ("merchant", 2))


HOSTILE_REFUSED = [
    '"a\\"b"',  # a quote
    '"back\\\\slash"',  # a backslash
    '"new\\nline"',  # a newline
    '"{{ x }}"',  # a jinja2 expression
    '"\\"\\"\\""',  # a triple quote
    '"two words"',
    '"45p"',  # starts with a digit
    '""',
]
HOSTILE_ACCEPTED = [
    "class",
    "def",
    "import",
    "None",
    '"rules"',
    "Lübeck",
    "Ελληνικά",
    "汉萨_2",
    "a-b",
]


@pytest.mark.parametrize("name", HOSTILE_REFUSED)
def test_hostile_rule_set_and_game_names_are_refused(name):
    for text in (
        f"rules {name} extends bigbox_2021 {{ }}\n",
        f"game {name} = bigbox_2021 on hanseatic_45p players 4\n",
        f"game g = {name} on hanseatic_45p players 4\n",
    ):
        with pytest.raises(HansaError) as info:
            lower_all(text, "hostile.hansa")
        message = info.value.message
        assert "is not a name: use letters, digits, '_' and single inner '-'" in message
        assert str(info.value.span).startswith("hostile.hansa:1:")


@pytest.mark.parametrize("name", HOSTILE_ACCEPTED)
def test_keywords_and_non_latin_names_are_plain_data(project, name):
    text = (
        f"rules {name} extends bigbox_2021 {{ }}\ngame {name} = {name} on hanseatic_45p players 4\n"
    )
    rulesets, games = lower_all(text, "names.hansa")
    plain = name.strip('"')
    assert set(rulesets) == {plain} and set(games) == {plain}
    rs = resolve(plain, {**project.rulesets, **rulesets})
    assert rs.name == plain and games[plain].rules == plain


def test_titles_are_plain_data_whatever_they_hold(project):
    literal = r'"q\"b\\ {{ x }} \"\"\" \n class Ελληνικά"'
    rulesets, _ = lower_all(f"rules t {literal} extends bigbox_2021 {{ }}\n", "t.hansa")
    rs = resolve("t", {**project.rulesets, **rulesets})
    assert rs.title == 'q"b\\ {{ x }} """ \n class Ελληνικά'


def test_bad_strings_are_clear_errors():
    with pytest.raises(HansaError) as info:
        lower_all('rules t "bad \\q escape" extends bigbox_2021 { }\n', "s.hansa")
    assert "unknown escape '\\q'" in info.value.message
    assert str(info.value.span) == "s.hansa:1:14"
    with pytest.raises(HansaError) as info:
        lower_all('rules t "raw\nnewline" extends bigbox_2021 { }\n', "s.hansa")
    assert str(info.value.span).startswith("s.hansa:1:")
