"""Places by name, network quantities and per-player state on the native backend (issue 33,
items 1-3): the shipped house rules and a rule set reading every new quantity, from positions
that reach what random play seldom does, agree with the Python backend after every decision (legal
actions, every field, the state JSON with its counters and flags, scores), and random play from
each position agrees too."""

from __future__ import annotations

from pathlib import Path

import pytest
from hansa.play.differential import compare_from
from play_support import needs_c_compiler
from scenario_support import Position
from test_native_favour import Twins
from test_places import LUBECK_TO_COELLEN, with_parameters
from variant_support import house_rule_text

import hansa

pytestmark = needs_c_compiler

SPEC = Path(__file__).resolve().parents[2] / "spec"
RANDOM_SEEDS = 3
RANDOM_CAP = 1500

EVERYTHING = (
    "counter tally\n"
    "flag seen private yes\n"
    "at turn end: your tally becomes your tally + count routes where route holder is you,"
    " your seen becomes yes if your posts connect Hamburg-Lübeck\n"
    "after create_route: gain 3 PP if created now of Hamburg-Lübeck\n"
    'score H "Places": 1 PP * (distance to Coellen of Lübeck + posts in Lübeck'
    " + free points of Bremen-Hamburg + count cities where adjacent to Hamburg)\n"
    'score I "Networks": 1 PP * (10 * longest chain + tally)\n'
    'score J "Flags": 1 PP * count players where seen and controller of Lübeck is them'
)


def _pair(name: str):
    native = hansa.load_game(name, 4, backend="native")
    return hansa.Game(native.module, 4), native


def _random_games_agree(python, native, start) -> None:
    for seed in range(RANDOM_SEEDS):
        _decisions, divergence = compare_from(
            python, native, start, seed, cap=RANDOM_CAP, policy="kinds"
        )
        assert divergence is None, divergence.report()


@pytest.fixture(scope="module")
def everything(tmp_path_factory):
    path = tmp_path_factory.mktemp("places") / "everything.hansa"
    path.write_text(house_rule_text(EVERYTHING), encoding="utf-8")
    native = hansa.compile_game(str(path), 4, spec_dir=str(SPEC), backend="native")
    return hansa.Game(native.module, 4), native


def test_the_first_link_on_both_backends():
    python, native = _pair("first-link-hanseatic-45p")
    position = Position(python)
    for city in LUBECK_TO_COELLEN:
        position.city(city, "t0")
    twins = Twins(python, native, position.state())
    twins.act("end the turn", "end the turn")
    assert twins.doc()["player_state"][0]["parameters"]["linked_lubeck_coellen"] == 1
    late = Twins(python, native, with_parameters(python, position, p3={"linked_lubeck_coellen": 1}))
    late.act("end the turn")
    _random_games_agree(python, native, twins.py)


def test_the_hinterland_on_both_backends():
    python, native = _pair("hinterland-hanseatic-45p")
    position = (
        Position(python)
        .city("Lübeck", "t0")
        .city("Stade", "t0")
        .city("Coellen", "t0")
        .city("Bremen", "t1")
        .route("Hamburg", "Lübeck", "t0", "t0", "t0")
    )
    twins = Twins(python, native, position.state())
    twins.act("create route Hamburg–Lübeck", "establish a trading post in Hamburg with a trader")
    assert twins.nat.score_breakdown()[0]["I"] == 3  # Lübeck, Hamburg, Stade
    _random_games_agree(python, native, twins.py)


def test_once_per_game_on_both_backends():
    python, native = _pair("merchant-once-hanseatic-45p")
    position = (
        Position(python)
        .route("Hamburg", "Lübeck", "m1")
        .route("Bremen", "Hamburg", "m2", "t2")
        .route("Bremen", "Minden", "t0", "t0", "t0")
        .player(0, supply=(8, 1))
    )
    twins = Twins(python, native, with_parameters(python, position, p0={"routes_created": 2}))
    merchant = next(t for t in twins.legal() if t.startswith("displace") and "Hamburg–Lübeck" in t)
    twins.act(merchant)
    assert twins.doc()["player_state"][0]["parameters"]["displaced_a_merchant"] == 1
    _random_games_agree(python, native, twins.py)


def test_every_new_quantity_on_both_backends(everything):
    python, native = everything
    position = (
        Position(python)
        .city("Lübeck", "t0", "t0")
        .city("Hamburg", "t0")
        .city("Stade", "m0")
        .route("Hamburg", "Lübeck", "t0", "t0", "t0")
        .route("Bremen", "Hamburg", "t1")
    )
    twins = Twins(python, native, position.state())
    twins.act("end the turn")
    parameters = twins.doc()["player_state"][0]["parameters"]
    assert parameters["tally"] == 1 and parameters["seen"] == 1
    for state in (twins.py, twins.nat):  # the private flag: its own player's observation only
        assert state.observation(0)["own"]["private"] == {"seen": 1}
        seen_by_one = state.observation(1)
        assert seen_by_one["own"]["private"] == {"seen": 0}
        assert all("seen" not in e["parameters"] for e in seen_by_one["player_state"])
    scores = twins.nat.score_breakdown()[0]
    assert scores["H"] == 6 + 2 + 3 + 4
    assert scores["I"] == 10 * 3 + 1 and scores["J"] == 1
    while twins.doc()["turn"]["player"] != 0:
        twins.act("end the turn")
    before = twins.doc()["player_state"][0]["track"]
    twins.act("create route Hamburg–Lübeck", "develop bank")  # Hamburg's next space is orange
    assert twins.doc()["player_state"][0]["track"] >= before + 3
    _random_games_agree(python, native, twins.py)


def test_the_turn_order_on_both_backends():
    """spec/house/catch_up_order.hansa (issue 33, item 4): the players behind go first."""
    python, native = _pair("catch-up-order-hanseatic-45p")
    position = Position(python)
    for p, pp in enumerate((5, 3, 0, 3)):
        position.player(p, track=pp)
    twins = Twins(python, native, position.state())
    seen = []
    for _ in range(4):
        twins.act("end the turn")
        seen.append(twins.doc()["turn"]["player"])
    assert seen == [2, 1, 3, 2]
    assert twins.nat.observation(0)["turn"]["next_player"] == 1
    _random_games_agree(python, native, twins.py)
