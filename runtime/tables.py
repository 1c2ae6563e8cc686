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
