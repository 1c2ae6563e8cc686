"""Regions of a board's plane drawing (compiler/board/regions.py): faces of the routes and soldiers
drawn straight between the cities' positions, on tiny hand-made drawings and on the 2-3 player
board."""

from __future__ import annotations

from pathlib import Path

import pytest
from hansa.compiler.board.regions import (
    RegionError,
    Soldier,
    board_regions,
    check_pawn,
    compute_regions,
    segments_cross,
)
from hansa.compiler.errors import Span
from hansa.compiler.nodes.board import Board, City, Route
from hansa.compiler.project import load_project
from hansa.compiler.rules.resolve import resolve

SPEC = Path(__file__).resolve().parents[2] / "spec"

# A unit square, y growing downwards as on a board scan, and its centre.
SQUARE = {"A": (0.0, 0.0), "B": (1.0, 0.0), "C": (1.0, 1.0), "D": (0.0, 1.0), "E": (0.5, 0.5)}


def region_of(regions, *cities: str) -> int:
    """The one region whose boundary has exactly these cities."""
    found = [r for r in range(regions.count) if set(regions.cities[r]) == set(cities)]
    assert len(found) == 1, (cities, regions.cities)
    return found[0]


def test_an_open_path_leaves_one_region():
    regions = compute_regions(SQUARE, [("A", "B"), ("B", "C"), ("C", "D")])
    assert regions.count == 1
    assert regions.route_regions == ((0,), (0,), (0,))
    assert regions.distance == ((0,),)


def test_a_soldier_closes_a_square_into_an_inside_and_an_outside():
    routes = [("A", "B"), ("B", "C"), ("C", "D")]
    regions = compute_regions(SQUARE, routes, [Soldier(("D", "A"))])
    assert regions.count == 2
    assert regions.route_regions == ((0, 1), (0, 1), (0, 1))
    assert regions.region_routes == ((0, 1, 2), (0, 1, 2))
    assert regions.distance == ((0, 1), (1, 0))  # crossing the soldier is one border
    assert regions.label(0) == "outer region"
    assert regions.label(1) == "region 1 (A, B, C, D)"


def test_a_dead_end_route_lies_inside_one_region():
    routes = [("A", "B"), ("B", "C"), ("C", "D"), ("D", "A"), ("A", "E")]
    regions = compute_regions(SQUARE, routes)
    assert regions.count == 2
    assert regions.route_regions[4] == (1,)  # both sides of A-E are the square's inside
    assert 4 in regions.region_routes[1] and 4 not in regions.region_routes[0]


def test_a_diagonal_splits_the_square_in_two_triangles():
    routes = [("A", "B"), ("B", "C"), ("C", "D"), ("D", "A"), ("A", "C")]
    regions = compute_regions(SQUARE, routes)
    assert regions.count == 3
    abc, acd = region_of(regions, "A", "B", "C"), region_of(regions, "A", "C", "D")
    assert regions.route_regions[4] == tuple(sorted((abc, acd)))
    assert regions.distance[abc][acd] == 1
    assert regions.distance[0][abc] == 1 and regions.distance[0][acd] == 1


def test_a_separate_drawing_inside_a_face_belongs_to_that_face():
    pos = {
        "A": (0.0, 0.0),
        "B": (1.0, 0.0),
        "C": (0.5, 1.0),
        "X": (0.4, 0.3),
        "Y": (0.6, 0.3),
        "Z": (0.5, 0.5),
    }
    routes = [("A", "B"), ("B", "C"), ("C", "A"), ("X", "Y"), ("Y", "Z"), ("Z", "X")]
    regions = compute_regions(pos, routes)
    assert regions.count == 3  # outside, the ring between the triangles, the small triangle
    ring = region_of(regions, "A", "B", "C", "X", "Y", "Z")
    inner = region_of(regions, "X", "Y", "Z")
    assert regions.distance[0][inner] == 2
    assert regions.distance[0][ring] == 1
    assert regions.route_regions[3] == tuple(sorted((ring, inner)))


