"""Regions of a board: the faces of its plane drawing, for the 2-player variant's neutral pawn.

The 2009 rule book splits the 2-3 player side into regions whose borders are the routes and four
soldiers, each soldier a short border drawn between two cities that no route joins. We draw every
route and soldier as a straight segment between its cities' printed positions (`at`), check that no
two segments cross (so the drawing is a plane graph with the board's own topology), walk the faces
of that plane graph with networkx's `PlanarEmbedding`, and give each face one region number. A
component of the drawing lying inside a face of another (no segment joins them) belongs to that
face's region; everything outside the drawing, up to the board's edge, is one region, the outer
region. Two regions are neighbours when a border (route or soldier) separates them; the pawn's
moving distance is the number of borders crossed, a shortest path in that neighbour graph.

Everything is computed at compile time; the generated module receives only tuples of ints.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from ..errors import NO_SPAN, Diagnostic, Span, did_you_mean
from ..nodes.board import Board

Point = tuple[float, float]
Pair = tuple[str, str]


@dataclass(frozen=True)
class Soldier:
    """A border segment between two cities (not a route); `span` locates it in the spec."""

    cities: Pair
    span: Span = NO_SPAN


@dataclass(frozen=True)
class Regions:
    """The plane split into regions. Region 0 is the outer region (outside the drawing).

    `route_regions[i]` lists the regions on the two sides of route i (one region when both sides
    lie in the same region, e.g. a dead-end route); `region_routes[r]` the routes bordering
    region r; `distance[r][q]` the fewest borders the pawn crosses from r to q; `cities[r]` the
    cities on r's boundary (for names and drawings); `polygons[r]` the boundary walks (lists of
    city names).
    """

    route_regions: tuple[tuple[int, ...], ...]
    region_routes: tuple[tuple[int, ...], ...]
    distance: tuple[tuple[int, ...], ...]
    cities: tuple[tuple[str, ...], ...]
    polygons: tuple[tuple[tuple[str, ...], ...], ...]
    idle_soldiers: tuple[int, ...] = ()  # soldiers with the same region on both sides
    soldiers: tuple[Pair, ...] = ()  # the soldiers' cities (canonical names), for drawings

    @property
    def count(self) -> int:
        return len(self.region_routes)

    def label(self, region: int) -> str:
        """A readable name: the outer region, or the cities around the region."""
        if region == 0:
            return "outer region"
        names = self.cities[region]
        shown = ", ".join(names[:4]) + (", …" if len(names) > 4 else "")
        return f"region {region} ({shown})"


class RegionError(ValueError):
    """The drawing cannot be split into regions; carries located diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("; ".join(d.message for d in diagnostics))
        self.diagnostics = diagnostics


def _orient(a: Point, b: Point, c: Point) -> int:
    value = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (value > 1e-12) - (value < -1e-12)


def _on_segment(a: Point, b: Point, c: Point) -> bool:
    """c lies on the closed segment a-b (given that the three are collinear)."""
    return min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])


def segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    """Whether segments a-b and c-d meet anywhere except at a shared end point."""
    shared = {a, b} & {c, d}
    o1, o2, o3, o4 = _orient(a, b, c), _orient(a, b, d), _orient(c, d, a), _orient(c, d, b)
    if shared:
        # Segments sharing an end meet elsewhere only when they overlap along a line.
        if o1 == 0 and o2 == 0:
            other_cd = d if c in shared else c
            other_ab = b if a in shared else a
            return _on_segment(a, b, other_cd) or _on_segment(c, d, other_ab)
        return False
    if o1 * o2 < 0 and o3 * o4 < 0:
        return True
    return (
        (o1 == 0 and _on_segment(a, b, c))
        or (o2 == 0 and _on_segment(a, b, d))
        or (o3 == 0 and _on_segment(c, d, a))
        or (o4 == 0 and _on_segment(c, d, b))
    )


def _crossing_point(a: Point, b: Point, c: Point, d: Point) -> Point:
    den = (b[0] - a[0]) * (d[1] - c[1]) - (b[1] - a[1]) * (d[0] - c[0])
    if abs(den) < 1e-15:
        return c
    t = ((c[0] - a[0]) * (d[1] - c[1]) - (c[1] - a[1]) * (d[0] - c[0])) / den
    return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))


def _signed_area(points: Sequence[Point]) -> float:
    """Shoelace area in y-up orientation (the board's y grows downwards, so it is negated)."""
    total = 0.0
    for (x1, y1), (x2, y2) in zip(points, list(points[1:]) + [points[0]], strict=True):
        total += x1 * y2 - x2 * y1
    return -total / 2


