"""Tables of the board that a generated module derives at import rather than writes out: they
grow as 2 ** points per route, and each is a pure function of the tables the module does write.
The compiler's model (compiler/model/board.py) folds them with the same function, so the two
cannot disagree."""

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
