"""Every rule variant the rules language accepts compiles and plays, and visibly changes the game.

Each test compiles a small house rule (`extends bigbox_2021`) in memory and plays one position
under it and under the Big Box: the variant must change the outcome (legal decisions, PP, where a
piece or marker goes). A hypothesis property then compiles sampled combinations of variants and
plays short random games through them, checking the invariants.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from hansa.play.agents import play
from hansa.play.greedy import GreedyAgent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenario_support import (
    Position,
    act,
    city_posts,
    doc,
    legal,
    route_points,
    stock,
    supply,
    track,
)
from test_scenarios_rulebook import east_west_position
from variant_support import (
    VARIANT_PARTS,
    count_pieces,
    play_checked,
    source_of,
    variant,
    variant_body,
)

FULL = {"keys": 4, "actions": 5, "privilege": 3, "book": 3, "bank": 3}


def both(bigbox, body: str):
    """(Big Box, variant) games for one house-rule body."""
    return bigbox, variant(body)


def full_board(game, keep_free: tuple[tuple[str, str], ...] = ()) -> Position:
    """Every route point taken (players 1-3 first, then player 0), all abilities developed, so the
    general stock and supply keep few pieces; routes in `keep_free` stay empty."""
    initial = doc(game.new_initial_state(0))
    pos = Position(game)
    for p in range(4):
        pos.player(p, **FULL)
    owners = [f"t{p}" for p in (1, 2, 3) for _ in range(26)] + ["t0"] * 30
    owners = [f"m{p}" for p in (1, 2, 3) for _ in range(4)] + owners
    owners.reverse()
    for entry in initial["routes"]:
        a, b = entry["cities"]
        if (a, b) in keep_free or (b, a) in keep_free:
            continue
        pos.route(a, b, *[owners.pop() for _ in entry["points"]])
    return pos


# ---------------------------------------------------------------- action create_route
def test_control_tie_nobody_gives_a_tied_city_to_nobody(bigbox):
    """control_tie nobody: Hannover's 1-1 tie scores no control PP and no controlled city, where the
    Big Box gives it to the player with the rightmost post (player 0)."""
    results = []
    for game in both(bigbox, "action create_route control_tie nobody"):
        pos = Position(game).route("Bremen", "Hannover", "t2", "t2", "t2")
        pos.city("Hannover", "t1", "t0").to_move(2)
        state = pos.state()
        breakdown = state.score_breakdown()
        act(state, "create route Bremen–Hannover")
        results.append((track(state), breakdown[0]["E"], breakdown[1]["E"]))
    assert results == [([1, 0, 0, 0], 2, 0), ([0, 0, 0, 0], 0, 0)]


def test_control_pp_and_controlled_cities_pp(bigbox):
    """control_pp 0: creating a route next to a controlled city gives its controller nothing;
    controlled_cities pp 3: each controlled city scores 3 in category E."""
    outcomes = []
    for game in (
        bigbox,
        variant("action create_route control_pp 0\nscore E controlled_cities pp 3"),
    ):
        state = (
            Position(game)
            .route("Bremen", "Hannover", "t2", "t2", "t2")
            .city("Hannover", "t1", "t1")
            .to_move(2)
            .state()
        )
        act(state, "create route Bremen–Hannover")
        outcomes.append((track(state)[1], state.score_breakdown()[1]["E"]))
    assert outcomes == [(1, 2), (0, 3)]


def test_coin_pp_no(bigbox):
    """coin_pp no: a post on Groningen's coin space scores no PP."""
    gained = []
    for game in both(bigbox, "action create_route coin_pp no"):
        state = Position(game).route("Emden", "Groningen", "t0", "t0", "t0").state()
        act(
            state,
            "create route Emden–Groningen",
            "establish a trading post in Groningen with a trader",
        )
        assert city_posts(state, "Groningen")[0][0] == "t0"
        gained.append(track(state)[0])
    assert gained == [1, 0]


def step_three(game, route: tuple[str, ...]) -> list[str]:
    state = Position(game).route(*route).player(0, privilege=3).state()
    act(state, f"create route {route[0]}–{route[1]}")
    return legal(state)


COELLEN = ("Coellen", "Warburg", "m0", "t0", "t0", "t0")
GRONINGEN = ("Emden", "Groningen", "t0", "t0", "t0")


