"""Rendering in the RL adapters (hansa/rl/render.py): the board picture for `rgb_array` at sides a
video encoder accepts, the multi-line `ansi` board, `human` printing it; PettingZoo's
`render_test` and Gymnasium's `check_env` render checks pass."""

from __future__ import annotations

import warnings

import pytest

import hansa

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")
pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install -e '.[rl]')")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

import numpy as np  # noqa: E402

from hansa.rl.render import BLOCK, BoardPicture, ansi_board  # noqa: E402

GAME = "bigbox-hanseatic-45p"


@pytest.mark.parametrize("name", [GAME, "bigbox-britannia-45p", "original-hanseatic-2p"])
def test_pettingzoo_render_test_passes(name):
    from pettingzoo.test import render_test

    from hansa.rl.pettingzoo import env

    players = min(hansa.load_game(name).info.player_counts)

    def checked(frame) -> bool:
        return frame.shape[0] % BLOCK == 0 and frame.shape[1] % BLOCK == 0

    render_test(lambda **kwargs: env(name, players, **kwargs), {"rgb_array": checked})


@pytest.mark.parametrize("mode", ["rgb_array", "ansi"])
def test_gymnasium_check_env_passes_with_rendering(mode):
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import hansa.rl.gymnasium  # noqa: F401

    environment = gymnasium.make(
        f"hansa/{GAME}-v0", players=4, opponents="random", render_mode=mode
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(environment.unwrapped)
    environment.reset(seed=0)
    frame = environment.render()
    if mode == "rgb_array":
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
        assert frame.shape[0] % BLOCK == 0 and frame.shape[1] % BLOCK == 0
        assert max(frame.shape[:2]) >= 640  # big enough to read the board
    else:
        assert isinstance(frame, str) and frame.count("\n") > 40


def test_the_picture_shows_the_pieces_and_the_text_every_city_and_route():
    game = hansa.load_game(GAME, 4)
    picture = BoardPicture(game)
    state = game.new_initial_state(3)
    empty = picture.frame(state)
    differ = (empty[: picture.map_height] != picture.background[: picture.map_height]).any(axis=2)
    assert 0 < differ.mean() < 0.01  # the start markers on the taverns, nothing else
    changed = 0
    for _ in range(40):
        before = picture.frame(state)
        state.apply_action(state.legal_actions()[-1])
        changed += not np.array_equal(before, picture.frame(state))
    assert changed > 5
    # a player's piece is drawn in its colour on its point
    pieces = state.point_pieces()
    x = next(i for i, code in enumerate(pieces) if code >= 0)
    row, col, _size = picture.points[x]
    from hansa.rl.render import PLAYER_COLOURS

    assert tuple(picture.frame(state)[row, col]) == PLAYER_COLOURS[pieces[x] >> 1]
    text = ansi_board(state, game.module)
    module = game.module
    for name in module.CITY_NAMES:
        assert f"  {name} " in text
    assert len(text.splitlines()) == 2 + 4 + 1 + 1 + len(module.CITY_NAMES) + 1 + module.N_ROUTES
    assert "0t" in text or "0m" in text


def test_native_states_render_as_python_ones():
    native = hansa.load_game("bigbox-hanseatic-3p", 3, backend="native")
    python = hansa.load_game("bigbox-hanseatic-3p", 3)
    states = [g.new_initial_state(5) for g in (python, native)]
    for state in states:
        state.random_steps(300, 1)
    assert ansi_board(states[0], python.module) == ansi_board(states[1], native.module)
    picture = BoardPicture(python)
    assert np.array_equal(picture.frame(states[0]), picture.frame(states[1]))


def test_human_mode_prints_and_bad_modes_are_refused(capsys):
    from hansa.rl.gymnasium import HansaGymEnv, HansaVectorEnv
    from hansa.rl.pettingzoo import env

    environment = env(GAME, 4, render_mode="human")
    environment.reset(seed=1)
    assert environment.render() is None
    assert "player 0 decides" in capsys.readouterr().out
    single = HansaGymEnv(GAME, 4, seat=None, render_mode="human")
    observation, _ = single.reset(seed=1)
    single.step(int(np.flatnonzero(observation["action_mask"])[0]))  # human mode draws each step
    assert "cities (posts" in capsys.readouterr().out
    for make in (
        lambda: env(GAME, 4, render_mode="video"),
        lambda: HansaGymEnv(GAME, 4, render_mode="rgb"),
    ):
        with pytest.raises(hansa.HansaError, match="render_mode must be None or one of"):
            make()
    with pytest.raises(hansa.HansaError, match="does not render"):
        HansaVectorEnv(GAME, 2, 4, render_mode="rgb_array")
