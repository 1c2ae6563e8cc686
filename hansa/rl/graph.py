"""The board as arrays for graph networks, beside the flat observation (docs/rl.md, "Graph").

A board is a graph: cities are nodes, routes are edges (two cities, a row of connection points).
A flat observation hides that; a graph network wants node and edge tables and the edge list.
`board_graph(game)` gives the fixed part (the same for every position of a game), made from the
generated module's tables; `graph_observation(game, observation)` regroups one flat observation
tensor into per-city and per-route features in the same node and edge order. Only the tensor is
read, so it carries exactly what the observation carries (public position, own secrets).
"""

from __future__ import annotations

import numpy as np

CITY_FEATURES = (
    "spaces",  # trading-post spaces
    "round_spaces",  # of them, round ones (merchants only)
    "privilege_1",  # of them, needing privilege level 1 … 4 (white, orange, pink, black)
    "privilege_2",
    "privilege_3",
    "privilege_4",
    "coin_spaces",  # spaces with a coin
    "abilities",  # abilities developed there (0 or 1 on the printed boards)
    "green",  # a green city (no trading posts counted for control in some rules)
    "east_west",  # one end of the East-West connection
    "special_prestige",  # the city of the special prestige spaces
    "degree",  # routes touching it
)
ROUTE_FEATURES = (
    "city_a",
    "city_b",
    "points",  # connection points
    "merchant_only_points",  # of them, ship / merchant-only points
    "tavern",  # a start-marker route
    "abilities",  # abilities its cities offer to develop on completing it
)

_GRAPHS: dict[tuple, dict] = {}


def board_graph(game) -> dict[str, np.ndarray | tuple]:
    """The board of `game` as arrays (made once per module, then shared: do not write to them).

    - `city_names` (C,), `city_features` (C, len(CITY_FEATURES)) float32;
    - `route_cities` (R, 2) int64 and `route_features` (R, len(ROUTE_FEATURES)) float32;
    - `edge_index` (2, 2R) int64: each route both ways (PyTorch Geometric's convention), edge e
      and e + R being route e;
    - `adjacency` (C, C) float32: how many routes join two cities;
    - `point_route` (P,), `space_city` (S,): the route of each connection point, the city of each
      trading-post space (the index maps between the flat tensor's blocks and the graph);
    - `city_feature_names`, `route_feature_names`.
    """
    module = game.module
    key = (module.__name__,)
    if key in _GRAPHS:
        return _GRAPHS[key]
    m = vars(module)
    cities, routes = m["CITY_NAMES"], m["ROUTE_CITIES"]
    c, r = len(cities), len(routes)
    city = np.zeros((c, len(CITY_FEATURES)), np.float32)
    east_west = set(m.get("EAST_WEST") or ())
    green = m.get("CITY_GREEN", (False,) * c)
    for i in range(c):
        spaces = m["CITY_SPACES"][i]
        privileges = [m["SPACE_PRIV"][s] for s in spaces]
        city[i, :2] = (len(spaces), sum(bool(m["SPACE_ROUND"][s]) for s in spaces))
        city[i, 2:6] = [privileges.count(level) for level in range(4)]
        city[i, 6] = sum(1 for s in spaces if m["SPACE_COIN"][s])
        city[i, 7] = len(m["CITY_ABILITIES"][i])
        city[i, 8:11] = (bool(green[i]), i in east_west, i == m.get("SPECIAL_CITY", -1))
        city[i, 11] = len(m["CITY_ROUTES"][i])
    route_cities = np.asarray(routes, np.int64).reshape(r, 2)
    route = np.zeros((r, len(ROUTE_FEATURES)), np.float32)
    taverns = set(m.get("TAVERN_ROUTES", ()))
    abilities = m.get("ROUTE_ABILITIES", ((),) * r)
    for j, points in enumerate(m["ROUTE_POINTS"]):
        merchant_only = sum(bool(m["POINT_MERCHANT_ONLY"][x]) for x in points)
        ability = len(abilities[j]) if isinstance(abilities[j], tuple) else int(abilities[j] >= 0)
        route[j] = (*route_cities[j], len(points), merchant_only, j in taverns, ability)
    adjacency = np.zeros((c, c), np.float32)
    for a, b in route_cities:
        adjacency[a, b] += 1
        adjacency[b, a] += 1
    graph = {
        "city_names": tuple(cities),
        "city_features": city,
        "city_feature_names": CITY_FEATURES,
        "route_cities": route_cities,
        "route_features": route,
        "route_feature_names": ROUTE_FEATURES,
        "edge_index": np.concatenate([route_cities.T, route_cities[:, ::-1].T], axis=1).copy(),
        "adjacency": adjacency,
        "point_route": np.asarray(m["POINT_ROUTE"], np.int64),
        "space_city": np.asarray(m["SPACE_CITY"], np.int64),
    }
    for value in graph.values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    _GRAPHS[key] = graph
    return graph


def graph_observation(game, observation) -> dict[str, np.ndarray]:
    """One flat observation tensor regrouped by city and route (owners relative to the observer,
    as in the tensor):

    - `city_posts` (C, 2, n): trading posts per city × kind (trader, merchant) × owner;
    - `city_additional_posts` (C, n);
    - `route_pieces` (R, 2, n): pieces on each route's points × kind × owner;
    - `route_free_points` (R,): its points holding nothing;
    - `route_markers` (R, marker types): the bonus marker lying on it;
    - `players` (the rest of the tensor, unchanged: abilities, supplies, track, decision, …) is
      left in `observation`; use the layout to read it.
    """
    graph = board_graph(game)
    vector = np.asarray(observation, np.float32)
    blocks = {b["name"]: b for b in game.observation_tensor_layout()}

    def block(name: str) -> np.ndarray:
        b = blocks[name]
        size = int(np.prod(b["shape"]))
        return vector[b["offset"] : b["offset"] + size].reshape(b["shape"])

    c, r = len(graph["city_names"]), len(graph["route_cities"])
    n = game.num_players()
    posts = np.zeros((c, 2, n), np.float32)
    np.add.at(posts, graph["space_city"], block("city_spaces"))
    pieces = np.zeros((r, 2, n), np.float32)
    points = block("points")
    np.add.at(pieces, graph["point_route"], points)
    occupied = np.zeros(r, np.float32)
    np.add.at(occupied, graph["point_route"], points.sum(axis=(1, 2)))
    lengths = np.bincount(graph["point_route"], minlength=r).astype(np.float32)
    return {
        "city_posts": posts,
        "city_additional_posts": block("additional_posts").copy(),
        "route_pieces": pieces,
        "route_free_points": lengths - occupied,
        "route_markers": block("route_markers").copy(),
    }