@pytest.mark.parametrize(
    ("body", "word", "route"),
    [
        ("action create_route establish_trading_post no", "establish a trading post", COELLEN),
        ("action create_route develop_ability no", "develop", GRONINGEN),
        ("action create_route special_prestige no", "take special prestige", COELLEN),
    ],
)
def test_step_three_choices_can_be_switched_off(bigbox, body, word, route):
    """establish_trading_post / develop_ability / special_prestige no: the step-3 choice is gone."""
    base, house = both(bigbox, body)
    assert any(text.startswith(word) for text in step_three(base, route))
    assert not any(text.startswith(word) for text in step_three(house, route))
    assert "neither post nor ability: all route pieces to the stock" in step_three(house, route)


def test_space_shapes_merchant_anywhere_lets_a_merchant_take_a_square(bigbox):
    """space_shapes merchant_anywhere (a house rule relaxing p. 6, 3a): a merchant may take
    Paderborn's square space; round spaces stay merchant-only, so a trader still cannot take
    Münster's. The Big Box (strict) refuses the merchant."""
    route = ("Dortmund", "Paderborn", "t0", "m0", "t0")
    merchant_text = "establish a trading post in Paderborn with a merchant"
    offered = []
    for game in both(bigbox, "action create_route space_shapes merchant_anywhere"):
        state = Position(game).route(*route).city("Dortmund", "m1").state()
        act(state, "create route Dortmund–Paderborn")
        offered.append(merchant_text in legal(state))
    assert offered == [False, True]
    house = variant("action create_route space_shapes merchant_anywhere")
    state = Position(house).route(*route).city("Dortmund", "m1").state()
    act(state, "create route Dortmund–Paderborn", merchant_text)
    assert city_posts(state, "Paderborn") == (["m0", None], [])
    state = Position(house).route("Arnheim", "Münster", "t0", "t0", "t0").state()
    act(state, "create route Arnheim–Münster")
    assert "establish a trading post in Münster with a trader" not in legal(state)


def test_greedy_values_a_square_space_only_where_a_merchant_may_take_it(bigbox):
    """The greedy agent's step-3 values follow the space rule: with merchants only on a route,
    Paderborn's square space is worth nothing under the Big Box (strict) and as much as with a
    trader under space_shapes merchant_anywhere; Münster's round one needs a merchant either way."""
    from hansa.play.greedy import tables_for

    seen = []
    for game in both(bigbox, "action create_route space_shapes merchant_anywhere"):
        state = Position(game).state()
        names = [c["name"] for c in doc(state)["cities"]]
        paderborn, munster = names.index("Paderborn"), names.index("Münster")
        agent = GreedyAgent(1)
        by_trader, by_both, by_merchant = agent._city_values(state, tables_for(state), 0)
        assert by_both[paderborn] == by_trader[paderborn] > 0
        assert by_both[munster] == by_merchant[munster] > by_trader[munster]
        seen.append(by_merchant[paderborn] == by_trader[paderborn])
    assert seen == [False, True]


@pytest.mark.parametrize(
    ("awards", "before", "expected"), [("9", [], 9), ("5", [3], 0), ("9, 8, 6", [3], 8)]
)
def test_east_west_awards_of_another_length(bigbox, awards, before, expected):
    """east_west_awards: the n-th linking player scores the n-th entry; past the list's end, 0."""
    gains = []
    for game in (bigbox, variant(f"action create_route east_west_awards {awards}")):
        pos = east_west_position(game)
        pos.east_west = list(before)
        state = pos.state()
        act(state, "create route Perleberg–Stendal")
        was = track(state)[0]
        act(state, "establish a trading post in Stendal with a trader")
        gains.append(track(state)[0] - was)
    assert gains == [(7, 4, 2)[len(before)], expected]


# ---------------------------------------------------------------- action move
def test_move_without_swaps_keeps_vacated_points_closed(bigbox):
    """swaps no: after picking up two pieces, the points they left are not free for this Move."""
    offered = []
    for game in both(bigbox, "action move swaps no"):
        state = Position(game).route("Bremen", "Hannover", "t0", "t0").state()
        act(
            state,
            "move own tradesmen",
            "pick up the piece on Bremen–Hannover #1",
            "pick up the piece on Bremen–Hannover #2",
        )
        offered.append("put the held piece on Bremen–Hannover #1" in legal(state))
        act(state, "put the held piece on Bremen–Hannover #3")
        assert route_points(state, "Bremen", "Hannover")[2] == "t0"
    assert offered == [True, False]