def _inside(point: Point, polygon: Sequence[Point]) -> bool:
    x, y = point
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, list(polygon[1:]) + [polygon[0]], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def compute_regions(
    positions: dict[str, Point],
    routes: Sequence[Pair],
    soldiers: Sequence[Soldier] = (),
    route_spans: Sequence[Span] | None = None,
    where: Span = NO_SPAN,
) -> Regions:
    """Split the plane drawn by `routes` and `soldiers` into regions (raises RegionError)."""
    spans = list(route_spans) if route_spans is not None else [where] * len(routes)
    problems: list[Diagnostic] = []
    borders: list[tuple[Pair, str, Span]] = [
        (tuple(r), "route", spans[i]) for i, r in enumerate(routes)
    ]
    route_keys = {frozenset(r) for r in routes}
    seen_soldiers: set[frozenset[str]] = set()
    for soldier in soldiers:
        a, b = soldier.cities
        for city in (a, b):
            if city not in positions:
                problems.append(Diagnostic(f"soldier names unknown city {city!r}", soldier.span))
        if a == b:
            problems.append(Diagnostic(f"a soldier needs two cities, got {a} twice", soldier.span))
        elif frozenset((a, b)) in route_keys:
            problems.append(
                Diagnostic(
                    f"soldier {a} -- {b} stands where a route already is a border; a soldier "
                    "closes a gap between two cities that no route joins",
                    soldier.span,
                )
            )
        elif frozenset((a, b)) in seen_soldiers:
            problems.append(Diagnostic(f"soldier {a} -- {b} is declared twice", soldier.span))
        seen_soldiers.add(frozenset((a, b)))
        borders.append(((a, b), "soldier", soldier.span))
    missing = sorted({c for (a, b), _k, _s in borders for c in (a, b) if c not in positions})
    if problems or missing:
        problems += [
            Diagnostic(f"city {c!r} has no position (`at`); regions need every city drawn", where)
            for c in missing
            if not any(f"{c!r}" in d.message for d in problems)
        ]
        raise RegionError(problems)

    # Straight segments must not cross: otherwise the drawing is not the board's plane graph.
    for (ab, kind1, span1), (cd, kind2, span2) in itertools.combinations(borders, 2):
        pa, pb, pc, pd = (positions[ab[0]], positions[ab[1]], positions[cd[0]], positions[cd[1]])
        if segments_cross(pa, pb, pc, pd):
            x, y = _crossing_point(pa, pb, pc, pd)
            problems.append(
                Diagnostic(
                    f"{kind2} {cd[0]} -- {cd[1]} crosses {kind1} {ab[0]} -- {ab[1]} at "
                    f"({x:.3f}, {y:.3f}) when both are drawn straight between the cities' `at` "
                    "positions; move a city so the drawing is planar (regions come from it)",
                    span2 if span2.line else span1,
                )
            )
    graph = nx.Graph()
    graph.add_nodes_from(c for pair, _k, _s in borders for c in pair)
    graph.add_edges_from(pair for pair, _k, _s in borders)
    if not problems and not nx.check_planarity(graph)[0]:  # cannot happen without a crossing
        problems.append(Diagnostic("the routes and soldiers do not form a planar graph", where))
    if problems:
        raise RegionError(problems)
    return _faces_to_regions(positions, graph, routes, soldiers)


def _embedding(positions: dict[str, Point], graph: nx.Graph) -> nx.PlanarEmbedding:
    """The rotation system of the straight-line drawing: neighbours sorted by angle."""
    emb = nx.PlanarEmbedding()
    for v in graph.nodes:
        emb.add_node(v)
    for v in graph.nodes:
        x0, y0 = positions[v]
        around = sorted(
            graph.neighbors(v),
            key=lambda w: math.atan2(-(positions[w][1] - y0), positions[w][0] - x0),
        )  # counter-clockwise in y-up coordinates
        previous = None
        for w in around:
            if previous is None:
                emb.add_half_edge_first(v, w)
            else:
                emb.add_half_edge_ccw(v, w, previous)
            previous = w
    emb.check_structure()
    return emb


