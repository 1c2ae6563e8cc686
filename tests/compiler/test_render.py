"""`hansa render`: every reference board drawn to SVG and PNG, checked element by element.

The SVG keeps matplotlib's `gid`s as element ids, so a test can count exactly one `space:` element
per trading-post space, one `point:` per connection point and one `city:` per city, and read what
each element looks like (ship points filled dark blue, house points white).
"""

from __future__ import annotations

import json
import math
import os
import struct
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from hansa.compiler.board import render
from hansa.compiler.board.json_io import board_from_json
from hansa.compiler.errors import HansaError
from hansa.compiler.nodes.board import Board, City, PostSpace, Route

from hansa.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "boards"
BOARD_IDS = ["hanseatic_3p", "hanseatic_45p", "eastern", "britannia_3p", "britannia_45p"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SVG_NS = "{http://www.w3.org/2000/svg}"


def reference_board(board_id: str) -> Board:
    path = FIXTURES / f"{board_id}.json"
    return board_from_json(json.loads(path.read_text(encoding="utf-8")), str(path))


def svg_elements(path: Path) -> dict[str, ET.Element]:
    """Every element of the SVG that has an id, by id (ids must be unique)."""
    root = ET.parse(path).getroot()
    found: dict[str, ET.Element] = {}
    for element in root.iter():
        ident = element.get("id")
        if ident is None:
            continue
        assert ident not in found, f"duplicate id {ident}"
        found[ident] = element
    return found


def with_prefix(ids, prefix: str) -> set[str]:
    return {i for i in ids if i.startswith(prefix + ":")}


def fill_of(group: ET.Element) -> str:
    """The fill colour of the first drawn path inside a gid group."""
    for child in group.iter(f"{SVG_NS}path"):
        style = child.get("style", "")
        for part in style.split(";"):
            key, _, value = part.partition(":")
            if key.strip() == "fill":
                return value.strip()
    raise AssertionError(f"no filled path in {group.get('id')}")


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture(scope="module")
def drawn(tmp_path_factory) -> dict[str, tuple[Board, Path, Path]]:
    """Each reference board rendered once to SVG and once to PNG (rendering is the slow part)."""
    folder = tmp_path_factory.mktemp("render")
    out = {}
    for board_id in BOARD_IDS:
        board = reference_board(board_id)
        svg = render.render_board(board, folder / f"{board_id}.svg")
        png = render.render_board(board, folder / f"{board_id}.png", dpi=60)
        out[board_id] = (board, svg, png)
    return out


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_svg_has_one_element_per_city_space_and_point(drawn, board_id):
    board, svg, _ = drawn[board_id]
    ids = svg_elements(svg)
    assert with_prefix(ids, "city") == {f"city:{c.name}" for c in board.cities}
    assert with_prefix(ids, "space") == {
        f"space:{c.name}:{i}" for c in board.cities for i in range(len(c.spaces))
    }
    assert with_prefix(ids, "point") == {
        f"point:{r.cities[0]}--{r.cities[1]}:{i}"
        for r in board.routes
        for i in range(len(r.points))
    }
    assert with_prefix(ids, "route") == {
        f"route:{r.cities[0]}--{r.cities[1]}" for r in board.routes
    }
    assert with_prefix(ids, "coin") == {
        f"coin:{c.name}:{i}" for c in board.cities for i, s in enumerate(c.spaces) if s.coin
    }
    # the README's totals, as a cross-check of the fixture and the drawing together
    expected = {
        "hanseatic_45p": (27, 62, 107),
        "hanseatic_3p": (27, 57, 101),
        "eastern": (28, 55, 98),
        "britannia_3p": (26, 60, 111),
        "britannia_45p": (30, 72, 121),
    }[board_id]
    counts = tuple(len(with_prefix(ids, p)) for p in ("city", "space", "point"))
    assert counts == expected


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_svg_marks_abilities_taverns_bonuses_terminals_and_special_prestige(drawn, board_id):
    board, svg, _ = drawn[board_id]
    ids = svg_elements(svg)
    assert with_prefix(ids, "ability") == {f"ability:{c.name}" for c in board.cities if c.abilities}
    assert with_prefix(ids, "tavern") == {
        f"tavern:{r.cities[0]}--{r.cities[1]}" for r in board.routes if r.tavern
    }
    assert len(with_prefix(ids, "tavern")) == 3
    assert with_prefix(ids, "bonus") == {
        f"bonus:{r.cities[0]}--{r.cities[1]}" for r in board.routes if r.permanent_bonus
    }
    assert with_prefix(ids, "east-west") == {f"east-west:{name}" for name in board.east_west}
    special = board.special_prestige
    assert with_prefix(ids, "prestige") == {
        f"prestige:{special.city}:{i}" for i in range(len(special.spaces))
    }
    assert with_prefix(ids, "special-route") == {
        f"special-route:{special.via[0]}--{special.via[1]}"
    }
    assert with_prefix(ids, "sea") == {
        f"sea:{r.cities[0]}--{r.cities[1]}" for r in board.routes if r.is_sea
    }
    # choices of abilities are written "A | B"
    svg_text = svg.read_text(encoding="utf-8")
    for city in board.cities:
        if len(city.abilities) > 1:
            assert " | ".join(city.abilities) in svg_text
        assert city.name.replace("&", "&amp;") in svg_text  # names stay text, searchable
    assert board.title in svg_text


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_ship_points_and_house_points_look_different(drawn, board_id):
    board, svg, _ = drawn[board_id]
    ids = svg_elements(svg)
    for route in board.routes:
        for index, kind in enumerate(route.points):
            fill = fill_of(ids[f"point:{route.cities[0]}--{route.cities[1]}:{index}"])
            assert fill == (render.SHIP_FACE if kind == "merchant" else render.HOUSE_FACE)


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_spaces_drawn_in_their_privilege_colour(drawn, board_id):
    board, svg, _ = drawn[board_id]
    ids = svg_elements(svg)
    for city in board.cities:
        for index, space in enumerate(city.spaces):
            fill = fill_of(ids[f"space:{city.name}:{index}"])
            assert fill == render.PRIVILEGE_COLOURS[space.privilege]


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_green_cities_and_countries_are_distinct(drawn, board_id):
    board, svg, _ = drawn[board_id]
    ids = svg_elements(svg)
    for city in board.cities:
        fill = fill_of(ids[f"city:{city.name}"])
        assert fill == (render.CITY_FACE if city.hanseatic else render.GREEN_CITY_FACE)
        # a city in several countries gets one outline per country
        extra = with_prefix(ids, f"country-outline:{city.name}")
        assert len(extra) == max(len(city.countries) - 1, 0)


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_png_is_a_png_with_the_map_drawn(drawn, board_id):
    _, _, png = drawn[board_id]
    data = png.read_bytes()
    width, height = png_size(data)
    assert width > 300 and height > 300


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_map_keeps_the_frame_aspect_ratio(board_id):
    board = reference_board(board_id)
    figure = render.draw_board(board, legend=False)
    ax = figure.axes[0]
    x0, x1 = ax.get_xlim()
    y1, y0 = ax.get_ylim()
    frame_w, frame_h = board.frame
    # the drawn area is the frame plus a small margin on every side
    assert (x1 - x0) / (y1 - y0) == pytest.approx(frame_w / frame_h, rel=0.08)
    assert ax.get_aspect() == 1.0
    # and the axes box has that shape in inches too, so nothing is stretched
    bbox = ax.get_position()
    fig_w, fig_h = figure.get_size_inches()
    assert (bbox.width * fig_w) / (bbox.height * fig_h) == pytest.approx(
        (x1 - x0) / (y1 - y0), rel=1e-6
    )


@pytest.mark.parametrize("board_id", BOARD_IDS)
def test_points_clear_of_cities_and_each_other(board_id):
    """What an author needs to read the map: no point on a city's drawing or on another point, and
    each route's points in order from its first city to its second."""
    board = reference_board(board_id)
    width, height = render._frame_units(board)
    positions, note = render._city_positions(board, width, height)
    assert note is None
    layouts = {c.name: render._layout_city(board, c, positions[c.name]) for c in board.cities}
    plans = render._plan_routes(board, layouts)
    placed = []
    for plan in plans:
        size = plan.point_size
        assert size >= render.POINT * 0.75
        for x, y in plan.points:
            inner = render._Rect(x - size / 2, y - size / 2, x + size / 2, y + size / 2)
            for name, layout in layouts.items():
                assert not render._overlaps(inner, layout.extent), (plan.route.cities, name)
            for other_x, other_y, other_size in placed:
                assert math.dist((x, y), (other_x, other_y)) >= 0.99 * min(size, other_size)
            placed.append((x, y, size))
        start = layouts[plan.route.cities[0]].centre
        distances = [math.dist(start, p) for p in plan.points]
        assert distances == sorted(distances)
    # cities do not overlap one another
    names = sorted(layouts)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert not render._overlaps(layouts[a].extent, layouts[b].extent), (a, b)


def test_rendering_is_deterministic_and_fast(tmp_path):
    import time

    board = reference_board("britannia_45p")
    started = time.process_time()
    first = render.render_board(board, tmp_path / "a.svg")
    elapsed = time.process_time() - started
    second = render.render_board(board, tmp_path / "b.svg")
    assert first.read_bytes() == second.read_bytes()
    assert elapsed < 2.0


def test_written_file_is_readable_like_any_new_file(tmp_path):
    target = render.render_board(small_board(), tmp_path / "map.svg")
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


# --- bad output paths ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["map.pdf", "map.jpg", "map", "map.svg.txt"])
def test_bad_extension_names_the_accepted_ones_and_writes_nothing(tmp_path, name):
    with pytest.raises(HansaError) as caught:
        render.render_board(small_board(), tmp_path / name)
    assert ".svg" in caught.value.message and ".png" in caught.value.message
    assert list(tmp_path.iterdir()) == []


def test_upper_case_extension_is_accepted(tmp_path):
    target = render.render_board(small_board(), tmp_path / "MAP.PNG", dpi=20)
    assert target.read_bytes()[:8] == PNG_SIGNATURE


def test_missing_folder_is_a_hansa_error(tmp_path):
    with pytest.raises(HansaError, match="cannot write"):
        render.render_board(small_board(), tmp_path / "no" / "such" / "map.svg")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into read-only folders")
def test_unwritable_folder_is_a_hansa_error(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(HansaError, match="cannot write"):
            render.render_board(reference_board("eastern"), folder / "map.svg")
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o700)


def test_directory_as_output_is_a_hansa_error(tmp_path):
    folder = tmp_path / "map.svg"
    folder.mkdir()
    with pytest.raises(HansaError, match="directory"):
        render.render_board(small_board(), folder)
    assert list(folder.iterdir()) == []


def test_failure_while_saving_leaves_nothing_and_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "map.png"
    target.write_bytes(b"old picture")

    def broken_savefig(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(render.Figure, "savefig", broken_savefig)
    with pytest.raises(HansaError, match="No space left"):
        render.render_board(small_board(), target)
    assert target.read_bytes() == b"old picture"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["map.png"]


@pytest.mark.parametrize("dpi", [0, -5, 9, 601, 100000])
def test_absurd_dpi_is_refused(tmp_path, dpi):
    with pytest.raises(HansaError, match="dpi"):
        render.render_board(small_board(), tmp_path / "map.png", dpi=dpi)
    assert list(tmp_path.iterdir()) == []


# --- boards the renderer must cope with ----------------------------------------------------------


def small_board(**changes) -> Board:
    cities = (
        City("Alpha", (PostSpace("square", "white", 1), PostSpace("round", "black")), ("book",)),
        City("Beta", (PostSpace("square", "orange"),), ("actions", "bank")),
        City("Gamma", (), hanseatic=False),
    )
    routes = (
        Route(("Alpha", "Beta"), ("any", "any", "any"), tavern=True),
        Route(("Beta", "Gamma"), ("any", "merchant"), permanent_bonus="develop_privilege"),
    )
    board = Board(
        id="tiny",
        title="Tiny",
        side="test side",
        players=(3,),
        cities=cities,
        routes=routes,
        east_west=("Alpha", "Gamma"),
    )
    return replace(board, **changes)


def test_board_without_positions_uses_a_networkx_layout_and_says_so(tmp_path):
    board = small_board()
    target = render.render_board(board, tmp_path / "tiny.svg")
    ids = svg_elements(target)
    assert "note" in ids
    assert "networkx" in target.read_text(encoding="utf-8")
    assert len(with_prefix(ids, "space")) == 3
    assert len(with_prefix(ids, "point")) == 5
    assert with_prefix(ids, "ability") == {"ability:Alpha", "ability:Beta"}
    assert "actions | bank" in target.read_text(encoding="utf-8")


def test_board_with_some_positions_keeps_them_and_places_the_rest(tmp_path):
    board = small_board()
    cities = (
        replace(board.cities[0], position=(0.2, 0.3)),
        replace(board.cities[1], position=(0.7, 0.6)),
        board.cities[2],
    )
    board = replace(board, cities=cities, frame=(1000, 800))
    positions, note = render._city_positions(board, 1.0, 0.8)
    assert positions["Alpha"] == pytest.approx((0.2, 0.24))
    assert positions["Beta"] == pytest.approx((0.7, 0.48))
    assert "Gamma" in note and "networkx" in note
    x, y = positions["Gamma"]
    assert 0 <= x <= 1.0 and 0 <= y <= 0.8
    target = render.render_board(board, tmp_path / "tiny.png", dpi=30)
    assert target.read_bytes()[:8] == PNG_SIGNATURE


def test_route_to_an_unknown_city_is_a_hansa_error(tmp_path):
    board = small_board(routes=(Route(("Alpha", "Nowhere"), ("any", "any")),))
    with pytest.raises(HansaError, match="Nowhere"):
        render.render_board(board, tmp_path / "tiny.svg")
    assert list(tmp_path.iterdir()) == []


def test_no_legend_leaves_the_legend_out(tmp_path):
    with_legend = render.render_board(small_board(), tmp_path / "a.svg")
    without = render.render_board(small_board(), tmp_path / "b.svg", legend=False)
    assert "square space: trader only" in with_legend.read_text(encoding="utf-8")
    assert "square space: trader only" not in without.read_text(encoding="utf-8")


# --- the command ---------------------------------------------------------------------------------


def test_command_renders_a_spec_board_by_file(tmp_path, capsys):
    spec = ROOT / "spec" / "boards" / "hanseatic_45p.hansa"
    target = tmp_path / "map.png"
    assert main(["render", str(spec), "-o", str(target), "--dpi", "30"]) == 0
    assert target.read_bytes()[:8] == PNG_SIGNATURE
    assert "map.png" in capsys.readouterr().out


def test_command_renders_a_spec_board_by_name_to_the_default_file(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    board_name = "eastern"
    output = tmp_path / "out.svg"
    assert main(["render", board_name, "-o", str(output)]) == 0
    ids = svg_elements(output)
    assert len(with_prefix(ids, "space")) == 55
    # without -o: BOARD_ID.svg in the current folder
    spec = ROOT / "spec" / "boards" / "eastern.hansa"
    monkeypatch.chdir(tmp_path)
    assert main(["render", str(spec), "--no-legend"]) == 0
    assert (tmp_path / "eastern.svg").is_file()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["-o", "map.pdf"], "use .svg or .png"),
        (["-o", "no/such/folder/map.svg"], "cannot write"),
        (["-o", "map.png", "--dpi", "0"], "--dpi"),
    ],
)
def test_command_errors_are_one_clear_message_and_exit_1(
    tmp_path, monkeypatch, capsys, extra, message
):
    monkeypatch.chdir(tmp_path)
    spec = ROOT / "spec" / "boards" / "eastern.hansa"
    assert main(["render", str(spec), *extra]) == 1
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_command_with_a_missing_board_file_exits_1(tmp_path, capsys):
    assert main(["render", str(tmp_path / "missing.hansa"), "-o", str(tmp_path / "m.svg")]) == 1
    assert "Traceback" not in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_board_with_errors_is_refused_unless_lenient(tmp_path):
    board = small_board(
        routes=(
            Route(("Alpha", "Beta"), ("any", "any")),
            Route(("Beta", "Alpha"), ("any", "any", "any")),  # the same route again
            Route(("Gamma", "Gamma"), ("any", "any")),  # a loop
            Route(("Alpha", "Nowhere"), ("any", "any")),
        ),
    )
    with pytest.raises(HansaError, match="no city 'Nowhere'"):
        render.render_board(board, tmp_path / "tiny.svg")
    with pytest.raises(HansaError, match="second route Beta -- Alpha"):
        render.render_board(replace(board, routes=board.routes[:3]), tmp_path / "tiny.svg")
    assert list(tmp_path.iterdir()) == []
    target = render.render_board(board, tmp_path / "tiny.svg", lenient=True)
    ids = svg_elements(target)
    assert with_prefix(ids, "route") == {"route:Alpha--Beta"}
    text = target.read_text(encoding="utf-8")
    assert "Not drawn" in text and "Nowhere" in text and "a loop" in text