def test_move_without_swaps_on_a_full_board_is_no_action(bigbox):
    """swaps no: with every point taken, a Move could only put pieces back, so it is not offered;
    the Big Box allows it (pieces trade places)."""
    offered = []
    for game in both(bigbox, "action move swaps no"):
        state = full_board(game).state()
        offered.append("move own tradesmen" in legal(state))
    assert offered == [True, False]


def test_no_op_actions_legal_lets_a_move_put_the_piece_back(bigbox):
    """no_op_actions legal: a single picked piece may go back where it was."""
    offered = []
    for game in both(bigbox, "option no_op_actions = legal"):
        state = Position(game).route("Bremen", "Hannover", "t0").state()
        act(state, "move own tradesmen", "pick up the piece on Bremen–Hannover #1")
        offered.append("put the held piece on Bremen–Hannover #1" in legal(state))
    assert offered == [False, True]


def test_no_op_actions_legal_allows_empty_income_move_and_exchange(bigbox):
    """no_op_actions legal: income from an empty stock, a move of no pieces, and exchanging two
    posts of the same player are actions (each uses one action and changes nothing else)."""
    seen = []
    for game in both(bigbox, "option no_op_actions = legal"):
        pos = Position(game).player(0, stock=(0, 0), unused=["exchange_trading_posts"])
        state = pos.city("Hannover", "t0", "t0").state()
        offered = legal(state)
        seen.append(
            (
                "income: 0 traders, 0 merchants" in offered,
                "move own tradesmen" in offered,
                "use bonus marker exchange_trading_posts" in offered,
            )
        )
        if game is bigbox:
            continue
        before = doc(state)
        act(state, "move own tradesmen")  # no pieces on routes: a move of no pieces
        act(state, "income: 0 traders, 0 merchants")
        after = doc(state)
        assert (
            after["turn"]["actions_left"] == 0 and after["player_state"] == before["player_state"]
        )
        act(state, "use bonus marker exchange_trading_posts")
        act(state, "exchange the posts on spaces 1 and 2 of Hannover")
        assert city_posts(state, "Hannover") == (["t0", "t0"], [])
    assert seen == [(False, False, False), (True, True, True)]


def test_move_must_place_all_no_sends_held_pieces_to_the_supply(bigbox):
    """move_must_place_all = no: while putting down, the mover may stop; the pieces still held go
    to the personal supply."""
    game = variant("option move_must_place_all = no")
    for g in (bigbox, game):
        state = Position(g).route("Bremen", "Hannover", "t0", "t0").state()
        act(
            state,
            "move own tradesmen",
            "pick up the piece on Bremen–Hannover #1",
            "pick up the piece on Bremen–Hannover #2",
        )
        before = supply(state, 0)
        stop = [t for t in legal(state) if t.startswith("stop picking up")]
        if g is bigbox:
            assert stop == []
            continue
        act(state, "put the held piece on Bremen–Hannover #3", stop[0])
        assert route_points(state, "Bremen", "Hannover") == [None, None, "t0"]
        assert supply(state, 0) == (before[0] + 1, before[1])
        assert state.current_player() == 0 and not state.is_terminal()


# ---------------------------------------------------------------- action displace
def displaced_extras(game, body_player_stock=(3, 2)) -> list[str]:
    """Player 0 displaces player 1's trader on Bremen–Hannover; player 1 re-places it."""
    pos = Position(game).route("Bremen", "Hannover", "t1").player(1, stock=body_player_stock)
    pos.player(1, book=1)
    state = pos.state()
    act(state, "displace trader on Bremen–Hannover #1")
    act(state, "pay the displacement cost with 0 merchants")
    act(state, "place the displaced piece on Bremen–Minden #1")
    return legal(state), state


def test_displaced_extra_kind_traders_only(bigbox):
    """displaced_extra_kind = traders_only: no extra merchant is ever offered."""
    base, house = both(bigbox, "option displaced_extra_kind = traders_only")
    assert "take an extra merchant" in displaced_extras(base)[0]
    offered = displaced_extras(house)[0]
    assert "take an extra trader" in offered and "take an extra merchant" not in offered


def test_displaced_extra_kind_traders_only_skips_a_stock_of_merchants(bigbox):
    """traders_only: with only merchants in the stock, the extra trader comes from the supply."""
    base, house = both(bigbox, "option displaced_extra_kind = traders_only")
    offered, state = displaced_extras(house, (0, 2))
    was = supply(state, 1)
    act(state, "take an extra trader")
    assert supply(state, 1) == (was[0] - 1, was[1]) and stock(state, 1) == (0, 2)
    offered, state = displaced_extras(base, (0, 2))
    assert offered == ["take an extra merchant", "decline further extra pieces"]