def _faces_to_regions(
    positions: dict[str, Point],
    graph: nx.Graph,
    routes: Sequence[Pair],
    soldiers: Sequence[Soldier],
) -> Regions:
    emb = _embedding(positions, graph)
    walks: list[list[str]] = []
    face_of_half: dict[tuple[str, str], int] = {}
    for v, w in sorted(emb.edges(), key=lambda e: (e[0], e[1])):
        if (v, w) in face_of_half:
            continue
        marked: set[tuple[str, str]] = set()
        nodes = emb.traverse_face(v, w, mark_half_edges=marked)
        for half in marked:
            face_of_half[half] = len(walks)
        walks.append(nodes)
    areas = [_signed_area([positions[c] for c in walk]) for walk in walks]
    component = {c: i for i, comp in enumerate(nx.connected_components(graph)) for c in comp}
    # networkx walks a face with the face on the right of each half-edge; with our
    # counter-clockwise rotation that makes bounded faces clockwise (negative area) and the outer
    # walk of each component counter-clockwise (positive, or zero for a tree).
    outer_walk: dict[int, int] = {}
    for i, walk in enumerate(walks):
        comp = component[walk[0]]
        if comp not in outer_walk or areas[i] > areas[outer_walk[comp]]:
            outer_walk[comp] = i
    bounded = [i for i in range(len(walks)) if i not in outer_walk.values()]
    parent = list(range(len(walks)))
    outer_region_walks: list[int] = []
    for comp, i in sorted(outer_walk.items()):
        probe = positions[walks[i][0]]
        holders = [
            j
            for j in bounded
            if component[walks[j][0]] != comp and _inside(probe, [positions[c] for c in walks[j]])
        ]
        if holders:
            parent[i] = min(holders, key=lambda j: abs(areas[j]))
        else:
            outer_region_walks.append(i)
    for i in outer_region_walks[1:]:
        parent[i] = outer_region_walks[0]

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    outer_root = root(outer_region_walks[0])
    roots = sorted(
        {root(i) for i in range(len(walks))}, key=lambda r: (r != outer_root, sorted(walks[r]))
    )
    number = {r: n for n, r in enumerate(roots)}
    region_of_walk = [number[root(i)] for i in range(len(walks))]
    n_regions = len(roots)

    route_regions = []
    region_routes: list[list[int]] = [[] for _ in range(n_regions)]
    neighbours = nx.Graph()
    neighbours.add_nodes_from(range(n_regions))
    for i, (a, b) in enumerate(routes):
        sides = sorted({region_of_walk[face_of_half[(a, b)]], region_of_walk[face_of_half[(b, a)]]})
        route_regions.append(tuple(sides))
        for r in sides:
            region_routes[r].append(i)
        if len(sides) == 2:
            neighbours.add_edge(*sides)
    idle = []
    for s, soldier in enumerate(soldiers):
        a, b = soldier.cities
        sides = {region_of_walk[face_of_half[(a, b)]], region_of_walk[face_of_half[(b, a)]]}
        if len(sides) == 2:
            neighbours.add_edge(*sides)
        else:
            idle.append(s)
    lengths = dict(nx.all_pairs_shortest_path_length(neighbours))
    far = n_regions  # unreachable (cannot happen: the plane is connected)
    distance = tuple(
        tuple(lengths[r].get(q, far) for q in range(n_regions)) for r in range(n_regions)
    )
    cities: list[set[str]] = [set() for _ in range(n_regions)]
    polygons: list[list[tuple[str, ...]]] = [[] for _ in range(n_regions)]
    for i, walk in enumerate(walks):
        cities[region_of_walk[i]].update(walk)
        polygons[region_of_walk[i]].append(tuple(walk))
    return Regions(
        route_regions=tuple(route_regions),
        region_routes=tuple(tuple(rs) for rs in region_routes),
        distance=distance,
        cities=tuple(tuple(sorted(cs)) for cs in cities),
        polygons=tuple(tuple(ps) for ps in polygons),
        idle_soldiers=tuple(idle),
        soldiers=tuple(s.cities for s in soldiers),
    )


def board_regions(board: Board, soldiers: Sequence[Pair] = (), span: Span = NO_SPAN) -> Regions:
    """The regions of `board` cut by its routes and `soldiers` (city names or aliases); raises
    RegionError with diagnostics at `span` (the spec text declaring the soldiers)."""
    canonical = {c.name: c.name for c in board.cities}
    for c in board.cities:
        for alias in c.aliases:
            canonical.setdefault(alias, c.name)
    positions = {c.name: c.position for c in board.cities if c.position is not None}
    resolved = [Soldier((canonical.get(a, a), canonical.get(b, b)), span) for a, b in soldiers]
    unknown = [
        Diagnostic(
            f"soldier {a} -- {b}: board {board.id} has no city {c!r}"
            + did_you_mean(c, list(canonical)),
            span,
        )
        for a, b in soldiers
        for c in (a, b)
        if c not in canonical
    ]
    if unknown:
        raise RegionError(unknown)
    return compute_regions(
        positions,
        [r.cities for r in board.routes],
        resolved,
        [r.span for r in board.routes],
        board.span,
    )


def check_pawn(board: Board, soldiers: Sequence[Pair], span: Span, game: str) -> list[Diagnostic]:
    """A game's pawn against its board: the regions exist, and every soldier separates two."""
    try:
        regions = board_regions(board, soldiers, span)
    except RegionError as exc:
        return [
            Diagnostic(f"game {game}: {d.message}", d.span if d.span.line else span, d.severity)
            for d in exc.diagnostics
        ]
    return [
        Diagnostic(
            f"game {game}: soldier {soldiers[i][0]} -- {soldiers[i][1]} separates nothing (the same"
            f" region lies on both its sides on board {board.id})",
            span,
            "warning",
        )
        for i in regions.idle_soldiers
    ]
