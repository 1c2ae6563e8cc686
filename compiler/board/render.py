"""Draw a board from its IR as an SVG or PNG picture, so an author spots a wrong space at a glance.

The picture follows the printed board: every city sits at its `position` (fractions of the scan
frame, aspect ratio kept) and shows its trading-post spaces left to right in shape (square / round)
and privilege colour with coins, its ability, East-West and special-prestige marks. Routes run
between cities with their connection points spaced along the free part of the line (house points
white squares, ship points dark-blue discs with an anchor), bent aside where the points would not
fit or would collide; taverns and permanent bonus markers are labelled, countries coloured on
routes and city outlines. Each drawn element that stands for board data carries a `gid`
(`city:Lübeck`, `space:Lübeck:0`, `point:Bremen--Hamburg:1`, ...) so the SVG can be checked by
machine.

Matplotlib draws through its object-oriented API on the Agg canvas (no pyplot, no display), once
per call; the output format follows the file extension and the file is written atomically.
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import matplotlib
import networkx as nx
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, FancyBboxPatch, Patch, PathPatch, Rectangle
from matplotlib.path import Path as MplPath

from hansa.atomic import write_atomically

from ..errors import Diagnostic, HansaError
from ..nodes.board import Board, City, Route
from .regions import Regions

FORMATS: dict[str, str] = {".svg": "svg", ".png": "png"}
DEFAULT_DPI = 120
MIN_DPI, MAX_DPI = 10, 600
MAX_PIXELS = 20000  # per side of a PNG (Agg's hard limit is 65536)
LEGEND_HEIGHT = 6.0  # inches the longest legend needs
OUTSIDE_FRAME = 0.25  # positions this far outside the frame (fractions) are pulled in

# --- sizes, in units of the frame's longer side (the map's longer side is 1.0) -------------------
INCHES_PER_UNIT = 17.0  # the map's longer side is drawn this many inches long
SPACE = 0.0150  # side of a trading-post space
SPACE_GAP = 0.0030
SPECIAL_SPACE = 0.0125
PAD = 0.0028  # inside a city box
POINT = 0.0100  # a connection point on a route
POINT_GAP = 0.0030
NAME_PT = 7.5
SMALL_PT = 5.6
BADGE_PT = 6.0
LABEL_PT = 5.6

# --- colours -------------------------------------------------------------------------------------
PRIVILEGE_COLOURS = {"white": "#ffffff", "orange": "#f28c28", "pink": "#ee8fc0", "black": "#1e1e1e"}
PRIVILEGE_TEXT = {"white": "#1e1e1e", "orange": "#1e1e1e", "pink": "#1e1e1e", "black": "#ffffff"}
COIN_FACE, COIN_EDGE = "#f4c430", "#7a5c00"
HOUSE_FACE, HOUSE_EDGE = "#ffffff", "#2b2b2b"
SHIP_FACE = "#0f2a5c"
ROUTE_COLOUR = "#8a8a8a"
SEA_UNDERLAY = "#a9d3f0"
SPECIAL_COLOUR = "#d4a017"
EAST_WEST_COLOUR = "#c0392b"
# What a board that extends another added or changed (its picture marks them)
EDIT_COLOURS = {"added": "#1e9e5a", "changed": "#8e44ad"}
ABILITY_FACE, ABILITY_EDGE = "#ece4f7", "#5b3b8c"
TAVERN_FACE, TAVERN_EDGE = "#f6e3c6", "#7b4a12"
BONUS_FACE, BONUS_EDGE = "#dff3e4", "#1e7a3c"
GREEN_CITY_FACE = "#bfe3b0"
CITY_FACE, CITY_EDGE = "#ffffff", "#4a4a4a"
# Drawing conventions for the countries of the printed boards (route colours: England white, Wales
# brown, Scotland blue; England drawn grey to show on white paper). Other countries get a palette.
# The 2-player variant's regions: pale tints (cycled), their numbers, and the soldiers.
REGION_TINTS = ("#f3e6c8", "#dbe9f5", "#e3f1d9", "#f6dde0", "#e8e0f3", "#f9f0c9", "#d9efec")
REGION_NUMBER = "#b8ad93"
SOLDIER_COLOUR = "#c0392b"
COUNTRY_COLOURS = {"england": "#9a9a9a", "wales": "#8b5a2b", "scotland": "#2f6fb5"}
COUNTRY_PALETTE = ("#7b2d8e", "#d35400", "#16a085", "#b03a2e", "#1f618d", "#7d6608")

_UNITS_PER_POINT = 1.0 / (72.0 * INCHES_PER_UNIT)


def _text_width(text: str, size_pt: float, bold: bool = False) -> float:
    """Estimated width of a one-line text in map units (DejaVu Sans averages ~0.6 em per glyph)."""
    return len(text) * size_pt * (0.64 if bold else 0.58) * _UNITS_PER_POINT


def _text_height(size_pt: float) -> float:
    return size_pt * 1.25 * _UNITS_PER_POINT


@dataclass
class _Rect:
    x0: float
    y0: float
    x1: float
    y1: float

    def union(self, other: _Rect) -> _Rect:
        return _Rect(
            min(self.x0, other.x0),
            min(self.y0, other.y0),
            max(self.x1, other.x1),
            max(self.y1, other.y1),
        )

    def contains(self, x: float, y: float, margin: float = 0.0) -> bool:
        return (
            self.x0 - margin <= x <= self.x1 + margin and self.y0 - margin <= y <= self.y1 + margin
        )


@dataclass
class _Badge:
    text: str
    kind: str  # "ability" | "east_west"
    rect: _Rect


@dataclass
class _CityLayout:
    """Where each part of a city's drawing goes (map units, y grows downwards)."""

    city: City
    centre: tuple[float, float]  # centre of the row of spaces: the city's position
    spaces: list[tuple[float, float]]
    special: list[tuple[float, float]]
    name_y: float
    detail_lines: list[tuple[str, float]]  # smaller text lines under the name
    box: _Rect
    badges: list[_Badge] = field(default_factory=list)

    @property
    def extent(self) -> _Rect:
        rect = self.box
        for badge in self.badges:
            rect = rect.union(badge.rect)
        return rect


def render_board(
    board: Board,
    path: str | os.PathLike[str],
    *,
    dpi: int = DEFAULT_DPI,
    legend: bool = True,
    lenient: bool = False,
    regions: Regions | None = None,
    warnings: list[Diagnostic] | None = None,
) -> Path:
    """Draw `board` and save it to `path` (.svg or .png by extension); returns the path written.
    `warnings`, when given, receives what the picture cannot show apart (`crowding`).

    The file appears only when the drawing is complete (temporary file in the same folder, renamed);
    any failure raises `HansaError` and leaves nothing behind. `lenient` draws a board that fails
    its checks (a map under construction): what cannot be drawn is left out and listed on it.
    """
    target = Path(path)
    fmt = output_format(target)
    check_dpi(dpi)
    if target.is_dir():
        raise HansaError(f"cannot write {target}: it is a directory")
    figure = draw_board(board, legend=legend, lenient=lenient, regions=regions, warnings=warnings)
    if fmt == "png":
        pixels = [round(inches * dpi) for inches in figure.get_size_inches()]
        if max(pixels) > MAX_PIXELS:
            raise HansaError(
                f"cannot draw {target}: the picture would be {pixels[0]} x {pixels[1]} pixels,"
                f" more than {MAX_PIXELS} a side (use a lower --dpi, or .svg)"
            )
    _save_atomically(figure, target, fmt, dpi)
    return target