def test_extras_declinable_no(bigbox):
    """extras_declinable no: declining is offered only when nothing can be taken."""
    base, house = both(bigbox, "action displace extras_declinable no")
    assert "decline further extra pieces" in displaced_extras(base)[0]
    assert "decline further extra pieces" not in displaced_extras(house)[0]


def test_fallback_order_supply_first(bigbox):
    """fallback supply, stock: extras come from the personal supply while it has pieces."""
    taken = []
    for game in both(bigbox, "action displace fallback supply, stock, board"):
        _, state = displaced_extras(game)
        was_supply, was_stock = supply(state, 1), stock(state, 1)
        act(state, "take an extra trader")
        taken.append((was_supply[0] - supply(state, 1)[0], was_stock[0] - stock(state, 1)[0]))
    assert taken == [(0, 1), (1, 0)]


def test_displaced_piece_without_point_general_stock(bigbox):
    """displaced_piece_without_point = general_stock: on a full board the displaced trader goes to
    its owner's general stock, not (as in the Big Box) to the personal supply."""
    moved = []
    for game in both(bigbox, "option displaced_piece_without_point = general_stock"):
        state = full_board(game).player(0, supply=(3, 0)).state()
        route = next(r for r in doc(state)["routes"] if r["points"][0] == "t1")
        target = "displace trader on {}–{} #1".format(*route["cities"])
        before = (supply(state, 1), stock(state, 1))
        act(state, target)
        while state.current_player() == 1:
            act(state, "decline further extra pieces")
        moved.append((supply(state, 1)[0] - before[0][0], stock(state, 1)[0] - before[1][0]))
    assert moved == [(1, 0), (0, 1)]


# ---------------------------------------------------------------- bonus markers
def test_markers_usable_in_the_taking_action(bigbox):
    """markers usable_in_taking_action yes: the additional-post marker taken with a route can be
    used in that route's own step 3."""
    offered = []
    for game in both(bigbox, "markers usable_in_taking_action yes"):
        pos = Position(game).route(
            "Bremen", "Hannover", "t0", "t0", "t0", marker="additional_trading_post"
        )
        state = pos.city("Hannover", "t1", "t2").state()
        act(state, "create route Bremen–Hannover")
        offered.append(
            "establish an additional trading post in Hannover with a trader" in legal(state)
        )
    assert offered == [False, True]


def test_unplaceable_marker_back_to_supply(bigbox):
    """unplaceable_marker = back_to_supply: a drawn marker with no route is shuffled back into the
    face-down supply; the Big Box removes it from the game."""
    where = []
    for game in both(bigbox, "option unplaceable_marker = back_to_supply"):
        pos = full_board(game).to_move(0, plate=("plus_3_actions",))
        state = pos.state()
        supply_before = doc(state)["marker_supply"]
        act(state, "end the turn")
        after = doc(state)
        where.append(
            (len(after["marker_supply"]) - len(supply_before), after["markers_out_of_game"])
        )
        assert state.current_player() == 1
        again = game.state_from_json(state.to_json())
        assert again.to_json() == state.to_json()
    assert where == [(0, ["plus_3_actions"]), (1, [])]


def test_a_marker_mix_without_some_kinds(bigbox):
    """Removing a marker type leaves it out of the supply and the module."""
    game = variant("remove bonus move_tradesmen\nbonus additional_trading_post start 2")
    initial = doc(game.new_initial_state(3))
    placed = [r["marker"] for r in initial["routes"] if r["marker"]]
    assert "move_tradesmen" not in initial["marker_supply"] + placed
    assert placed.count("additional_trading_post") == 2
    assert not hasattr(game.module, "_effect_move_tradesmen")
    assert hasattr(bigbox.module, "_effect_move_tradesmen")


