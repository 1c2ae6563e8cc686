"""Boards that extend boards (compiler/board/extend.py, docs/board-language.md "Boards that extend
boards"): a child states what differs from its parent, is checked as the complete board it folds
into with errors at the author's line, is formatted, diffed by meaning, drawn, built and played."""

from __future__ import annotations

from pathlib import Path

import pytest
from hansa.compiler.board.format import format_source
from hansa.compiler.diff.edits import diff_boards
from hansa.compiler.project import load_project
from hansa.play.simulate import UNFINISHED, make_agents, play_game

import hansa
from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
GAME_LINE = "game mine-game = bigbox_2021 on mine players 4..5\n"


def project_of(tmp_path: Path, text: str):
    spec = tmp_path / "spec"
    spec.mkdir(exist_ok=True)
    (spec / "mine.hansa").write_text(text, encoding="utf-8")
    return load_project([spec])


def errors_of(tmp_path: Path, body: str, parent: str = "hanseatic_45p") -> list[str]:
    """Each error as 'line:col: message' (a one-line header `board mine extends PARENT {`)."""
    project = project_of(tmp_path, f"board mine extends {parent} {{\n{body}}}\n")
    return [f"{d.span.line}:{d.span.column}: {d.message}" for d in project.errors]


def test_a_child_changes_only_what_it_states(tmp_path: Path) -> None:
    project = project_of(
        tmp_path,
        'board mine "Mine" extends hanseatic_45p {\n'
        "    completed_cities 9\n"
        "    change city Coellen { square white coin 1; square pink; round black }\n"
        "    change city Halle without ability\n"
        "    change route Warburg -- Coellen: 3\n"
        "    remove route Osnabrück -- Emden\n"
        "    route Emden -- Hannover: 3\n"
        "    city Neustadt at (0.5, 0.5) { square white }\n"
        "    route Neustadt -- Hannover: 2\n"
        "}\n" + GAME_LINE,
    )
    assert project.errors == []
    parent, mine = project.boards["hanseatic_45p"], project.boards["mine"]
    assert mine.extends is None and mine.edits == ()
    assert (mine.title, mine.completed_cities) == ("Mine", 9)
    assert [s.shape for s in mine.city("Coellen").spaces] == ["square", "square", "round"]
    assert mine.city("Coellen").position == parent.city("Coellen").position  # not restated
    assert mine.city("Halle").abilities == () and parent.city("Halle").abilities == ("keys",)
    routes = {r.key: r for r in mine.routes}
    assert routes[frozenset({"Coellen", "Warburg"})].points == ("any",) * 3
    assert frozenset({"Emden", "Osnabrück"}) not in routes
    assert len(mine.routes) == len(parent.routes) + 1
    assert len(mine.cities) == len(parent.cities) + 1
    assert mine.east_west == parent.east_west and mine.special_prestige == parent.special_prestige
    assert mine.verification == ()  # a changed board is not the verified printed side
    # the changed city points at the child's statement, an untouched one at the parent's file
    assert mine.city("Coellen").span.file.endswith("mine.hansa")
    assert mine.city("Bremen").span.file.endswith("hanseatic_45p.hansa")


def test_a_city_removed_with_its_routes_and_a_chain_of_children(tmp_path: Path) -> None:
    routes = [r for r in load_project([ROOT / "spec" / "boards"]).boards["hanseatic_45p"].routes]
    duisburg = [r.cities for r in routes if "Duisburg" in r.cities]
    removals = "".join(f"    remove route {a} -- {b}\n" for a, b in duisburg)
    project = project_of(
        tmp_path,
        f"board mine extends hanseatic_45p {{\n    remove city Duisburg\n{removals}}}\n"
        "board yours extends mine {\n    change city Bremen aka Brema\n}\n",
    )
    assert project.errors == []
    yours = project.boards["yours"]
    assert "Duisburg" not in {c.name for c in yours.cities}
    assert yours.city("Bremen").aliases == ("Brema",)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "    change city Coelln { square white }\n",
            "2:5: board hanseatic_45p has no city 'Coelln' (did you mean 'Coellen'?)",
        ),
        (
            "    remove route Emden -- Hamburg\n",
            "2:5: board hanseatic_45p has no route Emden -- Hamburg (routes from Emden go to:"
            " Groningen, Osnabrück, Stade)",
        ),
        (
            "    remove city Duisburg\n",
            "2:5: city 'Duisburg' is removed but route Arnheim -- Duisburg, route Dortmund --"
            " Duisburg still name it: remove or change those too",
        ),
        (
            "    city Bremen { square white }\n",
            "2:5: city 'Bremen' is on board hanseatic_45p already",
        ),
        (
            "    route Osnabrück -- Emden: 3\n",
            "2:5: route Osnabrück -- Emden is on board hanseatic_45p already",
        ),
        (
            "    change city Bremen { square white }\n    change city Bremen aka B\n",
            "3:5: city 'Bremen' is changed twice in board mine (first at line 2)",
        ),
        (
            "    change city Bremen\n",
            "2:5: `change city Bremen` changes nothing",
        ),
        (
            "    change route Bremen -- Hamburg without tavern, tavern\n",
            "2:52: route Bremen -- Hamburg: 'tavern' is listed twice after `without`",
        ),
        (
            "    change city Bremen without abilty\n",
            "2:32: unknown clause 'abilty' (did you mean 'ability'?)",
        ),
        ("    completed_cities 99\n", "2:5: completed_cities is 99"),
    ],
)
def test_one_mistake_gives_one_error_at_the_authors_line(
    tmp_path: Path, body: str, expected: str
) -> None:
    errors = errors_of(tmp_path, body)
    assert len(errors) == 1, errors
    assert errors[0].startswith(expected), errors


