"""Rules in words: each hook, effect and kind of quantity compiled into a house rule and played in a
position where it changes the outcome (the Big Box gives something else)."""

from __future__ import annotations

import pytest
from scenario_support import Position, act, doc, legal, stock, supply, track
from variant_support import variant

import hansa


@pytest.fixture(scope="module")
def bigbox():
    return hansa.load_game("bigbox-hanseatic-45p", players=4)


def test_turn_start_extra_action(bigbox):
    """`at turn start: gain 1 action if seat = 1`: the first seat has 3 actions, the rest 2."""
    house = variant("at turn start: gain 1 action if seat = 1")
    assert doc(bigbox.new_initial_state(1))["turn"]["actions_left"] == 2
    state = house.new_initial_state(1)
    assert doc(state)["turn"]["actions_left"] == 3
    act(state, "end the turn")
    assert doc(state)["turn"] == doc(bigbox.new_initial_state(1))["turn"] | {"player": 1}


def test_after_create_route_takes_pieces_and_counts_routes(bigbox):
    """`after create_route: take 2 traders from the stock, gain 1 PP per route where pieces here
    > 0`: after creating Bremen–Hannover (whose pieces go to the stock first), player 0 moves 2
    traders to the supply and scores 1 PP for the one other route with its pieces."""
    body = (
        "after create_route: take 2 traders from the stock,"
        " gain 1 PP per route where pieces here > 0"
    )
    results = []
    for game in (bigbox, variant(body)):
        state = (
            Position(game)
            .route("Bremen", "Hannover", "t0", "t0", "t0")
            .route("Hamburg", "Lübeck", "t0")
            .state()
        )
        act(
            state,
            "create route Bremen–Hannover",
            "neither post nor ability: all route pieces to the stock",
        )
        results.append((track(state)[0], supply(state, 0)[0], stock(state, 0)[0]))
    base, house = results
    assert house == (base[0] + 1, base[1] + 2, base[2] - 2)


def test_chosen_develop_is_a_decision(bigbox):
    """`after create_route: develop an ability`: the creator then chooses which ability to develop
    (a decision with one action per ability that can still be developed)."""
    house = variant("after create_route: develop an ability")
    state = Position(house).route("Bremen", "Hannover", "t0", "t0", "t0").player(0, book=3).state()
    act(
        state,
        "create route Bremen–Hannover",
        "neither post nor ability: all route pieces to the stock",
    )
    assert legal(state) == ["develop keys", "develop actions", "develop privilege", "develop bank"]
    act(state, "develop bank")
    assert doc(state)["player_state"][0]["abilities"]["bank"] == 1


def test_receive_a_marker_at_turn_start(bigbox):
    """`at turn start: receive marker plus_3_actions if seat = 2`: the second seat's turn starts
    with a +3 actions marker from the marker supply, usable at once."""
    state = variant("at turn start: receive marker plus_3_actions if seat = 2").new_initial_state(2)
    before = doc(state)["marker_supply"]
    act(state, "end the turn")
    assert doc(state)["player_state"][1]["markers"]["unused"] == ["plus_3_actions"]
    assert "use bonus marker plus_3_actions" in legal(state)
    after = doc(state)["marker_supply"]
    assert sorted(after + ["plus_3_actions"]) == sorted(before)


def test_control_goes_to_most_of_a_quantity(bigbox):
    """`control goes to most track PP`: Hannover (player 1's post, then player 0's) goes to the
    player with more track PP among those with posts there, not to the rightmost post."""
    owners = []
    for game in (bigbox, variant("control goes to most track PP")):
        state = (
            Position(game)
            .route("Bremen", "Hannover", "t2", "t2", "t2")
            .city("Hannover", "t1", "t0")
            .player(1, track=5)
            .to_move(2)
            .state()
        )
        act(state, "create route Bremen–Hannover")
        owners.append(track(state)[:2])
    assert owners == [[1, 5], [0, 6]]


