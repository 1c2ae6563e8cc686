"""Pictures for a map author: a short route's points spread so none touches another or a city,
a warning when two cities are too close to draw apart, and a board that extends another drawn
under its own name with what it added or changed marked."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hansa.compiler.board import render
from hansa.compiler.project import load_board

from hansa.cli import main

CLOSE = """board close "Close" {
    players 3
    completed_cities 3
    city Aachen at (0.30, 0.50) { square white; round orange; square pink }
    city Bonn at (0.42, 0.52) { square white; square black }
    city Celle at (0.36, 0.62) { square white }
    city Detmold at (0.70, 0.40) { square orange }
    route Aachen -- Bonn: 4 tavern
    route Bonn -- Celle: 3
    route Aachen -- Celle: 3
    route Bonn -- Detmold: 3
    route Celle -- Detmold: 4
}
"""
KIEL = """board kiel "The Hanseatic League with Kiel" extends hanseatic_45p {
    change city Hamburg { square white coin 2; square orange; round pink; square black }
    city Kiel at (0.80, 0.03) { square white; round orange }
    route Kiel -- Lübeck: 3
    route Kiel -- Hamburg: 2 tavern
}
"""


def board_of(tmp_path: Path, text: str, name: str = "b.hansa"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_board(path)


def plans_of(board):
    width, height = render._frame_units(board)
    positions, _ = render._city_positions(board, width, height)
    layouts = {c.name: render._layout_city(board, c, positions[c.name]) for c in board.cities}
    return layouts, render._plan_routes(board, layouts)


@pytest.mark.parametrize("text", [CLOSE, KIEL])
def test_points_of_short_routes_spread_clear_of_each_other_and_the_cities(tmp_path, text):
    board = board_of(tmp_path, text)
    layouts, plans = plans_of(board)
    placed: list[tuple[float, float, float]] = []
    for plan in plans:
        assert not plan.crowded, plan.route.cities
        size = plan.point_size
        for x, y in plan.points:
            # a point turned any way stays inside its circumscribed circle
            for other_x, other_y, other_size in placed:
                reach = (size + other_size) / math.sqrt(2)
                assert math.dist((x, y), (other_x, other_y)) >= reach * 0.999, plan.route.cities
            box = render._Rect(x - size / 2, y - size / 2, x + size / 2, y + size / 2)
            for name, layout in layouts.items():
                assert not render._overlaps(box, layout.extent), (plan.route.cities, name)
            placed.append((x, y, size))
    assert render.crowding(board, layouts, plans) == []


def test_two_cities_too_close_to_draw_apart_are_a_warning(tmp_path, capsys):
    tight = CLOSE.replace("city Bonn at (0.42, 0.52)", "city Bonn at (0.33, 0.51)")
    path = tmp_path / "tight.hansa"
    path.write_text(tight, encoding="utf-8")
    code = main(["render", str(path), "-o", str(tmp_path / "tight.svg"), "--no-legend"])
    _, err = capsys.readouterr()
    assert code == 0
    warnings = [line for line in err.splitlines() if ": warning: " in line]
    assert warnings == [
        f"{path}:5:5: warning: cities Aachen and Bonn are too close to draw apart: their boxes"
        " overlap on the picture (move their positions apart)"
    ]


def test_an_extending_board_names_itself_and_marks_its_changes(tmp_path, capsys):
    path = tmp_path / "kiel.hansa"
    path.write_text(KIEL, encoding="utf-8")
    picture = tmp_path / "kiel.svg"
    code = main(["render", str(path), "-o", str(picture)])
    out, _ = capsys.readouterr()
    assert code == 0
    assert out.startswith(
        f"wrote {picture}: The Hanseatic League with Kiel, extends hanseatic_45p, 28 cities"
    )
    assert "front side" not in out
    svg = picture.read_text(encoding="utf-8")
    for gid in (
        "changed:city:Hamburg",
        "added:city:Kiel",
        "added:route:Kiel--Lübeck",
        "added:route:Kiel--Hamburg",
    ):
        assert f'id="{gid}"' in svg, gid
    assert 'id="changed:city:Lübeck"' not in svg
    assert "extends hanseatic_45p: changed city Hamburg; added city Kiel" in svg
    assert "front side" not in svg  # the parent's printed side is not this board's


def test_a_board_of_its_own_is_drawn_as_before(tmp_path):
    board = board_of(tmp_path, CLOSE)
    assert board.derived_from == "" and board.own_edits == ()
    figure = render.draw_board(board, legend=False)
    texts = [t.get_text() for t in figure.texts]
    assert not any("extends" in t for t in texts)