# ---------------------------------------------------------------- end, scoring, tie-break
def test_track_threshold_and_removed_trigger(bigbox):
    """end when track_pp >= 12 ends at 12 PP; removing the trigger lets 20 PP pass."""
    ends = []
    bodies = (("", 19), ("end when track_pp >= 12", 11), ("remove end track_pp", 19))
    for body, before in bodies:
        game = bigbox if not body else variant(body)
        pos = Position(game).route("Bremen", "Hannover", "t2", "t2", "t2").city("Hannover", "t1")
        state = pos.player(1, track=before).to_move(2).state()
        act(state, "create route Bremen–Hannover")  # player 1 controls Hannover: +1 PP
        act(state, "neither post nor ability: all route pieces to the stock")
        ends.append(state.is_terminal())
    assert ends == [True, True, False]
    game = variant("end when track_pp >= 12")
    state = Position(game).route("Bremen", "Hannover", "t2", "t2", "t2").city("Hannover", "t2")
    state = state.player(2, track=10).to_move(2).state()
    act(
        state,
        "create route Bremen–Hannover",
        "neither post nor ability: all route pieces to the stock",
    )
    assert track(state)[2] == 11 and not state.is_terminal()


def test_completed_cities_threshold_and_removed_trigger(bigbox):
    """completed_cities: the 10th completed city ends the Big Box; not with a threshold of 11 or
    with the trigger removed."""
    full = {
        "Coellen": 2, "Duisburg": 1, "Goslar": 2, "Halle": 2, "Hamburg": 3,
        "Hildesheim": 2, "Lübeck": 2, "Brunswiek": 1, "Warburg": 2,
    }  # fmt: skip
    ends = []
    for body in ("", "end when completed_cities >= 11", "remove end completed_cities"):
        game = bigbox if not body else variant(body)
        pos = Position(game).route("Bremen", "Hannover", "t0", "t0", "t0").city("Hannover", "t1")
        pos.player(0, privilege=2).player(2, **FULL).player(3, **FULL)
        for name, size in full.items():
            pos.city(name, *(["t2", "t3"] * 2)[:size])
        state = pos.state()
        assert doc(state)["completed_cities"] == 9
        act(state, "create route Bremen–Hannover")
        act(state, "establish a trading post in Hannover with a trader")
        assert doc(state)["completed_cities"] == 10
        ends.append(state.is_terminal())
    assert ends == [True, False, False]


def test_scoring_table_pp_and_removed_category(bigbox):
    """A different bonus-marker table; a removed category is not scored."""
    game = variant(
        "score C bonus_markers table { 1: 5, 2+: 9 }\nremove score F\n"
        "tiebreak fewest ability actions, shared"
    )
    rows = []
    for g in (bigbox, game):
        state = Position(g).player(0, used=["plus_3_actions"]).city("Hannover", "t0").state()
        rows.append(state.score_breakdown()[0])
    assert rows[0]["C"] == 1 and rows[1]["C"] == 5
    assert "F" in rows[0] and "F" not in rows[1]


def game_over_tie(game):
    """A finished game where players 0 and 1 tie on score; player 0 has more Actions."""
    pos = Position(game).player(0, track=10, actions=2).player(1, track=10)
    pos.finished()
    return pos.state()


def test_tiebreak_variants(bigbox):
    """The Big Box gives the tie to the fewest Actions (player 1); `most ability actions` to player
    0; `shared` shares it."""
    results = [game_over_tie(bigbox).winners()]
    for chain in ("most ability actions, shared", "shared"):
        results.append(game_over_tie(variant(f"tiebreak {chain}")).winners())
    assert [list(w) for w in results] == [[1], [0], [0, 1]]


# ---------------------------------------------------------------- pieces, setup, abilities
def test_pieces_setup_and_ability_values(bigbox):
    """Piece counts, the personal supply and ability values reach the setup position."""
    game = variant(
        "pieces traders 30\nsetup personal_traders 6\n"
        "ability actions values 3, 3, 4, 4, 5, 5 covered_by trader full_pp 4"
    )
    base = doc(bigbox.new_initial_state(0))["player_state"][0]
    house_state = game.new_initial_state(0)
    house = doc(house_state)["player_state"][0]
    assert house["supply"]["traders"] == base["supply"]["traders"] + 2
    assert house["stock"]["traders"] == base["stock"]["traders"] + 3 - 2
    assert doc(house_state)["turn"]["actions_left"] == 3
    assert doc(bigbox.new_initial_state(0))["turn"]["actions_left"] == 2


def test_piece_count_check_matches_the_engine(bigbox):
    state = bigbox.new_initial_state(1)
    data = doc(state)
    assert count_pieces(bigbox.module, data, 0, 0) == 27
    assert count_pieces(bigbox.module, data, 3, 1) == 4


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    chosen=st.lists(st.sampled_from(VARIANT_PARTS), unique=True, min_size=1, max_size=6),
    seed=st.integers(0, 10_000),
)
def test_combinations_of_variants_compile_and_play(chosen, seed):
    body = variant_body(chosen)
    game = variant(body, players=3, board="hanseatic_3p")
    source = source_of(body)
    ast.parse(source)
    play_checked(game, seed, 400)