def test_crossing_routes_are_a_located_error():
    span = Span("board.hansa", 7, 5)
    with pytest.raises(RegionError) as caught:
        compute_regions(SQUARE, [("A", "C"), ("B", "D")], route_spans=[Span("b", 1, 1), span])
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.span == span
    assert "route B -- D crosses route A -- C at (0.500, 0.500)" in diagnostic.message


def test_a_soldier_crossing_a_route_is_an_error():
    with pytest.raises(RegionError, match="soldier B -- D crosses route A -- C"):
        compute_regions(SQUARE, [("A", "C")], [Soldier(("B", "D"))])


def test_soldier_errors():
    routes = [("A", "B"), ("B", "C")]
    with pytest.raises(RegionError, match="already is a border"):
        compute_regions(SQUARE, routes, [Soldier(("B", "A"))])
    with pytest.raises(RegionError, match="unknown city 'Q'"):
        compute_regions(SQUARE, routes, [Soldier(("A", "Q"))])
    with pytest.raises(RegionError, match="declared twice"):
        compute_regions(SQUARE, routes, [Soldier(("C", "D")), Soldier(("D", "C"))])


@pytest.mark.parametrize(
    "a,b,c,d,crossing",
    [
        ((0, 0), (1, 1), (0, 1), (1, 0), True),
        ((0, 0), (1, 0), (0, 1), (1, 1), False),
        ((0, 0), (1, 0), (1, 0), (2, 1), False),  # a shared end only
        ((0, 0), (2, 0), (1, 0), (3, 0), True),  # overlapping along a line
        ((0, 0), (2, 0), (0, 0), (1, 0), True),  # one lies on the other from a shared end
        ((0, 0), (2, 0), (1, 0), (1, 1), True),  # an end touching the other's middle
    ],
)
def test_segments_cross(a, b, c, d, crossing):
    assert segments_cross(a, b, c, d) is crossing


def _hanseatic():
    project = load_project([SPEC])
    rules = resolve("original_2009_2p", project.rulesets)
    return project.boards["hanseatic_3p"], rules.pawn


def test_every_spec_board_is_drawn_planar():
    project = load_project([SPEC])
    for board in project.boards.values():
        assert board_regions(board).count >= 2


def test_the_four_soldiers_cut_the_2_3_player_side_into_eleven_regions():
    """Seed 001, 2-player game: the borders are the routes and four soldiers between Osnabrück and
    Münster, Münster and Dortmund, Lüneburg and Brunswiek, Brunswiek and Goslar."""
    board, pawn = _hanseatic()
    assert board_regions(board).count == 7
    regions = board_regions(board, pawn.soldiers)
    assert regions.count == 11
    routes = [r.cities for r in board.routes]
    coellen = routes.index(("Coellen", "Warburg"))
    assert regions.route_regions[coellen] == (0,)  # a dead end on the outside
    west = region_of(regions, "Arnheim", "Dortmund", "Duisburg", "Münster")
    south = region_of(regions, "Dortmund", "Minden", "Münster", "Paderborn")
    assert regions.distance[west][south] == 1  # across the soldier Münster-Dortmund
    assert {routes[r] for r in regions.region_routes[west]} == {
        ("Arnheim", "Duisburg"),
        ("Arnheim", "Münster"),
        ("Dortmund", "Duisburg"),
    }
    assert max(max(row) for row in regions.distance) == 3
    for sides in regions.route_regions:
        assert len(sides) in (1, 2)


def test_check_pawn_reports_unknown_cities_and_idle_soldiers():
    board, _pawn = _hanseatic()
    span = Span("rules.hansa", 3, 5)
    (err,) = check_pawn(board, [("Osnabrück", "Munstr")], span, "g")
    assert err.severity == "error" and err.span == span
    assert "no city 'Munstr'" in err.message and "did you mean" in err.message
    assert check_pawn(board, [("Osnabruck", "Munster")], span, "g") == []  # aliases work
    # Two separate routes joined by a soldier: the same region lies on both its sides.
    tiny = Board(
        "tiny",
        "Tiny",
        cities=tuple(City(name, (), position=SQUARE[name]) for name in "ABCD"),
        routes=(Route(("A", "B"), ("any",)), Route(("C", "D"), ("any",))),
    )
    (warning,) = check_pawn(tiny, [("B", "C")], span, "g")
    assert warning.severity == "warning" and "separates nothing" in warning.message
    assert warning.span == span