def output_format(path: Path) -> str:
    """The picture format for `path`'s extension, or a HansaError naming the accepted extensions."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        accepted = " or ".join(FORMATS)
        if path.suffix:
            problem = f"'{path.suffix}' is not a picture format hansa writes"
        else:
            problem = "the file name has no extension"
        raise HansaError(f"cannot draw to '{path}': {problem} (use {accepted})")
    return fmt


def check_dpi(dpi: int) -> int:
    """`dpi` if it is a sensible resolution, else a HansaError (a huge one would exhaust memory)."""
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise HansaError(f"--dpi must be between {MIN_DPI} and {MAX_DPI}, not {dpi}")
    return dpi


def draw_board(
    board: Board,
    *,
    legend: bool = True,
    lenient: bool = False,
    regions: Regions | None = None,
    warnings: list[Diagnostic] | None = None,
) -> Figure:
    """Build the matplotlib figure of `board` (unsaved); the map scale is fixed in inches.
    `regions` (the 2-player variant's) are drawn as tinted, numbered faces with their soldiers;
    `warnings`, when given, receives `crowding`'s warnings."""
    left_out: list[str] = []
    if lenient:
        board, left_out = _drawable_part(board)
    _check_references(board)
    width, height = _frame_units(board)
    positions, note = _city_positions(board, width, height)
    if left_out:
        shown = "; ".join(left_out[:4]) + (
            f"; and {len(left_out) - 4} more" if len(left_out) > 4 else ""
        )
        note = (note + ". " if note else "") + f"Not drawn (the board has errors): {shown}"
    layouts = {city.name: _layout_city(board, city, positions[city.name]) for city in board.cities}

    plans = _plan_routes(board, layouts)
    if warnings is not None:
        warnings.extend(crowding(board, layouts, plans))

    bounds = _Rect(0.0, 0.0, width, height)
    for layout in layouts.values():
        bounds = bounds.union(layout.extent)
    for plan in plans:  # bent routes and their labels may reach past the frame
        for x, y in plan.path:
            bounds = bounds.union(_Rect(x, y, x, y))
        for label in plan.labels:
            half_w, half_h = _label_half_size(label.text)
            bounds = bounds.union(
                _Rect(label.x - half_w, label.y - half_h, label.x + half_w, label.y + half_h)
            )
    margin = 0.012
    bounds = _Rect(bounds.x0 - margin, bounds.y0 - margin, bounds.x1 + margin, bounds.y1 + margin)

    map_w = (bounds.x1 - bounds.x0) * INCHES_PER_UNIT
    map_h = (bounds.y1 - bounds.y0) * INCHES_PER_UNIT
    if note:
        note = _wrap("Note: " + note, max(60, int((map_w + 3.6) * 13)))
    note_lines = note.count("\n") + 1 if note else 0
    title_h, bottom_h, side_pad = 0.95, 0.2 + 0.2 * note_lines, 0.2
    legend_w = 3.6 if legend else 0.0
    fig_w = side_pad + map_w + legend_w + side_pad
    content_h = max(map_h, LEGEND_HEIGHT if legend else 0.0)  # a flat map still shows the legend
    fig_h = title_h + content_h + bottom_h
    figure = Figure(figsize=(fig_w, fig_h))
    FigureCanvasAgg(figure)
    map_bottom = bottom_h + content_h - map_h
    ax = figure.add_axes((side_pad / fig_w, map_bottom / fig_h, map_w / fig_w, map_h / fig_h))
    ax.set_xlim(bounds.x0, bounds.x1)
    ax.set_ylim(bounds.y1, bounds.y0)  # origin top-left, like the scan
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.add_artist(
        Rectangle((0, 0), width, height, facecolor="#fbfaf5", edgecolor="#d8d4c4", lw=0.8, zorder=0)
    )

    if regions is not None:
        _draw_regions(ax, regions, positions)
    country_colours = _country_colours(board)
    for plan in plans:
        _draw_route(ax, board, plan, country_colours)
    for city in board.cities:
        _draw_city(ax, board, layouts[city.name], country_colours)
    _draw_own_edits(ax, board, layouts, plans)

    _draw_titles(figure, board, fig_w, fig_h, side_pad, title_h, note)
    if legend:
        legend_ax = figure.add_axes(
            (
                (side_pad + map_w + 0.1) / fig_w,
                bottom_h / fig_h,
                (legend_w - 0.1) / fig_w,
                1 - (bottom_h + title_h) / fig_h,
            )
        )
        legend_ax.set_axis_off()
        _draw_legend(legend_ax, board, country_colours, regions)
    return figure


# --- validation and layout -----------------------------------------------------------------------


def _drawable_part(board: Board) -> tuple[Board, list[str]]:
    """The part of a board that fails its checks which can still be drawn, and what was left out."""
    left_out: list[str] = []
    cities: list[City] = []
    names: set[str] = set()
    for city in board.cities:
        if city.name in names:
            left_out.append(f"second city {city.name}")
            continue
        names.add(city.name)
        cities.append(city)
    routes: list[Route] = []
    seen: set[frozenset[str]] = set()
    for route in board.routes:
        label = f"route {route.cities[0]} -- {route.cities[1]}"
        unknown = [name for name in route.cities if name not in names]
        if unknown:
            left_out.append(f"{label} (no city {', '.join(unknown)})")
        elif route.cities[0] == route.cities[1]:
            left_out.append(f"{label} (a loop)")
        elif route.key in seen:
            left_out.append(f"second {label}")
        else:
            seen.add(route.key)
            routes.append(route)
    east_west = board.east_west
    if east_west and not set(east_west) <= names:
        left_out.append("East-West marks (no such city)")
        east_west = None
    special = board.special_prestige
    if special and special.city not in names:
        left_out.append(f"special prestige (no city {special.city})")
        special = None
    drawable = replace(
        board,
        cities=tuple(cities),
        routes=tuple(routes),
        east_west=east_west,
        special_prestige=special,
    )
    return drawable, left_out


def _check_references(board: Board) -> None:
    """Refuse a board whose routes or marks name cities it lacks (the checks report these first)."""
    names = {city.name for city in board.cities}
    for route in board.routes:
        for name in route.cities:
            if name not in names:
                raise HansaError(
                    f"cannot draw route {route.cities[0]} -- {route.cities[1]}: no city '{name}'",
                    route.span if route.span.line else None,
                )
    marks: list[tuple[str, str, object]] = []
    if board.east_west:
        marks += [("East-West terminal", name, board.span) for name in board.east_west]
    if board.special_prestige:
        marks.append(
            ("special-prestige city", board.special_prestige.city, board.special_prestige.span)
        )
    for what, name, span in marks:
        if name not in names:
            raise HansaError(
                f"cannot draw the {what}: no city '{name}'", span if span.line else None
            )
    _, left_out = _drawable_part(board)
    if left_out:
        raise HansaError(f"cannot draw board {board.id}: {left_out[0]} (the board has errors)")
    for city in board.cities:
        for index, space in enumerate(city.spaces):
            if space.privilege not in PRIVILEGE_COLOURS or space.shape not in ("square", "round"):
                raise HansaError(
                    f"cannot draw space {index + 1} of {city.name}: "
                    f"'{space.shape} {space.privilege}' is not a known shape and colour",
                    space.span if space.span.line else None,
                )


def _frame_units(board: Board) -> tuple[float, float]:
    """Width and height of the map in units of its longer side, keeping the scan's aspect ratio."""
    frame_w, frame_h = board.frame if board.frame else (1400, 1000)
    if frame_w <= 0 or frame_h <= 0:
        raise HansaError(f"cannot draw board {board.id}: frame {frame_w} x {frame_h} is empty")
    longer = max(frame_w, frame_h)
    return frame_w / longer, frame_h / longer


def _city_positions(
    board: Board, width: float, height: float
) -> tuple[dict[str, tuple[float, float]], str | None]:
    """Each city's centre in map units; cities without a position are placed by networkx.

    A position far outside the frame (the checks only warn about it) is pulled in to the frame's
    edge and named in the note, so one typo cannot blow the picture up to an unusable size.
    """
    placed: dict[str, tuple[float, float]] = {}
    pulled_in: list[str] = []
    for city in board.cities:
        if city.position is None or not all(math.isfinite(v) for v in city.position):
            continue
        x, y = city.position
        low, high = -OUTSIDE_FRAME, 1.0 + OUTSIDE_FRAME
        if not (low <= x <= high and low <= y <= high):
            pulled_in.append(f"{city.name} at ({x:g}, {y:g})")
            x, y = min(max(x, 0.0), 1.0), min(max(y, 0.0), 1.0)
        placed[city.name] = (x, y)
    missing = [c.name for c in board.cities if c.name not in placed]
    positions, note = _place_missing(board, placed, missing, width, height)
    if pulled_in:
        shown = ", ".join(pulled_in[:4]) + (", …" if len(pulled_in) > 4 else "")
        extra = f"drawn at the frame's edge, their positions lie far outside it: {shown}"
        if note:
            extra = extra[0].upper() + extra[1:]
        note = f"{note}. {extra}" if note else extra
    return positions, note


def _place_missing(
    board: Board,
    placed: dict[str, tuple[float, float]],
    missing: list[str],
    width: float,
    height: float,
) -> tuple[dict[str, tuple[float, float]], str | None]:
    """Scale the known positions to map units and lay out the missing ones with networkx."""
    if not missing:
        return {name: (x * width, y * height) for name, (x, y) in placed.items()}, None

    graph = nx.Graph()
    graph.add_nodes_from(c.name for c in board.cities)
    graph.add_edges_from(r.cities for r in board.routes if r.cities[0] != r.cities[1])
    if placed:
        # Keep the known positions fixed, and start the others at their neighbours' centre.
        start = {name: (x, y) for name, (x, y) in placed.items()}
        for index, name in enumerate(missing):
            known = [placed[n] for n in graph.neighbors(name) if n in placed]
            jitter = 0.01 * (index % 5)  # cities with the same neighbours must not start together
            if known:
                start[name] = (
                    sum(p[0] for p in known) / len(known) + jitter,
                    sum(p[1] for p in known) / len(known),
                )
            else:
                start[name] = (0.5 + jitter, 0.5)
        raw = nx.spring_layout(graph, pos=start, fixed=list(placed), seed=7, k=0.12)
        fractions = dict(placed)
        for name in missing:
            x, y = float(raw[name][0]), float(raw[name][1])
            fractions[name] = (min(max(x, 0.04), 0.96), min(max(y, 0.04), 0.96))
        note = (
            f"{len(missing)} of {len(board.cities)} cities have no position "
            f"({', '.join(sorted(missing)[:6])}{', …' if len(missing) > 6 else ''}): "
            "placed by a networkx spring layout"
        )
    else:
        raw = nx.spring_layout(graph, seed=7)
        xs = [float(p[0]) for p in raw.values()] or [0.0]
        ys = [float(p[1]) for p in raw.values()] or [0.0]
        span_x = (max(xs) - min(xs)) or 1.0
        span_y = (max(ys) - min(ys)) or 1.0
        fractions = {
            name: (
                0.08 + 0.84 * (float(p[0]) - min(xs)) / span_x,
                0.10 + 0.80 * (float(p[1]) - min(ys)) / span_y,
            )
            for name, p in raw.items()
        }
        note = "this board has no city positions: cities placed by a networkx spring layout"
    return {name: (x * width, y * height) for name, (x, y) in fractions.items()}, note


def _layout_city(board: Board, city: City, centre: tuple[float, float]) -> _CityLayout:
    """Place the rows of a city's drawing around its position (the centre of its row of spaces)."""
    cx, cy = centre
    count = len(city.spaces)
    row_w = count * SPACE + max(count - 1, 0) * SPACE_GAP
    spaces = [(cx - row_w / 2 + SPACE / 2 + i * (SPACE + SPACE_GAP), cy) for i in range(count)]

    special: list[tuple[float, float]] = []
    special_w = 0.0
    is_special = board.special_prestige is not None and board.special_prestige.city == city.name
    if is_special:
        n = len(board.special_prestige.spaces)
        special_w = n * SPECIAL_SPACE + max(n - 1, 0) * SPACE_GAP
        special_y = cy - SPACE / 2 - SPACE_GAP - SPECIAL_SPACE / 2
        special = [
            (cx - special_w / 2 + SPECIAL_SPACE / 2 + i * (SPECIAL_SPACE + SPACE_GAP), special_y)
            for i in range(n)
        ]

    if city.hanseatic and count:
        top = (special[0][1] - SPECIAL_SPACE / 2) if special else cy - SPACE / 2
        name_y = cy + SPACE / 2 + SPACE_GAP * 0.6 + _text_height(NAME_PT) / 2
    else:  # a green city or one without spaces: the name sits on the position
        top = (special[0][1] - SPECIAL_SPACE / 2) if special else cy - _text_height(NAME_PT) / 2
        name_y = cy
    details: list[str] = []
    if not city.hanseatic:
        details.append("non-Hanseatic")
    if city.permissions:
        details.append("permission: " + ", ".join(c.title() for c in city.permissions))
    y = name_y + _text_height(NAME_PT) / 2
    detail_lines = []
    for text in details:
        detail_lines.append((text, y + _text_height(SMALL_PT) / 2))
        y += _text_height(SMALL_PT)
    bottom = y

    content_w = max(
        [row_w, special_w, _text_width(city.name, NAME_PT, bold=True)]
        + [_text_width(text, SMALL_PT) for text in details]
    )
    box = _Rect(cx - content_w / 2 - PAD, top - PAD, cx + content_w / 2 + PAD, bottom + PAD * 0.6)

    badges_spec: list[tuple[str, str]] = []
    if city.abilities:
        badges_spec.append((" | ".join(city.abilities), "ability"))
    if board.east_west and city.name in board.east_west:
        badges_spec.append(("East-West", "east_west"))
    badges = []
    if badges_spec:
        badge_h = _text_height(BADGE_PT) + 0.0016
        widths = [_text_width(text, BADGE_PT, bold=True) + 0.004 for text, _ in badges_spec]
        total = sum(widths) + 0.002 * (len(widths) - 1)
        x = cx - total / 2
        y1 = box.y0 - 0.0008
        for (text, kind), w in zip(badges_spec, widths, strict=True):
            badges.append(_Badge(text, kind, _Rect(x, y1 - badge_h, x + w, y1)))
            x += w + 0.002
    return _CityLayout(city, (cx, cy), spaces, special, name_y, detail_lines, box, badges)


def _country_colours(board: Board) -> dict[str, str]:
    """A colour per country: the printed convention where known, a palette otherwise."""
    names: list[str] = list(board.countries)
    for city in board.cities:
        names += [c for c in city.countries + city.permissions if c not in names]
    for route in board.routes:
        if route.country and route.country not in names:
            names.append(route.country)
    colours: dict[str, str] = {}
    spare = iter(COUNTRY_PALETTE * (1 + len(names) // len(COUNTRY_PALETTE)))
    for name in names:
        colours[name] = COUNTRY_COLOURS.get(name.lower()) or next(spare)
    return colours


# --- drawing -------------------------------------------------------------------------------------


def crowding(
    board: Board, layouts: dict[str, _CityLayout], plans: list[_RoutePlan]
) -> list[Diagnostic]:
    """Warnings for what the picture cannot draw apart: two cities whose boxes overlap, and a
    route whose points overlap each other or a city however its line is bent (its two cities are
    too close for its points). Each names what to move."""
    out: list[Diagnostic] = []
    cities = board.cities
    overlapping: set[frozenset[str]] = set()
    for i, a in enumerate(cities):
        for b in cities[i + 1 :]:
            if _overlaps(layouts[a.name].extent, layouts[b.name].extent):
                overlapping.add(frozenset((a.name, b.name)))
                out.append(
                    Diagnostic(
                        f"cities {a.name} and {b.name} are too close to draw apart: their boxes"
                        " overlap on the picture (move their positions apart)",
                        b.span,
                        severity="warning",
                    )
                )
    for plan in plans:
        if plan.crowded and plan.route.key not in overlapping:  # one warning per cause
            a, b = plan.route.cities
            out.append(
                Diagnostic(
                    f"cities {a} and {b} are too close to draw route {a} -- {b} apart: its"
                    f" {len(plan.route.points)} points overlap each other or a city on the"
                    " picture (move the cities apart)",
                    plan.route.span,
                    severity="warning",
                )
            )
    return out


def _route_id(route: Route) -> str:
    return f"{route.cities[0]}--{route.cities[1]}"


@dataclass
class _Label:
    text: str
    kind: str  # "tavern" | "bonus"
    x: float
    y: float
    face: str
    edge: str


@dataclass
class _RoutePlan:
    """Where a route's line, points and markers go (chosen by `_plan_routes`)."""

    route: Route
    path: list[tuple[float, float]]
    points: list[tuple[float, float]]
    angles: list[float]  # direction of the line at each point, degrees (house points turn with it)
    point_size: float
    labels: list[_Label]
    crowded: bool = False  # its points overlap each other or a city box however it is bent


BENDS = (
    0.0,
    0.008,
    -0.008,
    0.016,
    -0.016,
    0.026,
    -0.026,
    0.038,
    -0.038,
    0.055,
    -0.055,
    0.075,
    -0.075,
    # wide arcs: a short route between close cities finds room for its points
    0.10,
    -0.10,
    0.13,
    -0.13,
    0.17,
    -0.17,
)
SAMPLES = 48


@dataclass
class _Occupancy:
    """What the routes planned so far cover: point and label boxes, the free stretches of lines."""

    boxes: list[_Rect] = field(default_factory=list)
    segments: list[tuple[float, float, float, float]] = field(default_factory=list)

    def box_hits(self, rect: _Rect, margin: float) -> int:
        grown = _Rect(rect.x0 - margin, rect.y0 - margin, rect.x1 + margin, rect.y1 + margin)
        return sum(1 for other in self.boxes if _overlaps(grown, other))

    def near_line(self, x: float, y: float, distance: float) -> bool:
        for x0, y0, x1, y1 in self.segments:
            if (
                min(x0, x1) - distance <= x <= max(x0, x1) + distance
                and min(y0, y1) - distance <= y <= max(y0, y1) + distance
                and _segment_distance(x, y, x0, y0, x1, y1) < distance
            ):
                return True
        return False


def _segment_distance(px: float, py: float, x0: float, y0: float, x1: float, y1: float) -> float:
    dx, dy = x1 - x0, y1 - y0
    norm = dx * dx + dy * dy
    t = 0.0 if norm == 0 else min(1.0, max(0.0, ((px - x0) * dx + (py - y0) * dy) / norm))
    return math.hypot(px - x0 - t * dx, py - y0 - t * dy)


def _plan_routes(board: Board, layouts: dict[str, _CityLayout]) -> list[_RoutePlan]:
    """Lay out every route: straight if its points fit and stay clear, else bent to one side.

    A route's points go on the free stretch of its line between the two cities' drawings. Straight
    lines are tried first; a route whose points do not fit, would sit on another city, on points or
    a line already placed, or whose line would run under another city (and so seem to end there) is
    bent into a curve to whichever side costs least. Routes with the least room per point go first.
    """
    extents = {name: layout.extent for name, layout in layouts.items()}
    taken = _Occupancy()
    plans: dict[int, _RoutePlan] = {}

    def room(route: Route) -> float:
        (x0, y0), (x1, y1) = layouts[route.cities[0]].centre, layouts[route.cities[1]].centre
        return math.hypot(x1 - x0, y1 - y0) / max(len(route.points), 1)

    for index in sorted(range(len(board.routes)), key=lambda i: room(board.routes[i])):
        route = board.routes[index]
        best: tuple[float, _RoutePlan, list[_Rect], list] | None = None
        for bend in BENDS:
            plan, rects, segments, cost = _try_route(route, bend, layouts, extents, taken)
            cost += abs(bend) * 40.0 + (1000.0 if plan.crowded else 0.0)
            if best is None or cost < best[0] - 1e-9:
                best = (cost, plan, rects, segments)
            if cost == 0.0:
                break
        plans[index] = best[1]
        taken.boxes.extend(best[2])
        taken.segments.extend(best[3])
    return [plans[i] for i in range(len(board.routes))]


def _try_route(
    route: Route,
    bend: float,
    layouts: dict[str, _CityLayout],
    extents: dict[str, _Rect],
    taken: _Occupancy,
) -> tuple[_RoutePlan, list[_Rect], list[tuple[float, float, float, float]], float]:
    """A candidate layout of `route` bent by `bend` map units: plan, boxes, line pieces, cost."""
    start, end = layouts[route.cities[0]], layouts[route.cities[1]]
    path, arc = _bent_path(start.centre, end.centre, bend)

    clear = POINT * 0.65
    first = next(
        (k for k, (x, y) in enumerate(path) if not start.extent.contains(x, y, clear)), SAMPLES
    )
    last = next((k for k in range(SAMPLES, -1, -1) if not end.extent.contains(*path[k], clear)), 0)
    s0, s1 = arc[first], arc[last]
    count = len(route.points)
    cost = 0.0
    size = POINT
    needed = count * _footprint(size)
    free = s1 - s0
    if free < needed and count:
        # smaller points first (down to 3/4), then the points crowd (a bend should find room)
        size = min(POINT, max(POINT * 0.75, (free / count - POINT_GAP * 0.5) / math.sqrt(2)))
        needed = count * _footprint(size)
        cost += (1.0 - size / POINT) * 25.0  # smaller points are harder to read
        if free < needed:
            cost += 30.0 + (needed - free) * 400.0
    if free >= needed:
        step = free / max(count, 1)
        offsets = [s0 + step * (i + 0.5) for i in range(count)]
    else:
        middle = (s0 + s1) / 2 if s1 > s0 else arc[-1] / 2
        step = _footprint(size)
        offsets = [middle + (i - (count - 1) / 2) * step for i in range(count)]
    spots = [_along(path, arc, s) for s in offsets]
    points = [(x, y) for x, y, _ in spots]
    angles = [math.degrees(math.atan2(ty, tx)) for _, _, (tx, ty) in spots]
    rects = [_Rect(x - size / 2, y - size / 2, x + size / 2, y + size / 2) for x, y in points]

    others = [r for name, r in extents.items() if name not in route.cities]
    # crowded: two of its points closer than a point's diagonal (squares turn with the line, so
    # neighbours on a curve lean into each other), or a point on a city box or on another
    # route's point
    turned = [
        _Rect(r.x0 - size * 0.2, r.y0 - size * 0.2, r.x1 + size * 0.2, r.y1 + size * 0.2)
        for r in rects
    ]  # what a square turned with the line may cover
    crowded = (
        any(math.dist(p, q) < size * math.sqrt(2) for p, q in zip(points, points[1:], strict=False))
        or any(_overlaps(rect, extent) for rect in turned for extent in extents.values())
        or any(taken.box_hits(rect, 0.0) for rect in turned)
    )
    for (x, y), rect in zip(points, rects, strict=True):
        cost += 10.0 * sum(1 for other in others if _overlaps(rect, other))
        cost += 6.0 * taken.box_hits(rect, POINT * 0.35)
        if taken.near_line(x, y, POINT * 0.8):
            cost += 4.0  # a point on another route's line reads as that route's point
    free_path = path[first : last + 1]
    segments = [
        (x0, y0, x1, y1) for (x0, y0), (x1, y1) in zip(free_path, free_path[1:], strict=False)
    ]
    # a line under another city reads as if the route ended there; under a point, as if it were its
    for other in others:
        if any(other.contains(x, y, 0.001) for x, y in free_path[::2]):
            cost += 4.0
    for box in taken.boxes:
        if any(box.contains(x, y, POINT * 0.2) for x, y in free_path):
            cost += 3.0

    labels, label_cost = _route_labels(route, path, arc, (s0, s1), size, extents, taken, rects)
    plan = _RoutePlan(route, path, points, angles, size, labels, crowded)
    return plan, rects, segments, cost + label_cost


def _footprint(size: float) -> float:
    """The length of line one point needs: its diagonal (a square turned any way fits) and half
    the gap between points."""
    return size * math.sqrt(2) + POINT_GAP * 0.5


def _bent_path(
    a: tuple[float, float], b: tuple[float, float], bend: float
) -> tuple[list[tuple[float, float]], list[float]]:
    """The route's line from centre `a` to centre `b`, sampled, and the arc length at each sample:
    a quadratic Bézier through a control point beside the middle, its apex `bend` off the chord."""
    (ax0, ay0), (bx0, by0) = a, b
    dx, dy = bx0 - ax0, by0 - ay0
    length = math.hypot(dx, dy) or 1e-9
    nx_, ny_ = -dy / length, dx / length
    cx, cy = (ax0 + bx0) / 2 + 2 * bend * nx_, (ay0 + by0) / 2 + 2 * bend * ny_
    path = []
    for k in range(SAMPLES + 1):
        t = k / SAMPLES
        u = 1 - t
        path.append(
            (u * u * ax0 + 2 * u * t * cx + t * t * bx0, u * u * ay0 + 2 * u * t * cy + t * t * by0)
        )
    arc = [0.0]
    for (x0, y0), (x1, y1) in zip(path, path[1:], strict=False):
        arc.append(arc[-1] + math.hypot(x1 - x0, y1 - y0))
    return path, arc


def _route_labels(
    route: Route,
    path,
    arc,
    free: tuple[float, float],
    size: float,
    extents,
    taken: _Occupancy,
    rects: list[_Rect],
) -> tuple[list[_Label], float]:
    """The route's tavern and permanent-bonus labels beside the middle of its free line, each on
    the side where it clashes least (its box added to `rects`), and what the clashes cost."""
    s0, s1 = free
    cost = 0.0
    labels: list[_Label] = []
    markers = []
    if route.tavern:
        markers.append(("tavern", "tavern", TAVERN_FACE, TAVERN_EDGE))
    if route.permanent_bonus:
        text = _wrap("bonus: " + route.permanent_bonus.replace("_", " "), 22)
        markers.append((text, "bonus", BONUS_FACE, BONUS_EDGE))
    mx, my, (tx, ty) = _along(path, arc, (s0 + s1) / 2 if s1 > s0 else arc[-1] / 2)
    normal = (-ty, tx)
    sides_taken: set[int] = set()
    for text, kind, face, edge in markers:
        half_w, half_h = _label_half_size(text)
        reach = abs(normal[0]) * half_w + abs(normal[1]) * half_h
        off = size * 0.6 + reach + 0.002
        options = []
        for side in (1, -1):
            if side in sides_taken:
                continue
            lx, ly = mx + side * normal[0] * off, my + side * normal[1] * off
            rect = _Rect(lx - half_w, ly - half_h, lx + half_w, ly + half_h)
            clash = sum(1 for other in extents.values() if _overlaps(rect, other))
            clash += taken.box_hits(rect, 0.0) + sum(1 for r in rects if _overlaps(rect, r))
            clash += sum(
                1
                for x0, y0, x1, y1 in taken.segments
                if rect.contains(x0, y0) or rect.contains(x1, y1)
            )
            options.append((clash, side, lx, ly, rect))
        clash, side, lx, ly, rect = min(options, key=lambda o: o[0])
        sides_taken.add(side)
        cost += 5.0 * clash
        labels.append(_Label(text, kind, lx, ly, face, edge))
        rects.append(rect)
    return labels, cost


def _along(
    path: list[tuple[float, float]], arc: list[float], s: float
) -> tuple[float, float, tuple[float, float]]:
    """The point at arc length `s` on a sampled path, and the unit tangent there."""
    s = min(max(s, 0.0), arc[-1])
    for k in range(1, len(arc)):
        if arc[k] >= s or k == len(arc) - 1:
            (x0, y0), (x1, y1) = path[k - 1], path[k]
            seg = arc[k] - arc[k - 1]
            f = (s - arc[k - 1]) / seg if seg > 0 else 0.0
            norm = math.hypot(x1 - x0, y1 - y0) or 1.0
            return x0 + (x1 - x0) * f, y0 + (y1 - y0) * f, ((x1 - x0) / norm, (y1 - y0) / norm)
    x, y = path[0]
    return x, y, (1.0, 0.0)


def _overlaps(a: _Rect, b: _Rect) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _label_half_size(text: str) -> tuple[float, float]:
    lines = text.split("\n")
    pad = LABEL_PT * 0.25 * _UNITS_PER_POINT + 0.0008
    half_w = max(_text_width(line, LABEL_PT) for line in lines) / 2 + pad
    half_h = _text_height(LABEL_PT) * len(lines) / 2 + pad
    return half_w, half_h


def _draw_route(ax, board: Board, plan: _RoutePlan, colours: dict[str, str]) -> None:
    """The route line under the cities, its points on the free part of it, its markers beside."""
    route = plan.route
    rid = _route_id(route)
    xs = [x for x, _ in plan.path]
    ys = [y for _, y in plan.path]
    colour = colours.get(route.country, ROUTE_COLOUR) if route.country else ROUTE_COLOUR
    special = board.special_prestige is not None and set(board.special_prestige.via) == set(
        route.cities
    )
    if special:
        ax.add_artist(
            Line2D(
                xs,
                ys,
                color=SPECIAL_COLOUR,
                lw=7,
                alpha=0.55,
                zorder=1.1,
                solid_capstyle="round",
                gid=f"special-route:{rid}",
            )
        )
    if route.is_sea:
        ax.add_artist(
            Line2D(
                xs,
                ys,
                color=SEA_UNDERLAY,
                lw=9,
                alpha=0.8,
                zorder=1.0,
                solid_capstyle="round",
                gid=f"sea:{rid}",
            )
        )
    ax.add_artist(
        Line2D(xs, ys, color=colour, lw=2.2, zorder=1.2, solid_capstyle="round", gid=f"route:{rid}")
    )
    size = plan.point_size
    spots = zip(route.points, plan.points, plan.angles, strict=True)
    for index, (kind, (px, py), angle) in enumerate(spots):
        gid = f"point:{rid}:{index}"
        if kind == "merchant":
            ax.add_artist(
                Circle(
                    (px, py),
                    size * 0.55,
                    facecolor=SHIP_FACE,
                    edgecolor="white",
                    lw=0.6,
                    zorder=4,
                    gid=gid,
                )
            )
            ax.text(
                px,
                py,
                "⚓",
                color="white",
                fontsize=5.2 * size / POINT,
                ha="center",
                va="center_baseline",
                zorder=4.1,
            )
        else:
            ax.add_artist(
                Rectangle(
                    (px - size / 2, py - size / 2),
                    size,
                    size,
                    angle=angle,
                    rotation_point="center",
                    facecolor=HOUSE_FACE,
                    edgecolor=HOUSE_EDGE,
                    lw=0.9,
                    zorder=4,
                    gid=gid,
                )
            )
    for label in plan.labels:
        ax.text(
            label.x,
            label.y,
            label.text,
            fontsize=LABEL_PT,
            ha="center",
            va="center",
            color=label.edge,
            zorder=5,
            gid=f"{label.kind}:{rid}",
            bbox={
                "boxstyle": "round,pad=0.25",
                "facecolor": label.face,
                "edgecolor": label.edge,
                "lw": 0.7,
            },
        )


def _wrap(text: str, width: int) -> str:
    """Break a label into lines of about `width` characters at spaces."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    lines.append(current)
    return "\n".join(lines)


def _draw_city(ax, board: Board, layout: _CityLayout, colours: dict[str, str]) -> None:
    """A city: its outline (one per country it belongs to), name and details, spaces, special
    prestige spaces and badges."""
    _draw_city_frame(ax, layout, colours)
    _draw_spaces(ax, layout)
    if layout.special:
        _draw_special_prestige(ax, board, layout)
    _draw_badges(ax, layout)


def _draw_city_frame(ax, layout: _CityLayout, colours: dict[str, str]) -> None:
    city = layout.city
    box = layout.box
    edge_colours = [colours[c] for c in city.countries] or [CITY_EDGE]
    face = CITY_FACE if city.hanseatic else GREEN_CITY_FACE
    for depth, edge in enumerate(edge_colours):
        inset = depth * 0.0014
        ax.add_artist(
            FancyBboxPatch(
                (box.x0 + inset, box.y0 + inset),
                box.x1 - box.x0 - 2 * inset,
                box.y1 - box.y0 - 2 * inset,
                boxstyle="round,pad=0,rounding_size=0.003",
                facecolor=face if depth == 0 else "none",
                edgecolor=edge,
                lw=1.6 if city.countries else 0.9,
                alpha=0.95,
                zorder=2 + depth * 0.01,
                gid=f"city:{city.name}" if depth == 0 else f"country-outline:{city.name}:{depth}",
            )
        )
    ax.text(
        layout.centre[0],
        layout.name_y,
        city.name,
        fontsize=NAME_PT,
        fontweight="bold",
        ha="center",
        va="center",
        zorder=3,
        color="#111111",
    )
    for text, y in layout.detail_lines:
        ax.text(
            layout.centre[0],
            y,
            text,
            fontsize=SMALL_PT,
            ha="center",
            va="center",
            zorder=3,
            color="#2e6b1f" if text == "non-Hanseatic" else "#333333",
            style="italic",
        )


def _draw_spaces(ax, layout: _CityLayout) -> None:
    city = layout.city
    for index, (space, (x, y)) in enumerate(zip(city.spaces, layout.spaces, strict=True)):
        gid = f"space:{city.name}:{index}"
        fill = PRIVILEGE_COLOURS[space.privilege]
        if space.shape == "round":
            patch = Circle(
                (x, y), SPACE / 2, facecolor=fill, edgecolor="#111111", lw=0.9, zorder=3, gid=gid
            )
        else:
            patch = Rectangle(
                (x - SPACE / 2, y - SPACE / 2),
                SPACE,
                SPACE,
                facecolor=fill,
                edgecolor="#111111",
                lw=0.9,
                zorder=3,
                gid=gid,
            )
        ax.add_artist(patch)
        if space.coin:
            ax.add_artist(
                Circle(
                    (x, y),
                    SPACE * 0.3,
                    facecolor=COIN_FACE,
                    edgecolor=COIN_EDGE,
                    lw=0.6,
                    zorder=3.1,
                    gid=f"coin:{city.name}:{index}",
                )
            )
            _number_on(ax, x, y, space.coin, 5.5, "#3b2a00")


def _draw_special_prestige(ax, board: Board, layout: _CityLayout) -> None:
    city = layout.city
    for index, (spec, (x, y)) in enumerate(
        zip(board.special_prestige.spaces, layout.special, strict=True)
    ):
        ax.add_artist(
            Rectangle(
                (x - SPECIAL_SPACE / 2, y - SPECIAL_SPACE / 2),
                SPECIAL_SPACE,
                SPECIAL_SPACE,
                facecolor=PRIVILEGE_COLOURS.get(spec.privilege, "#cccccc"),
                edgecolor=SPECIAL_COLOUR,
                lw=1.6,
                zorder=3,
                gid=f"prestige:{city.name}:{index}",
            )
        )
        _number_on(ax, x, y, spec.points, 5.8, PRIVILEGE_TEXT.get(spec.privilege, "#111111"))


def _number_on(ax, x: float, y: float, number: int, size: float, colour: str) -> None:
    """A number centred on a coin or a prestige space."""
    ax.text(
        x,
        y,
        str(number),
        fontsize=size,
        fontweight="bold",
        ha="center",
        va="center_baseline",
        color=colour,
        zorder=3.2,
    )


def _draw_badges(ax, layout: _CityLayout) -> None:
    city = layout.city
    for badge in layout.badges:
        face, edge, text_colour = (
            (ABILITY_FACE, ABILITY_EDGE, ABILITY_EDGE)
            if badge.kind == "ability"
            else (EAST_WEST_COLOUR, EAST_WEST_COLOUR, "#ffffff")
        )
        r = badge.rect
        ax.add_artist(
            FancyBboxPatch(
                (r.x0, r.y0),
                r.x1 - r.x0,
                r.y1 - r.y0,
                boxstyle="round,pad=0,rounding_size=0.002",
                facecolor=face,
                edgecolor=edge,
                lw=0.7,
                zorder=3.5,
                gid=f"{badge.kind.replace('_', '-')}:{city.name}",
            )
        )
        ax.text(
            (r.x0 + r.x1) / 2,
            (r.y0 + r.y1) / 2,
            badge.text,
            fontsize=BADGE_PT,
            fontweight="bold",
            ha="center",
            va="center",
            color=text_colour,
            zorder=3.6,
        )


def _draw_own_edits(
    ax, board: Board, layouts: dict[str, _CityLayout], plans: list[_RoutePlan]
) -> None:
    """On a board that extends another: a coloured frame around each city it added or changed,
    a coloured band under each such route, a tag saying which."""
    edits = dict((key, what) for what, key in board.own_edits if what != "removed")
    if not edits:
        return
    for name, layout in layouts.items():
        what = edits.get(f"city:{name}")
        if what is None:
            continue
        box, grow = layout.extent, 0.004
        ax.add_artist(
            FancyBboxPatch(
                (box.x0 - grow, box.y0 - grow),
                box.x1 - box.x0 + 2 * grow,
                box.y1 - box.y0 + 2 * grow,
                boxstyle="round,pad=0.002",
                facecolor="none",
                edgecolor=EDIT_COLOURS[what],
                lw=2.4,
                ls=(0, (4, 2)),
                zorder=6,
                gid=f"{what}:city:{name}",
            )
        )
        ax.text(
            box.x1 + grow,
            box.y1 + grow,
            "new" if what == "added" else "changed",
            fontsize=LABEL_PT,
            ha="right",
            va="top",
            color="#ffffff",
            zorder=6.1,
            bbox={"boxstyle": "round,pad=0.2", "facecolor": EDIT_COLOURS[what], "lw": 0},
        )
    for plan in plans:
        what = edits.get("route:" + " -- ".join(plan.route.cities))
        if what is None:
            continue
        ax.add_artist(
            Line2D(
                [x for x, _ in plan.path],
                [y for _, y in plan.path],
                color=EDIT_COLOURS[what],
                lw=8,
                alpha=0.45,
                zorder=1.05,
                solid_capstyle="round",
                gid=f"{what}:route:{_route_id(plan.route)}",
            )
        )


def _edits_summary(board: Board) -> str:
    """`extends hanseatic_45p: changed city Hamburg; added route Emden -- Hannover`."""
    words = [f"{what} {key.replace(':', ' ', 1)}" for what, key in board.own_edits]
    shown = "; ".join(words[:4]) + (f"; and {len(words) - 4} more" if len(words) > 4 else "")
    return f"extends {board.derived_from}" + (f": {shown}" if shown else "")


def _draw_titles(figure: Figure, board: Board, fig_w, fig_h, side_pad, title_h, note) -> None:
    left = side_pad / fig_w
    # a board that extends another is not the printed side its parent names
    side = "" if "side" in board.inherited else board.side
    title = board.title + (f" — {side}" if side else "")
    figure.text(
        left, 1 - 0.12 / fig_h, title, fontsize=15, fontweight="bold", va="top", gid="title"
    )
    facts = [f"board {board.id}"]
    if board.derived_from:
        facts.append(_edits_summary(board))
    if board.players:
        low, high = min(board.players), max(board.players)
        facts.append(f"{low}–{high} players" if low != high else f"{low} players")
    facts.append(f"game ends at {board.completed_cities} completed cities")
    if board.east_west:
        facts.append(f"East-West: {board.east_west[0]} – {board.east_west[1]}")
    spaces = sum(len(c.spaces) for c in board.cities)
    points = sum(len(r.points) for r in board.routes)
    sea = sum(1 for r in board.routes if r.is_sea)
    facts.append(
        f"{len(board.cities)} cities, {len(board.routes)} routes ({sea} sea), "
        f"{spaces} spaces, {points} points"
    )
    figure.text(
        left,
        1 - 0.55 / fig_h,
        "  ·  ".join(facts),
        fontsize=9.5,
        va="top",
        color="#333333",
        gid="subtitle",
    )
    if note:
        figure.text(
            left,
            0.12 / fig_h,
            note,
            fontsize=9,
            va="bottom",
            color="#a02020",
            style="italic",
            gid="note",
        )


def _draw_legend(ax, board: Board, colours: dict[str, str], regions: Regions | None = None) -> None:
    def marker(label: str, shape: str, face: str, edge: str = "#111111", size: float = 9) -> Line2D:
        return Line2D(
            [],
            [],
            linestyle="none",
            marker=shape,
            markersize=size,
            markerfacecolor=face,
            markeredgecolor=edge,
            label=label,
        )

    def line(label: str, colour: str, width: float = 2.2, alpha: float = 1.0) -> Line2D:
        return Line2D([], [], color=colour, lw=width, alpha=alpha, label=label)

    handles: list = [
        marker("square space: trader only", "s", "#ffffff"),
        marker("round space: merchant only", "o", "#ffffff"),
    ]
    handles += [
        marker(f"privilege {name} needed", "s", fill) for name, fill in PRIVILEGE_COLOURS.items()
    ]
    if any(space.coin for city in board.cities for space in city.spaces):
        handles.append(marker("coin: prestige points on a space", "o", COIN_FACE, COIN_EDGE, 7))
    if any(city.abilities for city in board.cities):
        handles.append(
            Patch(facecolor=ABILITY_FACE, edgecolor=ABILITY_EDGE, label="ability (a choice: A | B)")
        )
    if board.special_prestige:
        sp = board.special_prestige
        handles.append(
            Patch(
                facecolor="#ffffff",
                edgecolor=SPECIAL_COLOUR,
                lw=1.6,
                label=f"special prestige spaces ({sp.city}: "
                + "/".join(str(s.points) for s in sp.spaces)
                + ")",
            )
        )
        handles.append(
            line(f"special prestige route {sp.via[0]} – {sp.via[1]}", SPECIAL_COLOUR, 7, 0.55)
        )
    if board.east_west:
        handles.append(
            Patch(
                facecolor=EAST_WEST_COLOUR,
                edgecolor=EAST_WEST_COLOUR,
                label="East-West terminal city",
            )
        )
    if any(not c.hanseatic for c in board.cities):
        handles.append(
            Patch(
                facecolor=GREEN_CITY_FACE, edgecolor=CITY_EDGE, label="green (non-Hanseatic) city"
            )
        )
    handles += [
        line("route", ROUTE_COLOUR),
        marker("house point: any tradesman", "s", HOUSE_FACE, HOUSE_EDGE, 7),
        marker("ship point: merchant only", "o", SHIP_FACE, "#ffffff", 8),
    ]
    if any(r.is_sea for r in board.routes):
        handles.append(line("sea route", SEA_UNDERLAY, 9, 0.8))
    if any(r.tavern for r in board.routes):
        handles.append(
            Patch(facecolor=TAVERN_FACE, edgecolor=TAVERN_EDGE, label="tavern: start bonus marker")
        )
    if any(r.permanent_bonus for r in board.routes):
        handles.append(
            Patch(facecolor=BONUS_FACE, edgecolor=BONUS_EDGE, label="permanent bonus marker")
        )
    for country, colour in colours.items():
        handles.append(line(f"{country.title()}: route colour, city outline", colour, 3))
    for what in ("added", "changed"):
        if any(kind == what for kind, _ in board.own_edits):
            handles.append(
                Patch(
                    facecolor="none",
                    edgecolor=EDIT_COLOURS[what],
                    lw=2.4,
                    ls=(0, (4, 2)),
                    label=f"{what} by {board.id} (extends {board.derived_from})",
                )
            )
    if regions is not None:
        handles.append(
            Patch(
                facecolor=REGION_TINTS[1],
                edgecolor="none",
                label=f"region N ({regions.count} regions, 0 = outside; 2-player pawn)",
            )
        )
        handles.append(
            Line2D([], [], color=SOLDIER_COLOUR, lw=3, ls=(0, (2, 1)), label="soldier (a border)")
        )
    ax.legend(
        handles=handles,
        loc="upper left",
        frameon=False,
        fontsize=8.5,
        title="Legend",
        title_fontproperties={"weight": "bold", "size": 10},
        handlelength=2.4,
        borderaxespad=0.0,
        labelspacing=0.7,
    )


def _draw_regions(ax, regions: Regions, positions: dict[str, tuple[float, float]]) -> None:
    """Tint each region's face (outlines straight between city centres), number it, and draw the
    soldiers as dashed red borders; region 0, the outside, stays untinted."""
    neighbours = nx.Graph()
    neighbours.add_nodes_from(range(1, regions.count))
    neighbours.add_edges_from(
        (r, q)
        for r in range(1, regions.count)
        for q in range(r + 1, regions.count)
        if regions.distance[r][q] == 1
    )
    colour_of = nx.greedy_color(neighbours, strategy="largest_first")  # neighbours differ
    for r in range(1, regions.count):
        walks = [[positions[c] for c in walk] for walk in regions.polygons[r]]
        walks = [w for w in walks if len(w) >= 3]
        if not walks:
            continue
        vertices, codes = [], []
        for walk in walks:  # holes (drawings inside the region) wind the other way
            vertices += walk + [walk[0]]
            codes += [MplPath.MOVETO] + [MplPath.LINETO] * (len(walk) - 1) + [MplPath.CLOSEPOLY]
        tint = REGION_TINTS[colour_of[r] % len(REGION_TINTS)]
        ax.add_patch(
            PathPatch(
                MplPath(vertices, codes),
                facecolor=tint,
                edgecolor="none",
                zorder=0.5,
                gid=f"region:{r}",
            )
        )
        x, y = _centroid(max(walks, key=lambda w: abs(_area(w))))
        ax.text(
            x,
            y,
            str(r),
            ha="center",
            va="center",
            fontsize=16,
            color=REGION_NUMBER,
            fontweight="bold",
            zorder=0.6,
        )
    for a, b in regions.soldiers:
        (x0, y0), (x1, y1) = positions[a], positions[b]
        ax.plot(
            [x0, x1],
            [y0, y1],
            color=SOLDIER_COLOUR,
            lw=3.2,
            ls=(0, (2, 1)),
            zorder=1.5,
            solid_capstyle="butt",
            gid=f"soldier:{a}--{b}",
        )
        ax.plot(
            [(x0 + x1) / 2],
            [(y0 + y1) / 2],
            marker="X",
            markersize=11,
            color=SOLDIER_COLOUR,
            markeredgecolor="#ffffff",
            zorder=1.6,
        )


def _area(points: list[tuple[float, float]]) -> float:
    pairs = zip(points, points[1:] + points[:1], strict=True)
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in pairs) / 2


def _centroid(points: list[tuple[float, float]]) -> tuple[float, float]:
    area = _area(points)
    if abs(area) < 1e-12:
        return sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)
    pairs = list(zip(points, points[1:] + points[:1], strict=True))
    cx = sum((x0 + x1) * (x0 * y1 - x1 * y0) for (x0, y0), (x1, y1) in pairs) / (6 * area)
    cy = sum((y0 + y1) * (x0 * y1 - x1 * y0) for (x0, y0), (x1, y1) in pairs) / (6 * area)
    return cx, cy


# --- writing -------------------------------------------------------------------------------------


def _save_atomically(figure: Figure, target: Path, fmt: str, dpi: int) -> None:
    """Draw into memory, then write atomically: on failure nothing is left behind."""
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    try:
        with matplotlib.rc_context(_RC):
            figure.savefig(buffer, format=fmt, dpi=dpi, metadata=metadata)
    except OSError as exc:
        raise HansaError(f"cannot write {target}: {exc.strerror or exc}") from None
    write_atomically(target, buffer.getvalue())


_RC = {
    "svg.fonttype": "none",  # keep text as text: searchable, smaller, editable
    "svg.hashsalt": "hansa-render",  # stable element ids: the same board gives the same file
    "font.family": "DejaVu Sans",
}
