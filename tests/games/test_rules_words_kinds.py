"""Per-kind quantities in words (issue 21, construct 3): trader and merchant posts, in a city and on
the board, and the pieces of a kind on a route — checked, compiled to plain Python, read in a
position the test sets up (Big Box board, 4 players)."""

from __future__ import annotations

import pytest
from hansa.compiler.expr.catalogue import QUANTITIES
from scenario_support import Position
from variant_support import variant

SCORES = (
    'score H "Merchant houses": 2 PP per city where your merchant posts here > 0\n'
    'score I "Trader towns": 1 PP * count cities where your trader posts here >= 2\n'
    'score J "Kinds": 1 PP * (10 * merchant posts + trader posts)\n'
    'score K "Convoys": 1 PP * sum (merchants here + 10 * traders here) over routes'
)


@pytest.fixture(scope="module")
def game():
    return variant(SCORES)


def test_kind_quantities_count_posts_and_pieces_of_a_kind(game):
    position = (
        Position(game)
        .player(0, book=2)  # two merchants off the Book track: three to place
        .player(1, book=1)
        .city("Arnheim", "t0", "m0", "t0", "t1")  # square, round, square, square
        .city("Bremen", "m1", "t0")
        .city("Dortmund", "m0", additional=("t0",))
        .route("Dortmund", "Duisburg", "t0", "m0")
        .route("Dortmund", "Paderborn", "t0", "t0", "m1")
    )
    scores = position.state().score_breakdown()
    zero, one = scores[0], scores[1]
    assert zero["H"] == 4  # merchant posts in Arnheim and Dortmund
    assert zero["I"] == 1  # two trader posts only in Arnheim
    assert zero["J"] == 10 * 2 + 4  # 2 merchant posts; 4 trader posts (the additional one too)
    assert zero["K"] == (1 + 10) + (0 + 20)  # per route: merchants + 10 × traders
    assert (one["H"], one["I"], one["J"], one["K"]) == (2, 0, 11, 1)


def test_a_kind_quantity_outside_its_city_is_an_error(tmp_path):
    from variant_support import problems

    found = problems("forbid place when merchant posts here > 0", tmp_path)
    assert found and found[0].startswith("2:23:") and "city" in found[0]


def test_the_kind_quantities_are_in_the_catalogue():
    for name in ("trader posts", "merchant posts", "trader posts here", "merchant posts here"):
        assert QUANTITIES[name].type == "number"
    assert QUANTITIES["traders here"].needs == QUANTITIES["merchants here"].needs == "route"


# --- at turn end (construct 4: another moment) ----------------------------------------------------


def test_at_turn_end_acts_for_the_player_whose_turn_ends():
    from scenario_support import act, doc, track

    game = variant("at turn end: gain 1 PP if pieces in supply > 0, take 1 trader from the stock")
    state = game.new_initial_state(seed=2)
    before, stock = track(state), doc(state)["player_state"][0]["stock"]["traders"]
    act(state, "end the turn")
    assert doc(state)["turn"]["player"] == 1
    assert track(state) == [before[0] + 1, *before[1:]]
    assert doc(state)["player_state"][0]["stock"]["traders"] == stock - 1
    act(state, "end the turn")
    assert track(state)[1] == before[1] + 1


def test_at_turn_end_takes_no_decisions_nor_actions(tmp_path):
    from variant_support import problems

    (chosen,) = problems("at turn end: develop an ability", tmp_path)
    assert chosen.startswith("2:18: 'develop an ability' asks the player to choose")
    (actions,) = problems("at turn end: gain 1 action", tmp_path)
    assert "cannot be done" in actions
    (may,) = problems("at turn end: you may take 1 piece from the stock", tmp_path)
    assert "cannot be done" in may


# --- what the action did (construct 1: after create_route) ---------------------------------------


def test_after_create_route_reads_what_the_route_completed_and_the_route_itself():
    """`cities completed now` is what the step-3 post just completed; the route quantities
    (`points`) read the route just created."""
    from scenario_support import act, track

    game = variant("after create_route: gain 2 PP if cities completed now > 0, gain 1 PP * points")
    completing = Position(game).route("Dortmund", "Duisburg", "t0", "t0").state()
    before = track(completing)[0]
    act(
        completing,
        "create route Dortmund–Duisburg",
        "establish a trading post in Duisburg with a trader",  # its only space: completed
    )
    assert track(completing)[0] == before + 2 + 2  # completed a city; a 2-point route
    other = Position(game).route("Dortmund", "Duisburg", "t0", "t0").state()
    act(
        other,
        "create route Dortmund–Duisburg",
        "neither post nor ability: all route pieces to the stock",
    )
    assert track(other)[0] == before + 2  # nothing completed: only the route's points


def test_what_the_route_did_is_known_only_after_create_route(tmp_path):
    from variant_support import problems

    (error,) = problems("at turn start: gain 1 PP if cities completed now > 0", tmp_path)
    assert "'cities completed now' is known only in `after create_route:`" in error
