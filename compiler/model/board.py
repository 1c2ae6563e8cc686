"""The board as small ints: cities, trading-post spaces, routes and their points, adjacency, the
free-point masks of each route, and the special-prestige spaces."""

from __future__ import annotations

import functools

from ...runtime.tables import city_tables, free_points, point_tables, space_city
from ..nodes.board import PRIVILEGES
from .fold import Fold, error, where


def _spaces(f: Fold) -> None:
    """CITY_SPACES (space ids per city) and per space: SPACE_CITY, SPACE_ROUND (1: round, a
    merchant's), SPACE_PRIV (privilege colour index), SPACE_COIN."""
    city_spaces, space_round, space_priv, space_coin = [], [], [], []
    for c in f.board.cities:
        ids = []
        for sp in c.spaces:
            ids.append(len(space_round))
            space_round.append(1 if sp.shape == "round" else 0)
            space_priv.append(PRIVILEGES.index(sp.privilege))
            space_coin.append(int(sp.coin))
        city_spaces.append(tuple(ids))
    f.k["CITY_SPACES"] = tuple(city_spaces)
    f.k["SPACE_CITY"] = space_city(f.k["CITY_SPACES"])
    f.k["SPACE_ROUND"] = tuple(space_round)
    f.k["SPACE_PRIV"] = tuple(space_priv)
    f.k["SPACE_COIN"] = tuple(space_coin)
    f.k["N_SPACES"] = len(space_round)


def _city_abilities(f: Fold) -> tuple[tuple[int, ...], ...]:
    names = f.k["ABILITY_NAMES"]
    out = []
    for c in f.board.cities:
        for a in c.abilities:
            if a not in names:
                raise error(
                    f"city {c.name!r} offers ability {a!r}, which rule set {f.rules.name!r} lacks",
                    c.span,
                )
        out.append(tuple(names.index(a) for a in c.abilities))
    return tuple(out)


def fold_board(f: Fold) -> None:
    """CITY_NAMES, the spaces, CITY_ABILITIES, CITY_NEIGHBORS, CITY_ROUTES, ROUTE_CITIES,
    ROUTE_POINTS, POINT_ROUTE, POINT_MERCHANT_ONLY (ship points), TAVERN_ROUTES, EAST_WEST (the
    two cities), BOARD_COMPLETED_CITIES; `Fold.city_index` for later builders."""
    board, k = f.board, f.k
    city_names = tuple(c.name for c in board.cities)
    city_index = {n: i for i, n in enumerate(city_names)}
    for c in board.cities:
        for alias in c.aliases:
            city_index.setdefault(alias, city_index[c.name])
    f.city_index = city_index
    route_cities, route_points, point_merchant = [], [], []
    for r in board.routes:
        try:
            a, b = (city_index[r.cities[0]], city_index[r.cities[1]])
        except KeyError as exc:
            raise error(f"route names unknown city {exc.args[0]!r}", r.span) from None
        route_cities.append((a, b))
        pts = []
        for ptype in r.points:
            pts.append(len(point_merchant))
            point_merchant.append(1 if ptype == "merchant" else 0)
        route_points.append(tuple(pts))
    city_routes, neighbors = city_tables(len(city_names), tuple(route_cities))
    k["CITY_NAMES"] = city_names
    k["N_CITIES"] = len(city_names)
    _spaces(f)
    k["CITY_ABILITIES"] = _city_abilities(f)
    k["CITY_NEIGHBORS"] = neighbors
    k["CITY_ROUTES"] = city_routes
    k["ROUTE_CITIES"] = tuple(route_cities)
    k["ROUTE_POINTS"] = tuple(route_points)
    k["N_ROUTES"] = len(route_cities)
    k["POINT_ROUTE"] = point_tables(k["ROUTE_POINTS"])[0]
    k["POINT_MERCHANT_ONLY"] = tuple(point_merchant)
    k["N_POINTS"] = len(point_merchant)
    k["TAVERN_ROUTES"] = tuple(i for i, r in enumerate(board.routes) if r.tavern)
    ew = board.east_west
    k["EAST_WEST"] = (city_index[ew[0]], city_index[ew[1]])
    k["BOARD_COMPLETED_CITIES"] = board.completed_cities
    f.origins["board"] = where(board.span)


# The free-point tables grow as 2 ** points per route and are the same for every game on a board:
# folded once per board's points (their values are tuples, shared safely).
_free_points = functools.lru_cache(maxsize=16)(free_points)


def fold_point_masks(f: Fold) -> None:
    """Per route and mask of its free points (bit j: the route's j-th point): FREE_POINTS (the
    points) and FREE_HOUSE_POINTS (those a trader may take); FULL_MASK per route, POINT_BIT per
    point."""
    k = f.k
    route_points = k["ROUTE_POINTS"]
    k["FREE_POINTS"], k["FREE_HOUSE_POINTS"] = _free_points(route_points, k["POINT_MERCHANT_ONLY"])
    _, k["POINT_BIT"], k["FULL_MASK"] = point_tables(route_points)


def fold_special_prestige(f: Fold) -> None:
    """SPECIAL_ROUTE, SPECIAL_POINTS and SPECIAL_PRIV (per space), SPECIAL_CITY; -1 and () on a
    board without special-prestige spaces."""
    k, sp = f.k, f.board.special_prestige
    if sp is None:
        k["SPECIAL_ROUTE"] = -1
        k["SPECIAL_POINTS"] = ()
        k["SPECIAL_PRIV"] = ()
        k["SPECIAL_CITY"] = -1
        return
    sp_city = f.city_index[sp.city]
    via = {f.city_index[sp.via[0]], f.city_index[sp.via[1]]}
    sp_route = -1
    for ri, (a, b) in enumerate(k["ROUTE_CITIES"]):
        if {a, b} == via:
            sp_route = ri
    if sp_route < 0:
        raise error("the special-prestige route does not exist on the board", sp.span)
    k["SPECIAL_ROUTE"] = sp_route
    k["SPECIAL_POINTS"] = tuple(s.points for s in sp.spaces)
    k["SPECIAL_PRIV"] = tuple(PRIVILEGES.index(s.privilege) for s in sp.spaces)
    k["SPECIAL_CITY"] = sp_city
