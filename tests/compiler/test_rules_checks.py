"""Rule checks: a rule set on its own, a game against its board, and `hansa check` over specs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hansa.compiler.errors import HansaError
from hansa.compiler.nodes.rules import BonusMarker, Game, Option, ScoreCategory, TieBreakStep
from hansa.compiler.project import load_project
from hansa.compiler.rules.catalogue import Number, Word
from hansa.compiler.rules.checks import check_game, check_ruleset, pieces_left
from hansa.compiler.rules.resolve import resolve
from test_rules_lower import ROOT, lower_all

SPEC = Path(__file__).resolve().parents[2] / "spec"
BASE = ROOT.replace("EXTRA", "")
N = len(BASE.splitlines())  # statements appended after BASE start on line N + 1


@pytest.fixture(scope="module")
def project():
    return load_project([SPEC])


@pytest.fixture(scope="module")
def base():
    rulesets, _ = lower_all(BASE, "root.hansa")
    return resolve("root", rulesets)


def game_errors(text: str, project, base, severity: str = "error") -> list:
    rulesets, games = lower_all(text, "game.hansa")
    resolved = {"root": base, **{n: resolve(n, {"root": base, **rulesets}) for n in rulesets}}
    out = []
    for game in games.values():
        out += [d for d in check_game(game, resolved, project.boards) if d.severity == severity]
    return out


def test_the_specs_check_clean(project):
    assert [d.format() for d in project.diagnostics] == []
    assert set(project.rulesets) >= {
        "bigbox_2021",
        "original_2009",
        "short_game",
        "no_compensation",
    }
    assert set(project.games) >= {
        "bigbox-hanseatic-3p",
        "bigbox-hanseatic-45p",
        "original-hanseatic-23p",
        "original-hanseatic-45p",
    }
    # the loader keeps the resolved rule sets for later stages
    assert project.resolved_rulesets["original_2009"].extends is None


def test_game_names_an_existing_rule_set_and_board(project, base):
    errors = game_errors("game g = rot on hanseatic_45p players 4\n", project, base)
    assert [(str(d.span), d.message) for d in errors] == [
        ("game.hansa:1:10", "game g: unknown rule set 'rot' (did you mean 'root'?)")
    ]
    errors = game_errors("game g = root on hanseatic_44p players 4\n", project, base)
    assert (
        str(errors[0].span) == "game.hansa:1:18"
        and "did you mean 'hanseatic_45p'" in errors[0].message
    )


def test_player_counts(project, base):
    errors = game_errors("game g = root on hanseatic_45p players 1..5\n", project, base)
    assert [d.message for d in errors] == ["game g: 1 players; Hansa Teutonica is for 2 to 5"]
    assert str(errors[0].span) == "game.hansa:1:40"
    warnings = game_errors(
        "game g = root on hanseatic_45p players 3..5\n", project, base, "warning"
    )
    assert [d.message for d in warnings] == [
        "game g: board hanseatic_45p is printed for 4, 5 players, not 3"
    ]
    # the 3-player side was printed for 2-3 players in the original edition
    assert (
        game_errors("game g = root on hanseatic_3p players 2..3\n", project, base, "warning") == []
    )


def test_completed_cities_trigger_fits_the_board(project, base):
    text = BASE + "rules r extends root {\n    end when completed_cities >= 28\n}\n"
    errors = game_errors(text + "game g = r on hanseatic_45p players 4\n", project, base)
    assert len(errors) == 1 and "ends at 28 completed cities" in errors[0].message
    assert "only 27 cities" in errors[0].message and "game.hansa:" in errors[0].message
    ok = text.replace("28", "27") + "game g = r on hanseatic_45p players 4\n"
    assert game_errors(ok, project, base) == []


def test_abilities_offered_by_the_board_exist_in_the_rules(project, base):
    no_keys = dataclasses.replace(base, abilities=base.abilities[1:])
    game = Game("g", "root", "hanseatic_45p", (4,))
    errors = check_game(game, {"root": no_keys}, project.boards)
    assert [d.message.split(" (city at")[0] for d in errors] == [
        "game g: city Halle of board hanseatic_45p offers ability keys, which rule set root"
        " does not define"
    ]
    assert "(city at spec/" in errors[0].message or "hanseatic_45p.hansa" in errors[0].message


def test_start_markers_fit_the_tavern_routes(project, base):
    text = BASE + "rules r extends root {\n    bonus additional_trading_post start 2\n}\n"
    errors = game_errors(text + "game g = r on hanseatic_45p players 4\n", project, base)
    assert [d.message for d in errors] == [
        "game g: rule set r lays out 4 start bonus markers, but board hanseatic_45p has 3 tavern"
        " routes"
    ]


def test_setup_fits_the_largest_seat(project, base):
    text = BASE + "rules r extends root {\n    setup per_seat_traders 2\n}\n"
    errors = game_errors(text + "game g = r on hanseatic_45p players 4..5\n", project, base)
    assert len(errors) == 1
    assert "seat 5 starts with 14 traders in its personal supply, but only 11" in errors[0].message
    assert str(errors[0].span) == f"game.hansa:{N + 4}:37"
    assert game_errors(text + "game g = r on hanseatic_3p players 3\n", project, base) == []


def test_pieces_on_tracks_against_pieces_per_player(base):
    assert pieces_left(base) == {"trader": 11, "merchant": 1}
    rulesets, _ = lower_all(BASE + "rules r extends root {\n    pieces merchants 2\n}\n", "r.hansa")
    with pytest.raises(HansaError) as info:
        resolve("r", {"root": base, **rulesets})
    assert "the ability tracks need 3 merchants per player, but pieces gives only 2" in str(
        info.value
    )
    assert str(info.value.span) == f"r.hansa:{N + 2}:5"
    rulesets, _ = lower_all(BASE + "rules r extends root {\n    pieces traders 15\n}\n", "r.hansa")
    with pytest.raises(HansaError) as info:
        resolve("r", {"root": base, **rulesets})
    assert "the ability tracks and the score marker need 16 traders" in str(info.value)


def test_each_role_needs_exactly_one_ability(base):
    text = BASE + "rules r extends root {\n    ability book role network_factor\n}\n"
    rulesets, _ = lower_all(text, "r.hansa")
    with pytest.raises(HansaError) as info:
        resolve("r", {"root": base, **rulesets})
    messages = [d.message for d in info.value.diagnostics]
    assert (
        "abilities keys and book both drive network_factor; each role needs exactly one" in messages
    )
    assert "no ability drives move_count (every role needs one ability)" in messages


def test_bonus_marker_consistency(base):
    text = BASE + (
        "rules r extends root {\n"
        "    bonus develop_ability(ability: bok) count 1\n"
        "    bonus move_tradesmen count 1 start 2\n"
        "}\n"
    )
    rulesets, _ = lower_all(text, "r.hansa")
    with pytest.raises(HansaError) as info:
        resolve("r", {"root": base, **rulesets})
    assert sorted((str(d.span), d.message) for d in info.value.diagnostics) == [
        (
            f"r.hansa:{N + 2}:5",
            "bonus develop_ability names ability 'bok', which this rule set lacks"
            " (did you mean 'book'?)",
        ),
        (f"r.hansa:{N + 3}:5", "bonus move_tradesmen: start 2 must be between 0 and count 1"),
    ]


def test_checks_of_rule_sets_built_in_code(base):
    """Code (tests, E's hand-built rule sets) can build IR the language would refuse; the checks
    still catch it."""
    bad = dataclasses.replace(
        base,
        bonus_markers=(*base.bonus_markers, BonusMarker("teleport", (), 1, 0)),
        scoring=(
            *base.scoring,
            ScoreCategory("G", "bonus_markers", (("table", ((2, 1), (2, 3))),)),
        ),
        tiebreak=(TieBreakStep("shared"), TieBreakStep("most", "ability", "keys")),
        options=(*base.options[:-1], Option("move_must_place_all", "sometimes")),
    )
    messages = [d.message for d in check_ruleset(bad)]
    assert any("bonus marker kind 'teleport' has no effect" in m for m in messages)
    assert any("score G table: thresholds must rise: 2 does not follow 2" in m for m in messages)
    assert any("'shared' ends the tie-break chain" in m for m in messages)
    assert any("option move_must_place_all: expected yes or no" in m for m in messages)
    assert check_ruleset(base) == []


def test_raw_values_describe_themselves():
    assert Number(3).describe() == "the number 3" and Word("x").describe() == "the word 'x'"


def test_hansa_check_reports_rules_errors_with_locations(tmp_path, capsys):
    from hansa.cli import main

    bad = tmp_path / "bad.hansa"
    bad.write_text(
        "rules house extends bigbox_2021 {\n    bonus extra_action(count: 3) count 1\n}\n"
        "game g = bigbox_2021 on hanseatic_45p players 4..6\n",
        encoding="utf-8",
    )
    code = main(["check", str(SPEC), str(bad)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{bad}:2:11: error: unknown bonus marker kind 'extra_action'" in err
    assert f"{bad}:4:47: error: game g: 6 players" in err
    assert "Traceback" not in err


def test_a_child_of_a_rule_set_built_in_code_gets_defaults_filled(base):
    """E builds rule sets in code; extending one works and fills parameters it left out."""
    lean = dataclasses.replace(
        base,
        scoring=(*base.scoring, ScoreCategory("E", "controlled_cities")),
        bonus_markers=(
            *base.bonus_markers,
            BonusMarker("move_tradesmen", (("count", 2),), 1, 0, "m2"),
        ),
        span=base.span,
    )
    assert check_ruleset(lean) == []
    rulesets, _ = lower_all("rules r extends lean {\n    bonus m2 count 2\n}\n", "r.hansa")
    rs = resolve("r", {"lean": lean, **rulesets})
    assert rs.scoring[-1].params == (("pp", 2),)
    assert rs.bonus_markers[-1].params == (("count", 2), ("whose", "opponents"))
    assert rs.bonus_markers[-1].count == 2
    missing = dataclasses.replace(base, bonus_markers=(BonusMarker("extra_actions", (), 1, 0),))
    assert any("lacks parameter 'count'" in d.message for d in check_ruleset(missing))