def test_an_inherited_finding_is_reported_at_the_extends_clause(tmp_path: Path) -> None:
    # Bremen's two routes removed: the parent's Bremen (in the built-in file) is cut off.
    errors = errors_of(
        tmp_path,
        "    remove route Bremen -- Hamburg\n    remove route Bremen -- Hannover\n"
        "    remove route Bremen -- Osnabrück\n    remove route Bremen -- Minden\n",
    )
    assert len(errors) == 1, errors
    assert errors[0].startswith("1:12: ") and "Bremen" in errors[0]
    assert "(inherited from hanseatic_45p, " in errors[0]


def test_unknown_parents_cycles_and_edits_without_a_parent(tmp_path: Path) -> None:
    assert errors_of(tmp_path, "", parent="hanseatic_45") == [
        "1:12: unknown board 'hanseatic_45' (did you mean 'hanseatic_45p'?)"
    ]
    project = project_of(tmp_path, "board a extends b { }\nboard b extends a { }\n")
    assert [d.message for d in project.errors] == ["boards extend each other in a cycle: a → b → a"]
    project = project_of(tmp_path, 'board a "A" {\n    remove city X\n}\n')
    assert [d.message.split(":")[0] for d in project.errors] == [
        "'remove city' changes the board this one extends, and board a extends none"
    ]


def test_a_game_on_a_broken_child_gets_no_second_error(tmp_path: Path) -> None:
    project = project_of(
        tmp_path, "board mine extends hanseatic_45p {\n    remove city Nowhere\n}\n" + GAME_LINE
    )
    assert len(project.errors) == 1 and "no city 'Nowhere'" in project.errors[0].message


def test_fmt_writes_only_what_the_child_states_and_keeps_comments(tmp_path: Path) -> None:
    text = (
        "board mine extends hanseatic_45p {\n"
        "    route Emden -- Hannover: 3\n"
        "    # the big one\n"
        "    change city Coellen   { square white coin 1; square pink; round black } # beside\n"
        "    remove route Osnabrück -- Emden\n"
        "    completed_cities 9\n"
        "    change route Lübeck -- Hamburg without tavern\n"
        "}\n"
    )
    formatted = format_source(text, "mine.hansa").text
    assert formatted == (
        "board mine extends hanseatic_45p {\n"
        "    completed_cities 9\n"
        "\n"
        "    # the big one\n"
        "    change city Coellen { square white coin 1; square pink; round black }  # beside\n"
        "\n"
        "    route Emden -- Hannover: 3\n"
        "    remove route Emden -- Osnabrück\n"
        "    change route Hamburg -- Lübeck without tavern\n"
        "}\n"
    )
    assert format_source(formatted, "mine.hansa").text == formatted


def test_diff_shows_the_change_by_meaning(tmp_path: Path) -> None:
    project = project_of(
        tmp_path,
        "board mine extends hanseatic_45p {\n"
        "    change city Coellen { square white coin 1; square black }\n"
        "    change route Bremen -- Hamburg: 2\n"
        "    route Emden -- Hannover: 3\n"
        "}\n",
    )
    edits = [
        e.describe() for e in diff_boards(project.boards["hanseatic_45p"], project.boards["mine"])
    ]
    assert any("city 'Coellen'" in e and "pink" in e and "black" in e for e in edits), edits
    assert any("route 'Bremen -- Hamburg'" in e for e in edits), edits
    assert any("route 'Emden -- Hannover' added" in e for e in edits), edits
    assert len(edits) == 3, edits


def test_the_shipped_board_builds_renders_and_plays(tmp_path: Path, capsys) -> None:
    code = main(
        ["render", "large_hamburg_45p", "-o", str(tmp_path / "b.svg"), "--spec", str(ROOT / "spec")]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "27 cities" in out and (tmp_path / "b.svg").read_text().count("Hamburg") >= 1
    game = hansa.load_game("large-hamburg-hanseatic-45p", 4)
    module = game.module
    assert len(module.CITY_SPACES[module.CITY_NAMES.index("Hamburg")]) == 4
    for seed in range(3):
        record, state = play_game(game, make_agents(["random"] * 4, seed), seed)
        assert state.is_terminal() and record.end_trigger != UNFINISHED


def test_a_users_child_of_a_built_in_board_compiles_and_plays_to_the_end(
    tmp_path: Path, monkeypatch
) -> None:
    project_of(
        tmp_path,
        "board mine extends hanseatic_45p {\n    change city Hamburg { square white }\n}\n"
        + GAME_LINE,
    )
    monkeypatch.chdir(tmp_path)
    game = hansa.compile_game("mine-game", 4)
    for seed in range(3):
        record, state = play_game(game, make_agents(["greedy"] * 4, seed), seed)
        assert state.is_terminal() and record.end_trigger != UNFINISHED


def test_the_web_app_draws_the_shipped_child_board() -> None:
    from hansa.web.sessions import Catalogue

    layout = Catalogue(ROOT / "spec").layout("large-hamburg-hanseatic-45p")["layout"]
    hamburg = next(c for c in layout["cities"] if c["name"] == "Hamburg")
    assert [s["shape"] for s in hamburg["spaces"]] == ["square", "square", "round", "square"]
    assert hamburg["spaces"][0]["coin"] == 2