def test_control_rule_by_name(bigbox, tmp_path):
    """`control goes to the rightmost post` is the Big Box rule (a 1-1 tie in Hannover goes to
    player 0's rightmost post); an unknown rule is refused at its words."""
    outcomes = []
    for game in (bigbox, variant("control goes to the rightmost post")):
        state = (
            Position(game)
            .route("Bremen", "Hannover", "t2", "t2", "t2")
            .city("Hannover", "t1", "t0")
            .to_move(2)
            .state()
        )
        act(state, "create route Bremen–Hannover")
        outcomes.append(track(state))
    assert outcomes == [[1, 0, 0, 0], [1, 0, 0, 0]]
    from variant_support import problems

    assert problems("control goes to the leftmost post", tmp_path)[0].startswith(
        "2:21: unknown control rule 'leftmost post'"
    )


def test_control_goes_to_nobody_on_a_tie(bigbox):
    """`control goes to nobody on a tie`: the same as `control_tie nobody`."""
    state = (
        Position(variant("control goes to nobody on a tie"))
        .route("Bremen", "Hannover", "t2", "t2", "t2")
        .city("Hannover", "t1", "t0")
        .to_move(2)
        .state()
    )
    act(state, "create route Bremen–Hannover")
    assert track(state) == [0, 0, 0, 0]


@pytest.mark.parametrize(
    ("amount", "expected"),
    [
        ("1 PP per player where track PP > your track PP", [3, 1, 0, 2]),
        ("1 PP per opponent", [3, 3, 3, 3]),
        ("1 PP * max track PP over opponents", [9, 9, 4, 9]),
        ("1 PP * min track PP over players", [0, 0, 0, 0]),
        ("1 PP * sum coins over cities where your posts here > 0", [1, 0, 0, 1]),
        ("1 PP per route where tavern", [3, 3, 3, 3]),
        ("1 PP * (count routes where ship points = 0) / 10", [3, 3, 3, 3]),
        ("1 PP per city where controller is you and not green", [2, 0, 0, 1]),
        ("2 PP * rank - 1 PP", [7, 3, 1, 5]),
        ("1 PP * seat + 1 PP * players", [5, 6, 7, 8]),
        ("1 PP * level of book + 1 PP * value of book", [2, 4, 2, 2]),
        ("1 PP * largest network + 1 PP * second largest network", [2, 0, 0, 1]),
    ],
)
def test_quantities(amount, expected):
    """Scoring category G written with each kind of quantity, read in one position."""
    game = variant(f'score H "test": {amount}')
    state = (
        Position(game)
        .city("Groningen", "t0")  # a coin city
        .city("Coellen", "t3")  # a coin city
        .city("Hannover", "t0")
        .route("Bremen", "Hannover", "m1")
        .player(1, track=4, book=1)
        .player(2, track=9)
        .player(3, track=2)
        .state()
    )
    assert [b["H"] for b in state.score_breakdown()] == expected


def test_a_hook_reads_a_scoring_category():
    """`at turn start: gain 1 PP * score of E`: player 1 controls Hannover (category E: 2 PP) and
    gains those 2 PP on the track when its turn starts."""
    state = (
        Position(variant("at turn start: gain 1 PP * score of E")).city("Hannover", "t1").state()
    )
    act(state, "end the turn")
    assert track(state) == [0, 2, 0, 0]


def test_a_rule_sets_a_players_parameters(bigbox):
    """`at setup: your control PP becomes 3 if you are the last seat, your full track PP
    becomes 7 if you are the first seat` (Emperor's-Favour style): the last seat's controlled
    cities give 3 PP when a route next to them is created; the first seat's full abilities
    score 7 each in category B (Keys, which scores nothing when full, still nothing). Both are
    in the state JSON and survive a round trip."""
    house = variant(
        "at setup: your control PP becomes 3 if you are the last seat,"
        " your full track PP becomes 7 if you are the first seat"
    )
    results = []
    for game in (bigbox, house):
        state = (
            Position(game)
            .route("Bremen", "Hannover", "t2", "t2", "t2")
            .city("Hannover", "t3")
            .city("Bremen", "t1")
            .player(0, actions=5, keys=4)
            .player(1, actions=5)
            .to_move(2)
            .state()
        )
        if game is house:
            data = doc(state)
            data["player_state"][3]["parameters"] = {"control_pp": 3, "full_track_pp": -1}
            data["player_state"][0]["parameters"] = {"control_pp": 1, "full_track_pp": 7}
            import json

            state = game.state_from_json(json.dumps(data))
            assert doc(state)["player_state"][3]["parameters"]["control_pp"] == 3
        act(state, "create route Bremen–Hannover")
        results.append((track(state), [b["B"] for b in state.score_breakdown()]))
    assert results[0] == ([0, 1, 0, 1], [4, 4, 0, 0])  # keys: full_pp 0
    # full track PP 7 replaces each scoring ability's 4; Keys (full_pp 0) still scores nothing
    # (Emperor's Favour, Big Box rule book p. 11: tests/games/test_favour.py)
    assert results[1] == ([0, 1, 0, 3], [7, 4, 0, 0])
    initial = doc(house.new_initial_state(4))["player_state"]
    assert [(p["parameters"]["control_pp"], p["parameters"]["full_track_pp"]) for p in initial] == [
        (1, 7),
        (1, -1),
        (1, -1),
        (3, -1),
    ]


