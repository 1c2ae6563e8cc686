"""The board layout the page draws: positions of cities, spaces and route points, in map units.

The geometry is the renderer's (`compiler/board/render.py`: the same city boxes, point spacing and
route bends), so the page shows the board as `hansa render` draws it. Every element is tied to the
generated module's indices (city, space, route and point ids), which the page needs to put pieces
from the state JSON on the board and to attach legal actions to what they act on.

The board IR comes from the spec (`boards` by id). When the spec has no board of that id, or it
disagrees with the module (a stale build), the IR is rebuilt from the module's own tables and the
cities are placed by the renderer's spring layout.
"""

from __future__ import annotations

from types import ModuleType

from hansa.compiler.board import render
from hansa.compiler.nodes.board import (
    PRIVILEGES,
    Board,
    City,
    PostSpace,
    Route,
    SpecialPrestige,
    SpecialSpace,
)

SCALE = 1000.0  # map units (fractions of the board's longer side) → drawing units


def board_from_module(module: ModuleType) -> Board:
    """A board IR rebuilt from a generated module's tables (no positions: they are laid out)."""
    ns = vars(module)
    names = ns["CITY_NAMES"]
    abilities = ns["ABILITY_NAMES"]
    countries = ns.get("COUNTRY_NAMES", ())
    city_countries = ns.get("CITY_COUNTRIES", ((),) * len(names))
    green = ns.get("CITY_GREEN", (False,) * len(names))
    grants = {
        c: tuple(country for k, country in enumerate(countries) if bits >> k & 1)
        for c, bits in ns.get("PERMISSION_CITIES", ())
    }
    cities = []
    for c, name in enumerate(names):
        spaces = tuple(
            PostSpace(
                shape="round" if ns["SPACE_ROUND"][s] else "square",
                privilege=PRIVILEGES[ns["SPACE_PRIV"][s]],
                coin=ns["SPACE_COIN"][s],
            )
            for s in ns["CITY_SPACES"][c]
        )
        city_abilities = tuple(abilities[a] for a in ns["CITY_ABILITIES"][c])
        cities.append(
            City(
                name=name,
                spaces=spaces,
                abilities=city_abilities,
                hanseatic=not green[c],
                countries=tuple(countries[k] for k in city_countries[c]),
                permissions=grants.get(c, ()),
            )
        )
    routes = []
    taverns = set(ns.get("TAVERN_ROUTES", ()))
    for r, (a, b) in enumerate(ns["ROUTE_CITIES"]):
        points = tuple(
            "merchant" if ns["POINT_MERCHANT_ONLY"][x] else "any" for x in ns["ROUTE_POINTS"][r]
        )
        permanent = ns.get("ROUTE_PERMANENT", (-1,) * len(ns["ROUTE_CITIES"]))[r]
        country = ns["ROUTE_COUNTRY"][r] if countries else None
        routes.append(
            Route(
                cities=(names[a], names[b]),
                points=points,
                tavern=r in taverns,
                permanent_bonus=ns["PERMANENT_NAMES"][permanent] if permanent >= 0 else None,
                country=countries[country] if country is not None else None,
            )
        )
    east_west = ns.get("EAST_WEST")
    special = None
    if ns.get("SPECIAL_POINTS") and ns.get("SPECIAL_CITY", -1) >= 0:
        a, b = ns["ROUTE_CITIES"][ns["SPECIAL_ROUTE"]]
        special = SpecialPrestige(
            city=names[ns["SPECIAL_CITY"]],
            via=(names[a], names[b]),
            spaces=tuple(
                SpecialSpace(points=p, privilege=PRIVILEGES[q])
                for p, q in zip(ns["SPECIAL_POINTS"], ns["SPECIAL_PRIV"], strict=True)
            ),
        )
    return Board(
        id=ns["BOARD_ID"],
        title=ns["BOARD_ID"],
        east_west=(names[east_west[0]], names[east_west[1]]) if east_west else None,
        completed_cities=ns.get("BOARD_COMPLETED_CITIES", 10),
        special_prestige=special,
        cities=tuple(cities),
        routes=tuple(routes),
    )


def _matches(board: Board, module: ModuleType) -> bool:
    """Whether the IR has the module's cities (with their space counts) and routes (points)."""
    ns = vars(module)
    names = ns["CITY_NAMES"]
    sizes = {city.name: len(city.spaces) for city in board.cities}
    if len(sizes) != len(names):
        return False
    for c, name in enumerate(names):
        if sizes.get(name) != len(ns["CITY_SPACES"][c]):
            return False
    by_key = {route.key: route for route in board.routes}
    if len(by_key) != len(ns["ROUTE_CITIES"]):
        return False
    for r, (a, b) in enumerate(ns["ROUTE_CITIES"]):
        route = by_key.get(frozenset((names[a], names[b])))
        if route is None or len(route.points) != len(ns["ROUTE_POINTS"][r]):
            return False
    return True


def _xy(x: float, y: float) -> list[float]:
    return [round(x * SCALE, 2), round(y * SCALE, 2)]


def _rect(rect) -> list[float]:
    return _xy(rect.x0, rect.y0) + _xy(rect.x1 - rect.x0, rect.y1 - rect.y0)