def test_all_variants_at_once_pass_ruff_and_play_a_whole_game(tmp_path):
    """Every variant line together: the module passes ruff and random games reach their end."""
    import shutil
    import subprocess
    import sys

    body = variant_body(VARIANT_PARTS)
    source = source_of(body)
    module_file = tmp_path / "variant_game.py"
    module_file.write_text(source, encoding="utf-8")
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    done = subprocess.run(
        [ruff, "check", "--no-cache", str(module_file)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    done = subprocess.run(
        [ruff, "format", "--check", "--no-cache", str(module_file)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    game = variant(body, players=3, board="hanseatic_3p")
    for seed in range(3):
        play_checked(game, seed, 1500)
    state = game.new_initial_state(0)
    rng = random.Random(0)
    for _ in range(400_000):  # a whole game (random play without posts is long: 63k decisions)
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.is_terminal()
    assert len(state.returns()) == 3
    greedy_state = game.new_initial_state(1)
    play(greedy_state, GreedyAgent(1), max_decisions=200_000)  # the greedy agent copes too
    assert greedy_state.is_terminal()


# ---------------------------------------------------------------- more catalogue parameters
def test_marker_placement_conditions(bigbox):
    """markers placement no_marker: a drawn marker may go on a route with pieces (the Big Box needs
    an empty route, so on a full board it leaves the game)."""
    outcomes = []
    for game in both(bigbox, "markers placement no_marker"):
        state = full_board(game).to_move(0, plate=("plus_3_actions",)).state()
        act(state, "end the turn")
        outcomes.append((state.current_player(), doc(state)["markers_out_of_game"]))
        if game is not bigbox:
            act(state, "place the drawn marker on Bremen–Hannover")
            assert doc(state)["turn"]["markers_to_place"] == []
            assert state.current_player() == 1
    assert outcomes == [(1, ["plus_3_actions"]), (0, [])]


def test_displace_cost(bigbox):
    """cost { trader: 2, … }: displacing a trader costs two pieces (into the general stock)."""
    paid = []
    for game in both(bigbox, "action displace cost { trader: 2, merchant: 3 }"):
        pos = Position(game).route("Bremen", "Hannover", "t1").player(0, supply=(5, 0))
        state = pos.state()
        was = stock(state, 0)[0]
        act(state, "displace trader on Bremen–Hannover #1")
        paid.append(stock(state, 0)[0] - was)
    assert paid == [1, 2]


def test_extra_actions_count_and_full_pp(bigbox):
    """A marker's parameter (extra_actions count) and an ability's full_pp take effect."""
    game = variant(
        "bonus plus_3_actions = extra_actions(count: 5) count 2\n"
        "ability book values 2, 3, 4, 5 covered_by merchant full_pp 9"
    )
    results = []
    for g in (bigbox, game):
        state = Position(g).player(0, unused=["plus_3_actions"], book=3).state()
        before = doc(state)["turn"]["actions_left"]
        act(state, "use bonus marker plus_3_actions")
        results.append(
            (doc(state)["turn"]["actions_left"] - before, state.score_breakdown()[0]["B"])
        )
    assert results == [(3, 4), (5, 9)]


def test_score_marker_none_and_seat_setup(bigbox):
    """score_marker none leaves one more trader in the stock; per_seat_traders and
    personal_merchants change each seat's personal supply."""
    game = variant("pieces score_marker none\nsetup per_seat_traders 0 personal_merchants 0")
    base = [p for p in doc(bigbox.new_initial_state(0))["player_state"]]
    house = [p for p in doc(game.new_initial_state(0))["player_state"]]
    assert [p["supply"]["traders"] for p in base] == [5, 6, 7, 8]
    assert [p["supply"]["traders"] for p in house] == [4, 4, 4, 4]
    assert [(p["supply"]["merchants"], p["stock"]["merchants"]) for p in house] == [(0, 1)] * 4
    for b, h in zip(base, house, strict=True):
        total_b = b["supply"]["traders"] + b["stock"]["traders"]
        total_h = h["supply"]["traders"] + h["stock"]["traders"]
        assert total_h == total_b + 1
