"""Tables of the board that a generated module derives at import rather than writes out: each is
a pure function of the tables the module does write (the free-point tables grow as 2 ** points
per route; the others restate the board the other way round). The compiler's model
(compiler/model/board.py) folds them with the same functions, so the two cannot disagree."""

from __future__ import annotations


def free_points(
    route_points: tuple[tuple[int, ...], ...], point_merchant_only: tuple[bool, ...]
) -> tuple[tuple, tuple]:
    """Per route and mask of its free points (bit j: the route's j-th point): the points
    (FREE_POINTS), and those of them a trader may take (FREE_HOUSE_POINTS)."""
    free_pts, free_house = [], []
    for pts in route_points:
        row_all, row_house = [], []
        for mask in range(1 << len(pts)):
            chosen = tuple(p for j, p in enumerate(pts) if mask >> j & 1)
            row_all.append(chosen)
            row_house.append(tuple(p for p in chosen if not point_merchant_only[p]))
        free_pts.append(tuple(row_all))
        free_house.append(tuple(row_house))
    return tuple(free_pts), tuple(free_house)


def point_tables(route_points: tuple[tuple[int, ...], ...]) -> tuple[tuple, tuple, tuple]:
    """POINT_ROUTE (the route of each connection point), POINT_BIT (its bit in its route's mask of
    free points) and FULL_MASK (per route, every point free)."""
    point_route: list[int] = []
    point_bit: list[int] = []
    for r, points in enumerate(route_points):
        for j, x in enumerate(points):
            if x != len(point_route):
                raise ValueError("connection points are numbered route by route")
            point_route.append(r)
            point_bit.append(1 << j)
    full_mask = tuple((1 << len(points)) - 1 for points in route_points)
    return tuple(point_route), tuple(point_bit), full_mask


def city_tables(n_cities: int, route_cities: tuple[tuple[int, int], ...]) -> tuple[tuple, tuple]:
    """CITY_ROUTES (per city, the routes ending there, in route order) and CITY_NEIGHBORS (per
    city, the cities one route away, sorted)."""
    routes: list[list[int]] = [[] for _ in range(n_cities)]
    neighbors: list[set[int]] = [set() for _ in range(n_cities)]
    for r, (a, b) in enumerate(route_cities):
        routes[a].append(r)
        routes[b].append(r)
        neighbors[a].add(b)
        neighbors[b].add(a)
    return tuple(tuple(rs) for rs in routes), tuple(tuple(sorted(n)) for n in neighbors)


def space_city(city_spaces: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """SPACE_CITY: the city of each trading-post space."""
    found = [0] * sum(len(spaces) for spaces in city_spaces)
    for c, spaces in enumerate(city_spaces):
        for x in spaces:
            found[x] = c
    return tuple(found)


def ids_by_mask(base: int, table: tuple) -> tuple:
    """Per route and free mask, the action ids `base + point` of the points in `table` (a table
    shaped like FREE_POINTS)."""
    return tuple(tuple(tuple(base + x for x in points) for points in row) for row in table)


def place_options(base: int, free: tuple, free_house: tuple) -> tuple:
    """[route][free mask][supply kinds: 1 trader, 2 merchant, 3 both] -> the sorted action ids
    `base + 2 * point + kind` of the free points those kinds may take."""
    return tuple(
        tuple(
            (
                (),
                tuple(base + 2 * x for x in house),
                tuple(base + 2 * x + 1 for x in points),
                tuple(sorted([base + 2 * x for x in house] + [base + 2 * x + 1 for x in points])),
            )
            for points, house in zip(free[r], free_house[r], strict=True)
        )
        for r in range(len(free))
    )


def route_adjacent(route_cities: tuple, city_routes: tuple) -> tuple:
    """Per route, the routes sharing a city with it (sorted)."""
    return tuple(
        tuple(sorted({r2 for c in cities for r2 in city_routes[c]} - {r}))
        for r, cities in enumerate(route_cities)
    )


def income_options(base: int, merchants: int):
    """The Income action's ids `base + traders * (merchants + 1) + merchants taken`: a function
    of (cap, traders in stock, merchants in stock) giving every split of 1..cap pieces the stock
    allows, sorted (remembered per argument: a few dozen combinations occur)."""
    cache: dict[tuple[int, int, int], tuple[int, ...]] = {}

    def options(cap: int, stock_traders: int, stock_merchants: int) -> tuple[int, ...]:
        key = (cap, stock_traders, stock_merchants)
        found = cache.get(key)
        if found is None:
            found = cache[key] = tuple(
                base + t * (merchants + 1) + m
                for t in range(min(cap, stock_traders) + 1)
                for m in range(min(cap - t, stock_merchants) + 1)
                if t + m > 0
            )
        return found

    return options