def board_layout(module: ModuleType, boards: dict[str, Board] | None = None) -> dict:
    """The JSON layout of the module's board (see docs/serve.md, `GET /api/games/{name}/board`)."""
    ns = vars(module)
    board = (boards or {}).get(ns["BOARD_ID"])
    source = "spec"
    if board is None or not _matches(board, module):
        board, source = board_from_module(module), "module"
    width, height = render._frame_units(board)
    positions, note = render._city_positions(board, width, height)
    layouts = {c.name: render._layout_city(board, c, positions[c.name]) for c in board.cities}
    plans = {plan.route.key: plan for plan in render._plan_routes(board, layouts)}
    bounds = _drawn_bounds(layouts, plans, width, height)
    margin = 0.015
    names = ns["CITY_NAMES"]
    return {
        "board": ns["BOARD_ID"],
        "layout_from": source,
        "note": note,
        "view_box": _xy(bounds.x0 - margin, bounds.y0 - margin)
        + _xy(bounds.x1 - bounds.x0 + 2 * margin, bounds.y1 - bounds.y0 + 2 * margin),
        "frame": _xy(width, height),
        "space_size": round(render.SPACE * SCALE, 2),
        "east_west": list(board.east_west) if board.east_west else None,
        "cities": [_city_json(c, layouts[name], ns) for c, name in enumerate(names)],
        "routes": [
            _route_json(r, names[a], names[b], plans[frozenset((names[a], names[b]))], ns)
            for r, (a, b) in enumerate(ns["ROUTE_CITIES"])
        ],
        "special_prestige": _special_json(board, layouts),
        "privilege_colours": render.PRIVILEGE_COLOURS,
        "country_colours": render._country_colours(board),
        "green_city_colour": render.GREEN_CITY_FACE,
    }


def _drawn_bounds(layouts: dict, plans: dict, width: float, height: float):
    """What the drawing covers: the frame, every city's extent, the routes and their labels."""
    bounds = render._Rect(0.0, 0.0, width, height)
    for layout in layouts.values():
        bounds = bounds.union(layout.extent)
    for plan in plans.values():
        for x, y in plan.path:
            bounds = bounds.union(render._Rect(x, y, x, y))
        for label in plan.labels:
            half_w, half_h = render._label_half_size(label.text)
            bounds = bounds.union(
                render._Rect(label.x - half_w, label.y - half_h, label.x + half_w, label.y + half_h)
            )
    return bounds


def _city_json(c: int, layout, ns: dict) -> dict:
    city = layout.city
    return {
        "index": c,
        "name": ns["CITY_NAMES"][c],
        "centre": _xy(*layout.centre),
        "box": _rect(layout.box),
        "name_at": _xy(layout.centre[0], layout.name_y),
        "details": [[text, round(y * SCALE, 2)] for text, y in layout.detail_lines],
        "hanseatic": city.hanseatic,
        "countries": list(city.countries),
        "permissions": list(city.permissions),
        "spaces": [
            {
                "id": space_id,
                "at": _xy(x, y),
                "shape": space.shape,
                "privilege": space.privilege,
                "coin": space.coin,
            }
            for space_id, space, (x, y) in zip(
                ns["CITY_SPACES"][c], city.spaces, layout.spaces, strict=True
            )
        ],
        "badges": [
            {"text": badge.text, "kind": badge.kind, "box": _rect(badge.rect)}
            for badge in layout.badges
        ],
    }


def _special_json(board: Board, layouts: dict) -> dict | None:
    if board.special_prestige is None:
        return None
    layout = layouts[board.special_prestige.city]
    return {
        "city": board.special_prestige.city,
        "via": list(board.special_prestige.via),
        "size": round(render.SPECIAL_SPACE * SCALE, 2),
        "spaces": [
            {"index": i, "at": _xy(x, y), "points": s.points, "privilege": s.privilege}
            for i, (s, (x, y)) in enumerate(
                zip(board.special_prestige.spaces, layout.special, strict=True)
            )
        ],
    }


def _route_json(r: int, a: str, b: str, plan, ns: dict) -> dict:
    spots = list(zip(plan.points, plan.angles, strict=True))
    if plan.route.cities[0] != a:  # the IR lists the route the other way round
        spots.reverse()
    return {
        "index": r,
        "cities": [a, b],
        "path": [_xy(x, y) for x, y in plan.path[::4]] + [_xy(*plan.path[-1])],
        "sea": plan.route.is_sea,
        "tavern": plan.route.tavern,
        "country": plan.route.country,
        "permanent": plan.route.permanent_bonus,
        "size": round(plan.point_size * SCALE, 2),
        "points": [
            {
                "id": x,
                "at": _xy(px, py),
                "angle": round(angle, 1),
                "merchant_only": bool(ns["POINT_MERCHANT_ONLY"][x]),
            }
            for x, ((px, py), angle) in zip(ns["ROUTE_POINTS"][r], spots, strict=True)
        ],
        "labels": [
            {"text": label.text, "kind": label.kind, "at": _xy(label.x, label.y)}
            for label in plan.labels
        ],
    }
