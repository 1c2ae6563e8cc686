"""The prelude (compiler/rules/prelude.hansa): the catalogue's scoring categories and end triggers
that are nothing but an expression are defined there in the rules language, compiled like any rule
in words; only procedures keep a template. Also the quantities the prelude needed (an ability
domain, `full PP`, `special prestige`, tables with `… by TABLE`), `posts in COUNTRY` and `cities in
COUNTRY` shown on the Britannia board, and one error per broken rule."""

from __future__ import annotations

import random
from pathlib import Path

import hansa.compiler.rules
import pytest
from hansa.compiler.model import build as model
from hansa.compiler.project import load_project
from hansa.compiler.rules.catalogue import COMPONENTS
from hansa.compiler.rules.prelude import PRELUDE_FILE, prelude
from hansa.compiler.targets.python.codegen import TEMPLATES
from scenario_support import Position
from variant_support import SPEC, house_rule_text, variant

import hansa


def test_every_expression_kind_is_defined_in_the_prelude_and_has_no_template():
    defined = prelude()
    catalogue = {(c.section, c.kind): c for c in COMPONENTS if c.section in ("score", "end")}
    templates = {("score", k) for k in model.SCORE_KINDS} | {("end", k) for k in model.END_KINDS}
    # Every catalogue kind is either defined in words or a template, never both.
    assert set(catalogue) == set(defined) | templates
    assert not set(defined) & templates
    for (section, kind), definition in defined.items():
        # The catalogue gives the statement its parameters; the definition reads each by name.
        # (an end trigger's `timing` says when it ends the game, not what its condition reads)
        params = [p.name for p in catalogue[(section, kind)].params if p.name != "timing"]
        assert definition.params == tuple(params)
        folder = "scoring" if section == "score" else "end"
        assert not (TEMPLATES / folder / f"{kind}.py.j2").exists(), kind
    assert {k for _, k in defined} >= {"track", "network", "track_pp", "completed_cities"}


def test_the_prelude_ships_in_the_package():
    assert PRELUDE_FILE.parent == Path(hansa.compiler.rules.__file__).parent
    assert PRELUDE_FILE.read_text(encoding="utf-8").count("define ") == len(prelude())


def test_the_generated_modules_score_with_the_prelude_not_templates():
    generated = Path(__file__).resolve().parents[2] / "generated"
    source = (generated / "bigbox_hanseatic_45p.py").read_text()
    assert "def _score_A(s: State, p: int) -> int:\n    return s.track[p]" in source
    assert "return (max(s.track) >= 20) or (s.completed >= 10)" in source  # end triggers
    assert "def _end_track_pp" not in source and "MARKER_SCORE_TABLE" not in source


def _breakdown_by_hand(state, game_module, p: int) -> dict[str, int]:
    """The Big Box's categories A–F computed independently of the generated code."""
    table = ((1, 1), (2, 3), (4, 6), (6, 10), (8, 15), (10, 21))
    markers = len(state.unused[p]) + len(state.used[p])  # collected: used or not
    markers += len(state.fresh) if state.player == p else 0  # taken in this action
    c = max((pp for low, pp in table if markers >= low), default=0)
    e = 2 * sum(1 for city in range(game_module.N_CITIES) if state.city_controller(city) == p)
    return {"A": state.track[p], "C": c, "E": e}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_prelude_categories_agree_with_the_rule_book_in_random_positions(seed):
    game = hansa.load_game("bigbox-hanseatic-45p", players=4)
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    for _ in range(rng.randrange(150, 600)):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    breakdown = state.score_breakdown()
    for p in range(4):
        expected = _breakdown_by_hand(state, game.module, p)
        assert {k: breakdown[p][k] for k in expected} == expected


def test_a_favour_tile_changes_the_prelude_categories_per_player():
    """`your city PP becomes 4` and `your full track PP becomes 7` (Emperor's Favour) are read by
    the prelude's controlled_cities (`pp as city PP`) and full_abilities (`full PP`)."""
    game = hansa.load_game("bigbox-hanseatic-45p-favour", players=4)
    m = game.module
    state = Position(game).city("Hannover", "t0").city("Minden", "t1").state()
    before = state.score_breakdown()
    assert before[0]["E"] == before[1]["E"] == 2
    state.xparam[0 * m.N_X_PARAMS + m.X_CITY_PP] = 4
    state.xparam[1 * m.N_X_PARAMS + m.X_FULL_ABILITY_PP] = 7
    state.level[1 * m.NA + 1] = m.ABILITY_MAX[1]  # player 1's actions fully developed
    after = state.score_breakdown()
    assert (after[0]["E"], after[1]["E"]) == (4, 2)
    assert (after[0]["B"], after[1]["B"]) == (0, 7)


def test_a_category_over_abilities_and_a_table_written_by_a_user():
    game = variant('    score H "Masters": 3 PP per ability where fully developed')
    m = game.module
    state = Position(game).state()
    state.level[0 * m.NA + 0] = m.ABILITY_MAX[0]
    state.level[0 * m.NA + 2] = m.ABILITY_MAX[2]
    assert [b["H"] for b in state.score_breakdown()] == [6, 0, 0, 0]