def test_command_draws_a_broken_board_only_when_asked(tmp_path, capsys):
    source = (ROOT / "spec" / "boards" / "eastern.hansa").read_text(encoding="utf-8")
    broken = source.replace("route Anklam -- Belgard", "route Anklam -- Nowhere", 1)
    assert broken != source
    spec = tmp_path / "broken.hansa"
    spec.write_text(broken, encoding="utf-8")
    target = tmp_path / "map.svg"
    assert main(["render", str(spec), "-o", str(target)]) == 1
    assert "Nowhere" in capsys.readouterr().err
    assert not target.exists()
    assert main(["render", str(spec), "-o", str(target), "--draw-anyway"]) == 1
    captured = capsys.readouterr()
    assert "Nowhere" in captured.err and "despite errors" in captured.out
    ids = svg_elements(target)
    assert "route:Anklam--Nowhere" not in ids
    assert len(with_prefix(ids, "city")) == 28


def test_position_far_outside_the_frame_is_pulled_in_and_noted(tmp_path):
    board = small_board(frame=(1000, 800))
    cities = (
        replace(board.cities[0], position=(1e9, -5.0)),
        replace(board.cities[1], position=(0.5, 0.5)),
        replace(board.cities[2], position=(1.1, 0.5)),  # a little outside: drawn where it is
    )
    board = replace(board, cities=cities)
    positions, note = render._city_positions(board, 1.0, 0.8)
    assert positions["Alpha"] == pytest.approx((1.0, 0.0))
    assert positions["Gamma"] == pytest.approx((1.1, 0.4))
    assert "Alpha at (1e+09, -5)" in note and "Gamma" not in note
    target = render.render_board(board, tmp_path / "map.png", dpi=40)
    width, height = png_size(target.read_bytes())
    assert width < 4000 and height < 4000


