"""OpenSpiel serialization and the native backend (hansa/rl/openspiel.py): `random_sim_test` with
`serialize=True` on every built game and on the native backend, `serialize_game_and_state` round
trips that continue the same game, and states that pickle (OpenSpiel's own copies)."""

from __future__ import annotations

import pickle
import random

import pytest

import hansa

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")
pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed")

from hansa.rl.openspiel import register  # noqa: E402

NAMES = register()


@pytest.mark.parametrize("name", sorted(NAMES))
def test_random_sim_test_with_serialization_passes(name):
    players = max(hansa.load_game(name).info.player_counts)
    for params in ({"max_decisions": 40}, {"max_decisions": 40, "reward": "rank", "shaped": 1.0}):
        game = pyspiel.load_game(NAMES[name], {"players": players, **params})
        pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def _round_trip_continues(params: dict) -> None:
    game = pyspiel.load_game(NAMES["bigbox-hanseatic-3p-missions"], params)
    state = game.new_initial_state()
    rng = random.Random(1)
    for _ in range(50):
        state.apply_action(rng.choice(state.legal_actions()))
    text = pyspiel.serialize_game_and_state(game, state)
    again_game, again = pyspiel.deserialize_game_and_state(text)
    assert str(again_game) == str(game) and again.history() == state.history()
    for _ in range(200):
        assert str(again) == str(state)
        for p in range(3):
            assert again.information_state_string(p) == state.information_state_string(p)
            assert again.information_state_tensor(p) == state.information_state_tensor(p)
            assert again.observation_tensor(p) == state.observation_tensor(p)
        assert again.returns() == state.returns()
        if state.is_terminal():
            break
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        again.apply_action(action)
    copy = pickle.loads(pickle.dumps(state))  # pyspiel pickles through the same serialization
    assert str(copy) == str(state)


def test_serialize_game_and_state_round_trips_and_continues_the_game():
    _round_trip_continues({"rng_seed": 5, "reward": "margin", "shaped": 0.5})


def test_the_serialized_state_is_the_owners_not_a_seats():
    """The serialization carries the whole state (docs/rl.md says it is for the game's owner): the
    face-down order is in it; no seat's string is."""
    game = pyspiel.load_game(NAMES["bigbox-hanseatic-45p"], {"players": 4, "rng_seed": 1})
    state = game.new_initial_state()
    _game, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert again.hansa_state.msupply == state.hansa_state.msupply  # the face-down order, exactly
    assert '"marker_supply"' in str(state)
    for p in range(4):
        assert '"marker_supply"' not in state.observation_string(p)


def test_native_backend_parameter():
    """`backend=native`: the same setup and game as the Python backend for the same rng_seed,
    random_sim_test(serialize=True) passes, and its states serialize."""
    python = pyspiel.load_game(NAMES["bigbox-hanseatic-3p-missions"], {"rng_seed": 9})
    native = pyspiel.load_game(
        NAMES["bigbox-hanseatic-3p-missions"], {"rng_seed": 9, "backend": "native"}
    )
    assert native.get_parameters()["backend"] == "native"
    states = [python.new_initial_state(), native.new_initial_state()]
    assert type(states[1].hansa_state).__name__.startswith("NativeState")
    rng = random.Random(9)
    for _ in range(300):
        assert states[0].legal_actions() == states[1].legal_actions()
        for p in range(3):
            assert states[0].information_state_string(p) == states[1].information_state_string(p)
            assert states[0].information_state_tensor(p) == states[1].information_state_tensor(p)
        action = rng.choice(states[0].legal_actions())
        for state in states:
            state.apply_action(action)
    short = pyspiel.load_game(
        NAMES["bigbox-hanseatic-3p-missions"], {"max_decisions": 40, "backend": "native"}
    )
    pyspiel.random_sim_test(short, num_sims=1, serialize=True, verbose=False)
    _round_trip_continues({"rng_seed": 3, "backend": "native"})
    with pytest.raises(pyspiel.SpielError, match="parameter backend must be one of"):
        pyspiel.load_game(NAMES["bigbox-hanseatic-45p"], {"backend": "gpu"})