def problems(body: str, tmp_path, board: str = "hanseatic_45p") -> list[str]:
    """`line:col: message` of every error `hansa check` reports for a house rule (check ⇒ build
    included, so board-dependent names are checked too)."""
    path = tmp_path / "house.hansa"
    path.write_text(house_rule_text(body, board=board), encoding="utf-8")
    boards = SPEC / "boards" / f"{board}.hansa"
    project = load_project([path, SPEC / "bigbox_2021.hansa", boards])
    return [f"{d.span.line}:{d.span.column}: {d.message}" for d in project.errors if d.span]


def test_a_table_must_be_a_kind_parameter(tmp_path):
    found = problems("    score H: collected bonuses by prices", tmp_path)
    assert len(found) == 1 and found[0].startswith("2:14: unknown table 'prices'")


def test_define_belongs_to_the_prelude(tmp_path):
    path = tmp_path / "mine.hansa"
    path.write_text("define score mine: track PP\n", encoding="utf-8")
    project = load_project([path])
    assert [(d.span.line, d.span.column) for d in project.errors] == [(1, 1)]
    assert "prelude" in project.errors[0].message


# ---- countries (the Britannia board: England, Wales, Scotland)

BRITANNIA_RULES = (
    '    score H "Welsh posts": your posts in wales\n'
    '    score I "Scottish cities": 3 PP per city in scotland where controller is you\n'
    "    tiebreak most posts in wales, shared"
)


@pytest.fixture(scope="module")
def britannia_game():
    return variant(BRITANNIA_RULES, board="britannia_45p")


def test_posts_in_a_country_in_a_position(britannia_game):
    """Player 0 holds posts in Cardiff and Chester (Wales) and London (England); player 1 in
    Chester, Carlisle and Dunbar (Scotland): 2 and 1 posts in Wales; player 1 controls both
    Scottish cities (3 PP each), player 0 none."""
    state = (
        Position(britannia_game)
        .city("Cardiff", "t0")
        .city("Chester", "t0", "t1")
        .city("London", "t0")
        .city("Carlisle", "t1")
        .city("Dunbar", "t1")
        .state()
    )
    breakdown = state.score_breakdown()
    assert [b["H"] for b in breakdown] == [2, 1, 0, 0]
    assert [b["I"] for b in breakdown] == [0, 6, 0, 0]


def test_a_city_in_two_countries_counts_in_both(britannia_game):
    state = Position(britannia_game).city("Isle of Man", "t1", "t2").state()
    breakdown = state.score_breakdown()
    assert [b["H"] for b in breakdown] == [0, 1, 1, 0]
    assert [b["I"] for b in breakdown] == [0, 0, 3, 0]  # the rightmost post controls it


def test_an_unknown_country_is_one_located_error_with_did_you_mean(tmp_path):
    found = problems("    score H: your posts in walse", tmp_path, board="britannia_45p")
    assert found == [
        "2:14: unknown country 'walse' (did you mean 'wales'?); known: england, wales, scotland"
    ]


def test_a_board_without_countries_says_so_at_the_rule(tmp_path):
    found = problems("    score H: 1 PP per city in wales", tmp_path)
    assert found == ["2:23: 'wales' names a country, but board 'hanseatic_45p' has no countries"]


# ---- one mistake, one error


def test_each_broken_rule_reports_only_its_first_error(tmp_path):
    """Five broken rules in one file: five errors, each at its rule's first mistake (a misspelt
    quantity does not also give the type errors that would follow from it)."""
    body = "\n".join(
        (
            '    score I "Harbour": 2 PP per city where coinz > 0 and your posts here > 0',
            "    end when some player has at least 3 fully develped abilities + you",
            "    forbid displace when track PPP of the victim < your track PP + nobody",
            "    at turn start: gain 1 PP if rank = playerz, gain 1 PP if you > 2",
            "    score H: 2 PP per city where controller > 1 and coinz",
        )
    )
    found = problems(body, tmp_path)
    assert [line.split(": ", 1)[0] for line in found] == [
        "2:44",
        "3:41",
        "4:26",
        "5:40",
        "6:34",
    ]
    assert "unknown quantity 'coinz'" in found[0]
    assert "unknown quantity 'fully develped abilities'" in found[1]
    assert "unknown quantity 'track ppp'" in found[2]
    assert "unknown quantity 'playerz'" in found[3]
    assert "cannot compare a player with a number" in found[4]


def test_countries_are_checked_in_every_rule_of_a_game(tmp_path):
    body = "    score H: your posts in walse\n    score I: 1 PP per city in scotlnd"
    found = problems(body, tmp_path, board="britannia_45p")
    assert [line.split(": ", 1)[0] for line in found] == ["2:14", "3:23"]


def test_rules_that_do_not_lower_give_one_error_each_and_no_echo_at_the_game(tmp_path):
    """Two statements that cannot be lowered: one error each, and the game using the broken rule
    set does not add "unknown rule set" (its own errors say what is wrong)."""
    body = "    at turn start: gain 2 if rank = 1\n    at setup: take 2 traders from the bag"
    found = problems(body, tmp_path)
    assert [line.split(": ", 1)[0] for line in found] == ["2:25", "3:35"]
    assert not any("unknown rule set" in line for line in found)