def test_empty_board_still_draws(tmp_path):
    target = render.render_board(Board(id="empty", title="Empty"), tmp_path / "empty.svg")
    ids = svg_elements(target)
    assert not with_prefix(ids, "city") and "title" in ids


def test_png_too_large_is_refused_before_writing(tmp_path):
    huge = City("Long", (PostSpace("square", "white"),) * 800, position=(0.5, 0.5))
    board = Board(id="huge", title="Huge", cities=(huge,), frame=(100, 100))
    with pytest.raises(HansaError, match="pixels"):
        render.render_board(board, tmp_path / "huge.png", dpi=120)
    assert list(tmp_path.iterdir()) == []


def test_a_game_with_the_neutral_pawn_draws_its_regions_and_soldiers(tmp_path, monkeypatch):
    """`hansa render GAME`: the regions tinted and numbered as in the game's action names, the
    soldiers as dashed borders; neighbouring regions never share a tint."""
    monkeypatch.chdir(ROOT)
    target = tmp_path / "two.svg"
    assert main(["render", "original-hanseatic-2p", "-o", str(target)]) == 0
    elements = svg_elements(target)
    regions = with_prefix(elements, "region")
    assert regions == {f"region:{r}" for r in range(1, 11)}  # 0, the outside, is not tinted
    assert with_prefix(elements, "soldier") == {
        "soldier:Osnabrück--Münster",
        "soldier:Münster--Dortmund",
        "soldier:Lüneburg--Brunswiek",
        "soldier:Brunswiek--Goslar",
    }
    from hansa.compiler.board.regions import board_regions
    from hansa.compiler.project import load_project
    from hansa.compiler.rules.resolve import resolve

    project = load_project([ROOT / "spec"])
    pawn = resolve("original_2009_2p", project.rulesets).pawn
    found = board_regions(project.boards["hanseatic_3p"], pawn.soldiers)
    tint = {r: fill_of(elements[f"region:{r}"]) for r in range(1, 11)}
    for r in range(1, 11):
        for q in range(r + 1, 11):
            if found.distance[r][q] == 1:
                assert tint[r] != tint[q], (r, q)
    # A game without the pawn draws its board as before.
    plain = tmp_path / "plain.svg"
    assert main(["render", "original-hanseatic-23p", "-o", str(plain)]) == 0
    assert not with_prefix(svg_elements(plain), "region")