def test_a_pawn_rule_set_is_checked_against_its_games_board(tmp_path):
    """The soldiers name cities of the board a game plays on; errors point at the statement."""
    spec = tmp_path / "house.hansa"
    spec.write_text(
        "rules duel extends original_2009 {\n"
        "    pawn soldiers Osnabrück -- Münster, Münster -- Dortmun free_borders 1\n"
        "}\n"
        "game duel-2p = duel on hanseatic_3p players 2\n",
        encoding="utf-8",
    )
    project = load_project([spec, SPEC])
    (error,) = project.errors
    assert error.span.file == str(spec) and (error.span.line, error.span.column) == (2, 5)
    assert "no city 'Dortmun' (did you mean 'Dortmund'?)" in error.message
    spec.write_text(
        spec.read_text(encoding="utf-8").replace("Dortmun ", "Dortmund "), encoding="utf-8"
    )
    project = load_project([spec, SPEC])
    assert project.errors == []
    assert resolve("duel", project.rulesets).pawn.free_borders == 1


def test_pawn_statement_errors_are_located(tmp_path):
    spec = tmp_path / "bad.hansa"
    spec.write_text(
        "rules bad extends original_2009 {\n    pawn soldiers 3 -- Münster\n}\n", encoding="utf-8"
    )
    (error,) = load_project([spec, SPEC]).errors
    assert (error.span.line, error.span.column) == (2, 19)
    assert "expected a city name, got the number 3" in error.message
    spec.write_text(
        "rules bad extends original_2009 {\n    pawn soldiers Münster\n}\n", encoding="utf-8"
    )
    (error,) = load_project([spec, SPEC]).errors
    assert "expected a comma list of city pairs A -- B, got the word 'Münster'" in error.message


def test_remove_pawn(tmp_path):
    spec = tmp_path / "plain.hansa"
    text = "rules plain extends original_2009_2p {\n    remove pawn\n}\n"
    spec.write_text(text, encoding="utf-8")
    project = load_project([spec, SPEC])
    assert project.errors == []
    assert resolve("plain", project.rulesets).pawn is None
    assert resolve("original_2009_2p", project.rulesets).pawn is not None


def test_diff_shows_the_pawn(tmp_path):
    """`hansa diff` reports the variant as one addition and soldier changes as sets."""
    from hansa.compiler.diff.edits import diff_rulesets

    spec = tmp_path / "duel.hansa"
    spec.write_text(
        "rules duel extends original_2009_2p {\n"
        "    pawn soldiers Münster -- Osnabrück, Dortmund -- Münster, Lüneburg -- Brunswiek\n"
        "         free_borders 1\n"
        "}\n",
        encoding="utf-8",
    )
    project = load_project([spec, SPEC])
    base = resolve("original_2009", project.rulesets)
    two = resolve("original_2009_2p", project.rulesets)
    duel = resolve("duel", project.rulesets)
    (added,) = diff_rulesets(base, two)
    assert (added.op, added.area) == ("added", "2-player pawn")
    changed = {e.field: (e.old, e.new) for e in diff_rulesets(two, duel)}
    assert changed["free_borders"] == (2, 1)
    old, new = ({tuple(pair) for pair in side} for side in changed["soldiers"])
    assert old - new == {("Brunswiek", "Goslar")}  # reversed pairs are the same soldiers
    assert new <= old


def test_a_pawn_game_for_more_players_is_warned_about(tmp_path):
    spec = tmp_path / "three.hansa"
    spec.write_text("game three-2p = original_2009_2p on hanseatic_3p players 2..3\n", "utf-8")
    project = load_project([spec, SPEC])
    assert project.errors == []
    (warning,) = [d for d in project.diagnostics if d.span and d.span.file == str(spec)]
    assert warning.severity == "warning" and "2-player rule" in warning.message
    assert (warning.span.line, warning.span.column) == (1, 58)  # at "2..3"
