"""The state's fields are declared once, in the model (compiler/model/state.py), with the bounds
the spec folds into each kind of value; the native target takes each kind's C type from them.
Its templates depend on no type: built with every kind widened to 32 or 64 bits, a game plays
decision for decision as the Python backend does; and a value outside its kind's bounds is
refused where a position enters the native state, never cut down."""

from __future__ import annotations

import pytest
from hansa.compiler.errors import HansaError
from hansa.compiler.model.state import FRAME_FIELDS, STATE_FIELDS, c_type, kind_type
from hansa.compiler.targets.native.build import load_extension
from hansa.compiler.targets.native.codegen import end_rule_names, render_native
from hansa.play.differential import verify
from play_support import needs_c_compiler

import hansa
from hansa.native import NativeGame, model_of


def test_each_kind_takes_the_narrowest_type_of_its_bounds():
    assert c_type(-1, 9) == "int8_t"
    assert c_type(0, 128) == "int16_t"
    assert c_type(0, 1_000_000) == "int32_t"
    assert c_type(-1, 2**40) == "int64_t"
    with pytest.raises(ValueError):
        c_type(0, 2**64)
    assert kind_type("mask", 0, 15) == "int32_t"  # a bit set: at least 32 bits
    assert kind_type("spaces", 0, 15) == "int8_t"


def test_every_field_names_a_kind_the_model_bounds():
    model = model_of("bigbox-hanseatic-45p-missions-favour")
    kinds = model.components["state_kinds"]
    for name, kind, _dims, _switch, _doc in STATE_FIELDS + FRAME_FIELDS:
        assert kind in kinds, name
        low, high = kinds[kind]
        assert low <= high, name
    # the spec's numbers reach the bounds: the track saturates at MAX_PP, pieces by the game's
    assert kinds["pp"] == (0, 1_000_000)
    assert kinds["pieces"][1] >= model.constants["TRADERS"] + model.constants["MERCHANTS"]


def _widened(name: str, ctype: str) -> NativeGame:
    model = model_of(name)
    module = hansa.load_game(name).module
    ext = load_extension(render_native(model, widen=ctype))
    return NativeGame(module, ext, end_rule_names(model))


@needs_c_compiler
@pytest.mark.parametrize(
    ("name", "ctype"),
    [
        ("bigbox-hanseatic-45p-missions-favour", "int64_t"),
        ("bigbox-britannia-45p", "int32_t"),
        ("draw-three-hanseatic-45p", "int64_t"),
        ("original-hanseatic-2p", "int32_t"),
    ],
)
def test_a_build_with_wider_types_plays_the_same(name, ctype):
    native = _widened(name, ctype)
    python = hansa.Game(native.module, native.players)
    for policy, games in (("greedy", 3), ("kinds", 1)):
        result = verify(python, native, games, seed=50, policy=policy)
        assert result.divergence is None, result.divergence.report()


@needs_c_compiler
def test_a_value_outside_its_kinds_bounds_is_refused_by_the_native_loader():
    game = hansa.load_game("bigbox-hanseatic-45p", 4, backend="native")
    data = game.new_initial_state(3).to_python().to_dict()
    state = game.module.state_from_dict(data, 4)
    state.supply[0] = 40_000  # more pieces than any player of this game owns
    with pytest.raises(HansaError, match="supply: 40000 is outside 0"):
        game.from_python(state)
