"""The checks of places named in rules in words and of declared per-player state (issue 33,
items 1-3): a misspelt place is one error at its phrase with the closest name; a rule set naming a
place binds to boards that have it, and to one without it is one error at the `game` line; counters
and flags are declared before use, set to a value of their type, and named apart from the
language's own words. `hansa diff` lists the places a rule set names."""

from __future__ import annotations

import pytest
from hansa.compiler.expr.check import named_places
from hansa.compiler.project import load_project
from variant_support import problems

from hansa.cli import main


def check(tmp_path, capsys, text: str) -> tuple[int, list[str]]:
    """`hansa check` of a spec file: the exit code and the error lines."""
    path = tmp_path / "places.hansa"
    path.write_text(text, encoding="utf-8")
    code = main(["check", str(path)])
    err = capsys.readouterr().err
    return code, [line for line in err.splitlines() if ": error: " in line]


RULES = 'rules places "places" extends bigbox_2021 {{\n    {body}\n}}\n'


@pytest.mark.parametrize(
    ("body", "column", "message"),
    [
        (
            "at turn end: gain 1 PP if controller of Lubek is you",
            31,
            "no board has a city 'lubek' (did you mean 'Lübeck'?)",
        ),
        (
            'score H "Far": 1 PP * distance to Stetin of Lübeck',
            27,
            "no board has a city 'stetin' (did you mean 'Stendal'?)",  # the boards the spec uses
        ),
        (
            "at turn end: gain 1 PP if your posts connect Lübeck-Colen",
            31,
            "no board has a city 'colen' (did you mean 'Coellen'?) (in 'lübeck-colen')",
        ),
        (
            "at turn end: gain 1 PP if route complete of Lübeck-Stendal",
            31,
            "no route joins Lübeck and Stendal (a route is named by the two cities it joins)",
        ),
        (
            "at turn end: gain 1 PP if your posts in Lubek > 0",
            31,
            "board 'hanseatic_45p' has no city or country 'lubek' (did you mean 'Lübeck'?)",
        ),
    ],
)
def test_a_misspelt_place_is_one_error_at_its_phrase(tmp_path, capsys, body, column, message):
    text = RULES.format(body=body) + "game places-45p = places on hanseatic_45p players 4..5\n"
    code, errors = check(tmp_path, capsys, text)
    assert code == 1
    assert len(errors) == 1, errors
    assert errors[0].endswith(f"places.hansa:2:{column}: error: {message}")


def test_a_place_another_board_has_is_one_error_at_the_game_line(tmp_path, capsys):
    """Visby lies on the Eastern board only: the rule set plays there, not on the Hanseatic one;
    a misspelling is told apart (no board has it)."""
    body = (
        "at turn end: gain 1 PP if controller of Visby is you,"
        " gain 1 PP if adjacent to Visby of Wismar"
    )
    text = RULES.format(body=body)
    text += "game places-east = places on eastern players 3..5\n"
    text += "game places-45p = places on hanseatic_45p players 4..5\n"
    code, errors = check(tmp_path, capsys, text)
    assert code == 1 and len(errors) == 1, errors
    assert (
        ":5:29: error: game places-45p: rule set places names places board hanseatic_45p"
        in (errors[0])
    )
    assert "does not have: city Visby (" in errors[0] and ", city Wismar (" in errors[0]
    east_only = RULES.format(body=body) + "game places-east = places on eastern players 3..5\n"
    assert check(tmp_path, capsys, east_only) == (0, [])


def test_a_rule_set_alone_takes_any_name(tmp_path, capsys):
    """Without a game there is no board to check a place against: the game's check does."""
    code, errors = check(tmp_path, capsys, RULES.format(body="end when longest chain of Kyiv > 1"))
    assert (code, errors) == (1, errors) and "'longest chain' reads a player, not 'kyiv'" in errors[
        0
    ]
    fine = RULES.format(body="end when controller of Kyiv is the last seat")
    assert check(tmp_path, capsys, fine) == (0, [])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("at turn end: your tally becomes 1", "'tally' is not a parameter a rule can set"),
        ("counter tally\nat turn end: your tally becomes yes", "a counter becomes a number"),
        ("flag done\nat turn end: your done becomes 2", "a flag becomes yes, no or a condition"),
        ("flag done\nat turn end: gain 1 PP if done > 0", "cannot compare a bool with a number"),
        ("counter posts", "'posts' is already a quantity or parameter of the language"),
        ("counter tally private maybe", "private is yes or no"),
        ("counter tally secret yes", "unknown parameter 'secret' for a counter"),
        ("counter tally\n    flag tally", "the counter or flag 'tally' is declared twice"),
        ("at turn end: gain 1 PP if controls here", "or name one (`controls here of Lübeck`)"),
        ("forbid place when route holder is you", "or name one (`route holder of Hamburg-Lübeck`)"),
        (
            "at turn end: gain 1 PP if created now of Hamburg-Lübeck",
            "only in `after create_route:`",
        ),
    ],
)
def test_state_and_place_mistakes_are_located_errors(tmp_path, body, message):
    found = problems(body, tmp_path)
    assert len(found) == 1 and message in found[0], found


def test_an_undeclared_value_is_suggested_with_its_declaration(tmp_path):
    (found,) = problems("counter tally\nat turn end: your taly becomes 1", tmp_path)
    assert "did you mean 'tally'?" in found and "`counter NAME`" in found


def test_named_places_finds_every_kind(tmp_path):
    path = tmp_path / "places.hansa"
    body = (
        "at turn end: gain 1 PP if controller of Lübeck is you and your posts connect A-B,"
        " gain 1 PP if route complete of Hamburg-Lübeck and your posts in wales > 0\n"
        '    score H "Near": 1 PP * count cities where distance to Stade <= 1'
    )
    path.write_text(RULES.format(body=body), encoding="utf-8")
    project = load_project([path])
    rules = project.resolved_rulesets["places"]
    found = sorted((kind, name) for kind, name, _node in named_places(rules))
    assert found == [
        ("city", "lübeck"),
        ("city", "stade"),
        ("pair", "a-b"),
        ("place", "wales"),
        ("route", "hamburg-lübeck"),
    ]


def test_diff_lists_the_places_and_the_state_a_rule_set_adds(capsys):
    assert main(["diff", "bigbox_2021", "first_link"]) == 1
    out = capsys.readouterr().out
    assert "places named\n  + cities lübeck-coellen added" in out
    assert "flag 'linked_lubeck_coellen' added (flag linked_lubeck_coellen)" in out


def test_a_broken_board_is_its_own_error_not_the_places(tmp_path, capsys):
    """A route of the board naming an unknown city: the board's one error, no error (and no
    crash) about the places the rules name."""
    board = (
        'board broken "a broken board" {\n'
        "    city Hamborg at (0.1, 0.1) { square white }\n"
        "    city Lübeck at (0.2, 0.1) { square white }\n"
        "    route Hamburg -- Lübeck: 3 tavern\n"
        "}\n"
    )
    body = "at turn end: gain 1 PP if route complete of Hamburg-Lübeck"
    text = board + RULES.format(body=body) + "game places-b = places on broken players 4\n"
    code, errors = check(tmp_path, capsys, text)
    assert code == 1
    assert not any("Hamburg-Lübeck" in line or "hamburg-lübeck" in line for line in errors)
    assert any("names unknown city 'Hamburg'" in line for line in errors)
