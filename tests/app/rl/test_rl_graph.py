"""The board as arrays for graph networks (hansa/rl/graph.py): tables consistent with the module's
board on every built game, and the flat observation regrouped by city and route without losing a
piece or post."""

from __future__ import annotations

import pytest

import hansa

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")
pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install -e '.[rl]')")

import numpy as np  # noqa: E402

from hansa.rl.graph import (  # noqa: E402
    CITY_FEATURES,
    ROUTE_FEATURES,
    board_graph,
    graph_observation,
)

GAMES = sorted(hansa.available_games())


@pytest.mark.parametrize("name", GAMES)
def test_board_graph_matches_the_board(name):
    game = hansa.load_game(name)
    m = game.module
    graph = board_graph(game)
    c, r = len(m.CITY_NAMES), m.N_ROUTES
    assert graph["city_names"] == tuple(m.CITY_NAMES)
    assert graph["city_features"].shape == (c, len(CITY_FEATURES))
    assert graph["route_features"].shape == (r, len(ROUTE_FEATURES))
    assert graph["edge_index"].shape == (2, 2 * r)
    adjacency = graph["adjacency"]
    assert np.array_equal(adjacency, adjacency.T) and adjacency.sum() == 2 * r
    assert graph["city_features"][:, 0].sum() == m.N_SPACES
    assert graph["route_features"][:, 2].sum() == m.N_POINTS
    assert graph["city_features"][:, CITY_FEATURES.index("degree")].sum() == 2 * r
    for e, (a, b) in enumerate(m.ROUTE_CITIES):
        assert tuple(graph["edge_index"][:, e]) == (a, b)
        assert tuple(graph["edge_index"][:, e + r]) == (b, a)
    with pytest.raises(ValueError):
        graph["adjacency"][0, 0] = 5  # shared: read-only


def test_graph_observation_regroups_the_flat_tensor():
    from hansa.rl.gymnasium import HansaGymEnv

    environment = HansaGymEnv("bigbox-hanseatic-45p", 4, seat=None)
    observation, _ = environment.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(400):
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, *_ = environment.step(action)
    assert environment.board_graph is board_graph(environment.game)
    state = environment.state
    observer = environment._game.observer
    features = graph_observation(environment.game, observation["observation"])
    pieces = [code for code in state.point_pieces() if code >= 0]
    posts = [code for code in state.space_posts() if code >= 0]
    assert features["route_pieces"].sum() == len(pieces) > 0
    assert features["city_posts"].sum() == len(posts)
    module = environment.game.module
    lengths = [len(points) for points in module.ROUTE_POINTS]
    occupied = features["route_pieces"].sum(axis=(1, 2))
    assert np.array_equal(occupied + features["route_free_points"], lengths)
    for r, points in enumerate(module.ROUTE_POINTS):  # owners relative to the observer
        for x in points:
            code = state.point_pieces()[x]
            if code >= 0:
                assert features["route_pieces"][r, code & 1, (code >> 1) - observer] >= 1
    markers = state.route_markers()
    assert features["route_markers"].argmax(axis=1)[
        [r for r, k in enumerate(markers) if k >= 0]
    ].tolist() == [k for k in markers if k >= 0]