def test_turn_number(bigbox):
    """`at turn start: gain 1 PP if turn number <= 2`: the first two turns score, the third does
    not; the number is kept in the state JSON (`turn.number`) and survives a round trip."""
    game = variant("at turn start: gain 1 PP if turn number <= 2")
    state = game.new_initial_state(6)
    assert doc(state)["turn"]["number"] == 1
    assert "number" not in doc(bigbox.new_initial_state(6))["turn"]
    act(state, "end the turn")
    act(state, "end the turn")
    assert track(state) == [1, 1, 0, 0]
    assert doc(state)["turn"]["number"] == 3
    again = game.state_from_json(state.to_json())
    act(again, "end the turn")
    assert doc(again)["turn"]["number"] == 4 and track(again) == [1, 1, 0, 0]


def test_a_rule_sets_city_pp_actions_per_turn_and_trader_compensation(bigbox):
    """Emperor's Favour tiles (Big Box p. 11) as parameters of one player: `your city PP becomes
    4` (4 PP instead of 2 per controlled city), `your extra actions becomes 1` (one more
    action every turn, beyond 5 too), `your trader compensation becomes 2` (2 extra pieces instead
    of 1 when a trader of yours is displaced)."""
    house = variant(
        "at setup: your city PP becomes 4 if you are the first seat,"
        " your extra actions becomes 1 if you are the first seat,"
        " your trader compensation becomes 2 if you are the first seat"
    )
    params = [p["parameters"] for p in doc(house.new_initial_state(0))["player_state"]]
    assert [
        (p["city_pp"], p["extra_actions_per_turn"], p["trader_compensation"]) for p in params
    ] == [
        (4, 1, 2),
        (2, 0, 1),
        (2, 0, 1),
        (2, 0, 1),
    ]
    assert house.new_initial_state(0).to_dict()["turn"]["actions_left"] == 3  # 2 + 1

    def favoured(position: Position):
        """The position with player 0's parameters as the rule set them at setup."""
        data = position.to_dict()
        if position.game is house:
            data["player_state"][0]["parameters"] = params[0]
        return position.game.state_from_json(data)

    for game, city_pp in ((bigbox, 2), (house, 4)):
        pos = Position(game).city("Hamburg", "t0").city("Bremen", "t0").city("Kampen", "t1")
        assert [b["E"] for b in favoured(pos).score_breakdown()][:2] == [2 * city_pp, 2]
    full = favoured(Position(house).player(0, actions=5).to_move(0))
    act(full, "end the turn")
    later = full
    while later.current_player() != 0:
        act(later, "end the turn")
    assert later.to_dict()["turn"]["actions_left"] == 6  # beyond 5
    for game, extras in ((bigbox, 1), (house, 2)):
        state = favoured(Position(game).route("Hamburg", "Lübeck", "t0", None, None).to_move(1))
        act(state, "displace trader on Hamburg–Lübeck #1")
        top = doc(state)["stack"][0]
        assert top["frame"] == "displaced" and top["extras_left"] == extras
        state2 = favoured(Position(game).route("Hamburg", "Lübeck", "t2", None, None).to_move(1))
        act(state2, "displace trader on Hamburg–Lübeck #1")
        assert doc(state2)["stack"][0]["extras_left"] == 1  # only player 0's parameter changed
