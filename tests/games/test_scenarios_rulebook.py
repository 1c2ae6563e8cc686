"""The rule books' worked examples and rules, played through the public game API.

Each test writes a position (state JSON by hand, through scenario_support.Position), makes the
decisions the example describes by their readable names, and checks the exact outcome: prestige
points, pieces and zones, whose decision it is, what is offered and what is refused (a refused
action raises HansaError naming it and leaves the state exactly as it was).

Sources: seed 000 is the Big Box rule book (Portuguese); "p. N" is the page marker in its text
(the doubled number at the top of each page). Seed 001 is the 2009 edition (Greek), cited by
section; seed 003 the English summary; seed 004 the Italian FAQ. RULES.md is the project's digest.
Games: `bigbox-hanseatic-45p` and `original-hanseatic-45p` with 4 players (The Hanseatic League,
4-5 player side: East-West Stendal-Arnheim, special prestige Coellen via Coellen-Warburg).
"""

from __future__ import annotations

import pytest
from scenario_support import (
    Position,
    act,
    city_posts,
    doc,
    legal,
    load,
    markers,
    refuse,
    route_marker,
    route_points,
    stock,
    supply,
    track,
)

BIGBOX = "bigbox-hanseatic-45p"
ORIGINAL = "original-hanseatic-45p"


@pytest.fixture(scope="module")
def bigbox():
    return load(BIGBOX, 4)


@pytest.fixture(scope="module")
def original():
    return load(ORIGINAL, 4)


def routes_offered(state, prefix: str) -> set[str]:
    """The routes named by legal actions starting with `prefix` ('place the displaced piece on')."""
    found = set()
    for text in legal(state):
        if text.startswith(prefix):
            found.add(text[len(prefix) :].strip().rsplit(" #", 1)[0])
    return found


def turn(state) -> dict:
    return doc(state)["turn"]


# ---------------------------------------------------------------- final scoring F: the network
def test_network_of_7_cities_and_9_posts_with_keys_3_scores_27(bigbox):
    """p. 8, F: a network of 7 cities holding 9 posts, Keys developed to 3 -> 27 PP; the post in
    Kampen, not adjacent to any city of that network, does not count."""
    pos = Position(bigbox).player(0, keys=3).player(1, book=2)
    pos.city("Hamburg", "t0", "t0").city("Lübeck", "t0").city("Stade", "m0")
    pos.city("Bremen", "m1", "t0").city("Hannover", "t0", "t0").city("Minden", "t0")
    pos.city("Lüneburg", "m1", "t0").city("Kampen", "m1", "t0")
    state = pos.state()
    scores = state.score_breakdown()
    assert scores[0]["F"] == 27
    # Player 1's posts (Bremen, Lüneburg, Kampen) are not linked: best group 1 post x Keys 1.
    assert scores[1]["F"] == 1
    # Keys at 4 (fully developed) would make the same network worth 36.
    assert pos.player(0, keys=4).state().score_breakdown()[0]["F"] == 36


# ---------------------------------------------------------------- action E, step 1: control
def test_city_control_tie_goes_to_the_rightmost_post(bigbox):
    """p. 6, step 1 example: red creates Dortmund-Paderborn; red alone in Dortmund scores 1 PP;
    in Paderborn red and blue hold one post each and blue's is the rightmost, so blue scores."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t0", "t0", "t0")
    pos.city("Dortmund", "m0").city("Paderborn", "t0", "m1")
    state = pos.state()
    act(state, "create route Dortmund–Paderborn")
    assert track(state) == [1, 1, 0, 0]
    assert state.current_player() == 0  # step 3 is still red's choice


def test_control_tie_ignores_a_rightmost_post_of_a_player_not_tied(bigbox):
    """p. 6, step 1: among the players tied for most posts, the one with the rightmost post wins;
    player 3's single post on Minden's rightmost space does not decide (players 1 and 2 hold 2
    each, one of player 1's an additional post on the left)."""
    pos = Position(bigbox).route("Minden", "Münster", "t0", "t0", "t0")
    pos.city("Minden", "t1", "t2", "t2", "t3", additional=("t1",))
    state = pos.state()
    act(state, "create route Minden–Münster")
    assert track(state) == [0, 0, 1, 0]


def test_both_end_cities_controlled_by_the_creator_score_2(bigbox):
    """p. 6, step 1: a player controlling both cities scores 2 PP (1 per city)."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t0", "t0", "t0")
    pos.city("Dortmund", "m0").city("Paderborn", "t1", "m0").player(0, book=1)
    state = pos.state()
    act(state, "create route Dortmund–Paderborn")
    assert track(state) == [2, 0, 0, 0]


def test_control_points_do_not_depend_on_establishing(bigbox):
    """p. 6, step 1 details: the prestige is scored whether or not a post is established, and a
    route may be created even if both its cities are complete (p. 7)."""
    pos = Position(bigbox).route("Dortmund", "Duisburg", "t0", "t0")
    pos.city("Dortmund", "m1", "t0", "t0").city("Duisburg", "t2")
    state = pos.state()
    act(state, "create route Dortmund–Duisburg")
    assert legal(state) == ["neither post nor ability: all route pieces to the stock"]
    before = stock(state, 0)
    act(state, "neither post nor ability: all route pieces to the stock")
    assert track(state) == [1, 0, 1, 0]
    assert stock(state, 0) == (before[0] + 2, before[1])
    assert route_points(state, "Dortmund", "Duisburg") == [None, None]


# ---------------------------------------------------------------- action E, step 3a
def test_establish_goes_to_the_leftmost_vacant_space_without_skipping(bigbox):
    """p. 6, 3a example: red (Privilege pink) creates a route to Dortmund, returns 2 of its 3
    pieces to the stock and puts the trader on the orange space: skipping to the pink one is not
    allowed."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t0", "t0", "t0")
    pos.city("Dortmund", "m0").player(0, privilege=2)
    state = pos.state()
    stock_before = stock(state, 0)
    act(
        state,
        "create route Dortmund–Paderborn",
        "establish a trading post in Dortmund with a trader",
    )
    assert city_posts(state, "Dortmund") == (["m0", "t0", None], [])
    assert stock(state, 0) == (stock_before[0] + 2, stock_before[1])
    assert route_points(state, "Dortmund", "Paderborn") == [None, None, None]
    assert turn(state)["actions_left"] == 1


def test_establish_needs_the_privilege_colour_of_the_leftmost_space(bigbox):
    """p. 6, 3a: with Privilege white, Dortmund's leftmost vacant space (orange) is out of reach,
    and Paderborn's (round, black) needs a merchant and black; only 'neither' remains."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t0", "t0", "t0")
    pos.city("Dortmund", "m0").city("Paderborn", "t1")
    state = pos.state()
    act(state, "create route Dortmund–Paderborn")
    assert legal(state) == ["neither post nor ability: all route pieces to the stock"]
    refuse(bigbox, state, "establish a trading post in Dortmund with a trader")
    refuse(bigbox, state, "establish a trading post in Paderborn with a trader")


def test_round_space_takes_only_a_merchant(bigbox):
    """p. 6, 3a: 'Negociantes devem sempre ser colocados em espaços … quadrados e Mercadores, em
    espaços … redondos' (traders always go on square spaces, merchants on round ones). Münster's
    leftmost space is round white: a route of traders cannot establish there."""
    pos = Position(bigbox).route("Arnheim", "Münster", "t0", "t0", "t0")
    state = pos.state()
    act(state, "create route Arnheim–Münster")
    assert "establish a trading post in Arnheim with a trader" in legal(state)
    refuse(bigbox, state, "establish a trading post in Münster with a trader")
    refuse(bigbox, state, "establish a trading post in Münster with a merchant")

    pos = Position(bigbox).route("Arnheim", "Münster", "t0", "m0", "t0")
    state = pos.state()
    act(state, "create route Arnheim–Münster")
    offered = legal(state)
    assert "establish a trading post in Münster with a merchant" in offered
    assert "establish a trading post in Münster with a trader" not in offered
    act(state, "establish a trading post in Münster with a merchant")
    assert city_posts(state, "Münster") == (["m0", None], [])
    assert stock(state, 0)[1] == 0


@pytest.mark.parametrize("edition", [BIGBOX, ORIGINAL])
def test_square_space_takes_only_a_trader(edition):
    """p. 6, 3a (quoted above; seed 003: 'Traders (cubes) go in square spaces; merchants (discs)
    go in round spaces'; seed 001 for 2009: 'square spaces require traders, round spaces
    merchants'): after red creates Dortmund-Paderborn with a merchant on the route, Paderborn's
    leftmost space (square white) takes the trader but not the merchant; Arnheim's square too."""
    game = load(edition, 4)
    pos = Position(game).route("Dortmund", "Paderborn", "t0", "m0", "t0")
    pos.city("Dortmund", "m1")  # Dortmund's next space is orange: out of a white Privilege's reach
    state = pos.state()
    act(state, "create route Dortmund–Paderborn")
    offered = legal(state)
    assert "establish a trading post in Paderborn with a trader" in offered
    assert "establish a trading post in Paderborn with a merchant" not in offered
    refuse(game, state, "establish a trading post in Paderborn with a merchant")
    act(state, "establish a trading post in Paderborn with a trader")
    assert city_posts(state, "Paderborn") == (["t0", None], [])

    # A route of merchants only: no square space can be taken, the round one can.
    pos = Position(game).route("Arnheim", "Münster", "m0", "m0", "m0")
    state = pos.player(0, supply=(5, 0), book=2).state()
    act(state, "create route Arnheim–Münster")
    offered = legal(state)
    assert "establish a trading post in Münster with a merchant" in offered
    assert not any("Arnheim" in text for text in offered if text.startswith("establish"))
    refuse(game, state, "establish a trading post in Arnheim with a merchant")


def test_additional_trading_post_may_be_either_piece(bigbox):
    """p. 9, Additional Trading Post (RULES.md §1: 'may be either piece'): the extra post ignores
    the shape of the city's spaces, so a merchant may go left of Hannover's square spaces."""
    pos = Position(bigbox).route("Bremen", "Hannover", "m0", "m0", "m0")
    pos.city("Hannover", "t1", "t2").player(
        0, supply=(5, 0), book=2, unused=["additional_trading_post"]
    )
    state = pos.state()
    act(state, "create route Bremen–Hannover")
    assert "establish a trading post in Hannover with a merchant" not in legal(state)
    act(state, "establish an additional trading post in Hannover with a merchant")
    assert city_posts(state, "Hannover") == (["t1", "t2"], ["m0"])


def test_coin_space_scores_one_prestige_point(bigbox):
    """p. 7: the first post in Coellen (a coin space on the 4-5 player side) scores 1 PP at once;
    p. 7, 3c example: 'a post on Coellen's white space would have given 1 extra PP'."""
    pos = Position(bigbox).route("Coellen", "Warburg", "m0", "t0", "t0", "t0")
    pos.player(0, privilege=1)
    state = pos.state()
    act(state, "create route Coellen–Warburg")
    act(state, "establish a trading post in Coellen with a trader")
    assert track(state) == [1, 0, 0, 0]
    assert city_posts(state, "Coellen") == (["t0", None], [])
    # Warburg's orange space has no coin.
    state = pos.state()
    act(state, "create route Coellen–Warburg", "establish a trading post in Warburg with a trader")
    assert track(state) == [0, 0, 0, 0]


def test_completed_city_refuses_a_post(bigbox):
    """p. 7: once every space of a city is taken, no more posts go there (except with the
    Additional Trading Post marker)."""
    pos = Position(bigbox).route("Bremen", "Hannover", "t0", "t0", "t0")
    pos.city("Hannover", "t1", "t2").city("Bremen", "m3")
    state = pos.state()
    assert doc(state)["completed_cities"] == 1
    act(state, "create route Bremen–Hannover")
    assert legal(state) == ["neither post nor ability: all route pieces to the stock"]
    refuse(bigbox, state, "establish a trading post in Hannover with a trader")


def test_additional_trading_post_goes_left_in_a_completed_city(bigbox):
    """p. 9, Additional Trading Post example: red creates Bremen-Hannover; Hannover is full, so red
    uses the marker to put a route piece left of the posts there. Later ones go further left; the
    marker is flipped (used) and still scores; the city's counter does not change."""
    pos = Position(bigbox).route("Bremen", "Hannover", "t0", "t0", "t0")
    pos.city("Hannover", "t1", "t2", additional=("t3",)).city("Bremen", "m3")
    pos.player(0, unused=["additional_trading_post"])
    state = pos.state()
    stock_before = stock(state, 0)
    act(state, "create route Bremen–Hannover")
    offered = legal(state)
    assert "establish an additional trading post in Hannover with a trader" in offered
    assert "establish an additional trading post in Bremen with a trader" in offered
    act(state, "establish an additional trading post in Hannover with a trader")
    assert city_posts(state, "Hannover") == (["t1", "t2"], ["t0", "t3"])
    assert markers(state, 0) == ([], ["additional_trading_post"])
    assert stock(state, 0) == (stock_before[0] + 2, stock_before[1])
    assert doc(state)["completed_cities"] == 1
    assert state.score_breakdown()[0]["C"] == 1


def test_additional_trading_post_needs_the_leftmost_space_taken(bigbox):
    """p. 9: the only requirement is that the city's leftmost space already holds a post."""
    pos = Position(bigbox).route("Bremen", "Hannover", "t0", "t0", "t0")
    pos.city("Hannover", "t1", "t2").player(0, unused=["additional_trading_post"])
    state = pos.state()
    act(state, "create route Bremen–Hannover")
    assert "establish an additional trading post in Hannover with a trader" in legal(state)
    refuse(bigbox, state, "establish an additional trading post in Bremen with a trader")


# ---------------------------------------------------------------- action E, step 3c
def test_coellen_special_prestige_is_limited_by_privilege(bigbox):
    """p. 7, 3c example: red (Privilege orange) creates Coellen-Warburg and moves its merchant to
    the orange space (8 PP at the end); the pink (9) and black (11) spaces are out of reach. The
    alternatives were a post in Warburg's orange space or Coellen's white space; the 3 other
    pieces go to the stock."""
    pos = Position(bigbox).route("Coellen", "Warburg", "m0", "t0", "t0", "t0")
    pos.player(0, privilege=1)
    state = pos.state()
    stock_before = stock(state, 0)
    act(state, "create route Coellen–Warburg")
    offered = legal(state)
    for text in (
        "take special prestige space 1 (7 PP)",
        "take special prestige space 2 (8 PP)",
        "establish a trading post in Coellen with a trader",
        "establish a trading post in Warburg with a trader",
    ):
        assert text in offered
    refuse(bigbox, state, "take special prestige space 3 (9 PP)")
    refuse(bigbox, state, "take special prestige space 4 (11 PP)")
    act(state, "take special prestige space 2 (8 PP)")
    assert doc(state)["special_prestige"] == [None, "m0", None, None]
    assert stock(state, 0) == (stock_before[0] + 3, stock_before[1])
    assert track(state) == [0, 0, 0, 0]  # scored at the end only
    assert state.score_breakdown()[0]["D"] == 8


def test_coellen_special_prestige_allows_skipping_and_needs_a_merchant(bigbox):
    """p. 7, 3c details: any vacant space, skipping allowed, with the Privilege colour; the piece
    must be a merchant from the route."""
    pos = Position(bigbox).route("Coellen", "Warburg", "m0", "t0", "t0", "t0")
    pos.player(0, privilege=3).player(1, book=1).special_space(1, "m1")
    state = pos.state()
    act(state, "create route Coellen–Warburg")
    offered = legal(state)
    assert "take special prestige space 1 (7 PP)" in offered
    assert "take special prestige space 4 (11 PP)" in offered
    refuse(bigbox, state, "take special prestige space 2 (8 PP)")  # taken by player 1
    act(state, "take special prestige space 4 (11 PP)")
    assert doc(state)["special_prestige"] == [None, "m1", None, "m0"]
    assert [b["D"] for b in state.score_breakdown()] == [11, 8, 0, 0]
    # A special-prestige space is not a post in Coellen: no control, no network.
    assert [(b["E"], b["F"]) for b in state.score_breakdown()] == [(0, 0)] * 4

    only_traders = Position(bigbox).route("Coellen", "Warburg", "t0", "t0", "t0", "t0")
    state = only_traders.player(0, privilege=3).state()
    act(state, "create route Coellen–Warburg")
    assert not [t for t in legal(state) if t.startswith("take special prestige")]


# ---------------------------------------------------------------- action C: displacement
def test_displacing_a_trader_costs_one_and_the_owner_places_it_plus_one(bigbox):
    """p. 5, C example: red displaces blue's trader on Dortmund-Paderborn, paying 1 piece from its
    supply to the stock; blue takes 1 extra from the stock and puts both on adjacent routes (here 2
    different ones). Then it is red's decision again, one action spent."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", None, "t1", None)
    pos.player(0, supply=(5, 0))
    state = pos.state()
    p0_stock, p1_stock = stock(state, 0), stock(state, 1)
    act(state, "displace trader on Dortmund–Paderborn #2")
    assert route_points(state, "Dortmund", "Paderborn") == [None, "t0", None]
    assert supply(state, 0) == (3, 0)
    assert state.current_player() == 1
    adjacent = {
        "Dortmund–Duisburg",
        "Hildesheim–Paderborn",
        "Minden–Paderborn",
        "Paderborn–Warburg",
    }
    assert routes_offered(state, "place the displaced piece on") == adjacent
    act(state, "place the displaced piece on Dortmund–Duisburg #1")
    assert state.current_player() == 1
    assert "decline further extra pieces" in legal(state)
    act(state, "take an extra trader")
    assert routes_offered(state, "place the displaced piece on") == adjacent
    act(state, "place the displaced piece on Minden–Paderborn #2")
    assert state.current_player() == 0
    assert turn(state)["actions_left"] == 1
    assert route_points(state, "Dortmund", "Duisburg") == ["t1", None]
    assert route_points(state, "Minden", "Paderborn") == [None, "t1", None]
    assert stock(state, 1) == (p1_stock[0] - 1, p1_stock[1])
    assert stock(state, 0) == (p0_stock[0] + 1, p0_stock[1])


def test_displacing_a_merchant_costs_two_and_gives_two_extras(bigbox):
    """p. 5, C: displacing a merchant costs 2 pieces; its owner places it plus up to 2 extras."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", None, "m1", None)
    pos.player(0, supply=(5, 0))
    state = pos.state()
    p1_stock = stock(state, 1)
    act(state, "displace trader on Dortmund–Paderborn #2")
    assert supply(state, 0) == (2, 0)
    act(state, "place the displaced piece on Paderborn–Warburg #1")
    act(state, "take an extra trader", "place the displaced piece on Paderborn–Warburg #2")
    assert state.current_player() == 1
    act(state, "take an extra trader", "place the displaced piece on Paderborn–Warburg #3")
    assert state.current_player() == 0
    assert route_points(state, "Paderborn", "Warburg") == ["m1", "t1", "t1"]
    assert stock(state, 1) == (p1_stock[0] - 2, p1_stock[1])


def test_the_displaced_owner_may_decline_the_extras(bigbox):
    """p. 5, C details: the opponent may refuse to take extra pieces (not the displaced one)."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", None, "t1", None)
    state = pos.player(0, supply=(5, 0), book=2).state()
    p1_stock = stock(state, 1)
    act(state, "displace trader on Dortmund–Paderborn #2")
    assert "decline further extra pieces" not in legal(state)  # the displaced piece must go back
    act(state, "place the displaced piece on Dortmund–Duisburg #2", "decline further extra pieces")
    assert state.current_player() == 0
    assert stock(state, 1) == p1_stock


def test_displacement_needs_the_cost_in_the_personal_supply(bigbox):
    """p. 5, C: 'if you do not have enough pieces in your personal supply, you cannot take this
    action' (1 to place + 1 for a trader, + 2 for a merchant)."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t1", "m1", None)
    state = pos.player(0, supply=(1, 0)).state()
    assert not [t for t in legal(state) if t.startswith("displace")]
    refuse(bigbox, state, "displace trader on Dortmund–Paderborn #1")

    state = pos.player(0, supply=(2, 0)).state()
    assert "displace trader on Dortmund–Paderborn #1" in legal(state)
    refuse(bigbox, state, "displace trader on Dortmund–Paderborn #2")

    state = pos.player(0, supply=(3, 0)).state()
    assert "displace trader on Dortmund–Paderborn #2" in legal(state)


def test_displaced_pieces_go_two_routes_away_when_adjacent_routes_are_full(bigbox):
    """p. 5, C details: if every point of every directly adjacent route is taken, the pieces go to
    routes adjacent to those (and so on). Dortmund-Duisburg's neighbours Arnheim-Duisburg and
    Dortmund-Paderborn are full; the next ring is Arnheim-Kampen, Arnheim-Münster and the three
    other Paderborn routes."""
    pos = Position(bigbox).route("Dortmund", "Duisburg", "t1", "t2")
    pos.route("Arnheim", "Duisburg", "t2", "t2", "t2")
    pos.route("Dortmund", "Paderborn", "t2", "t3", "t2")
    state = pos.player(0, supply=(5, 0), book=2).state()
    act(state, "displace trader on Dortmund–Duisburg #1")
    ring_two = {
        "Arnheim–Kampen",
        "Arnheim–Münster",
        "Hildesheim–Paderborn",
        "Minden–Paderborn",
        "Paderborn–Warburg",
    }
    assert routes_offered(state, "place the displaced piece on") == ring_two
    act(state, "place the displaced piece on Arnheim–Kampen #1", "take an extra trader")
    assert routes_offered(state, "place the displaced piece on") == ring_two
    # A free point on an adjacent route brings the choice back to the first ring.
    pos.route("Dortmund", "Paderborn", "t2", None, "t2")
    state = pos.state()
    act(state, "displace trader on Dortmund–Duisburg #1")
    assert legal(state) == ["place the displaced piece on Dortmund–Paderborn #2"]


def test_extras_come_from_the_supply_then_the_board_when_the_stock_is_empty(bigbox):
    """p. 5, C details: with no pieces in the general stock the opponent uses its personal supply;
    with that empty too, its own pieces already on routes (moved, never into the supply)."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", None, "m1", None)
    pos.route("Hamburg", "Lübeck", "t1")
    pos.player(0, supply=(6, 0)).player(1, stock=(0, 0))
    # player 1: everything not on the board or the tracks is in the supply; keep just one trader
    pos.route("Bremen", "Hamburg", *(["t1"] * 4)).route("Emden", "Stade", "t1", "t1", "t1")
    state = pos.state()
    free_traders = supply(state, 1)[0]
    pos.route("Emden", "Osnabrück", *(["t1"] * (free_traders - 1)))
    state = pos.state()
    assert supply(state, 1) == (1, 0) and stock(state, 1) == (0, 0)
    act(state, "displace trader on Dortmund–Paderborn #2")
    act(state, "place the displaced piece on Dortmund–Duisburg #1")
    assert "take an extra trader" in legal(state)
    act(state, "take an extra trader")
    assert supply(state, 1) == (0, 0)
    act(state, "place the displaced piece on Dortmund–Duisburg #2")
    offered = legal(state)
    assert "take an extra trader" not in offered
    assert "take the extra piece from Hamburg–Lübeck #1" in offered
    assert "decline further extra pieces" in offered
    act(state, "take the extra piece from Hamburg–Lübeck #1")
    assert route_points(state, "Hamburg", "Lübeck") == [None, None, None]
    assert supply(state, 1) == (0, 0)
    act(state, "place the displaced piece on Minden–Paderborn #1")
    assert route_points(state, "Minden", "Paderborn") == ["t1", None, None]
    assert state.current_player() == 0


# ---------------------------------------------------------------- abilities
def test_developing_actions_gives_an_extra_action_this_turn(bigbox):
    """p. 7, 3b details: revealing the first 3, the first 4 or the 5 of Actions gives an extra
    action at once, this turn; the second 3 (level 1 -> 2) gives none."""
    pos = Position(bigbox).route("Göttingen", "Warburg", "t0", "t0", "t0")
    state = pos.state()
    supply_before = supply(state, 0)
    act(state, "create route Göttingen–Warburg")
    assert turn(state)["actions_left"] == 1
    act(state, "develop actions")
    assert turn(state)["actions_left"] == 2
    assert doc(state)["player_state"][0]["abilities"]["actions"] == 1
    assert supply(state, 0) == (supply_before[0] + 1, supply_before[1])

    state = pos.player(0, actions=1).to_move(0, actions_left=3).state()
    act(state, "create route Göttingen–Warburg", "develop actions")
    assert turn(state)["actions_left"] == 2  # 3 -> 3: no extra action


def test_develop_marker_on_actions_also_gives_the_extra_action(bigbox):
    """p. 7, 3b details ('even when using a +3 or +4 Actions marker') and p. 9 Develop 1 Ability:
    the marker develops any ability, the piece goes to the personal supply."""
    pos = Position(bigbox).player(0, unused=["develop_ability", "plus_3_actions"])
    state = pos.to_move(0, actions_left=1).state()
    act(state, "use bonus marker plus_3_actions")
    assert turn(state)["actions_left"] == 4
    act(state, "use bonus marker develop_ability")
    assert state.current_player() == 0
    assert set(legal(state)) == {
        f"develop {a}" for a in ("keys", "actions", "privilege", "book", "bank")
    }
    act(state, "develop actions")
    assert turn(state)["actions_left"] == 5
    assert markers(state, 0) == ([], ["develop_ability", "plus_3_actions"])


def test_develop_marker_on_book_moves_three(bigbox):
    """p. 9, Develop 1 Ability example: red develops the Book with the marker; the leftmost merchant
    goes to its supply, and its next Move moves 3 pieces instead of 2."""
    pos = Position(bigbox).player(0, unused=["develop_ability"], supply=(5, 0))
    pos.route("Hamburg", "Lübeck", "t0", "t0", "t0")
    state = pos.state()
    act(state, "use bonus marker develop_ability", "develop book")
    assert doc(state)["player_state"][0]["abilities"]["book"] == 1
    assert supply(state, 0) == (5, 1)
    act(state, "move own tradesmen")
    act(state, "pick up the piece on Hamburg–Lübeck #1", "pick up the piece on Hamburg–Lübeck #2")
    assert "pick up the piece on Hamburg–Lübeck #3" in legal(state)
    act(state, "pick up the piece on Hamburg–Lübeck #3")
    assert not [t for t in legal(state) if t.startswith("pick up")]


def test_a_fully_developed_ability_cannot_be_developed(bigbox):
    """RULES.md §3: a fully developed track cannot be developed (Göttingen offers Actions)."""
    pos = Position(bigbox).route("Göttingen", "Warburg", "t0", "t0", "t0")
    state = pos.player(0, actions=5).to_move(0, actions_left=5).state()
    act(state, "create route Göttingen–Warburg")
    refuse(bigbox, state, "develop actions")


# ---------------------------------------------------------------- bonus markers: timing
def test_a_marker_is_not_usable_in_the_action_that_took_it(bigbox):
    """p. 6 step 2 and p. 9; seed 004 (FAQ): a marker taken while creating a route may be used once
    that action is complete, even later in the same turn, never during it. The marker drawn from
    the supply waits on the silver plate until the end of the turn."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t0", "t0", "t0", marker="plus_3_actions")
    state = pos.to_move(0, actions_left=1).state()
    supply_before = len(doc(state)["marker_supply"])
    act(state, "create route Dortmund–Paderborn")
    assert turn(state)["markers_taken_this_action"] == ["plus_3_actions"]
    assert len(turn(state)["markers_to_place"]) == 1
    assert len(doc(state)["marker_supply"]) == supply_before - 1
    assert route_marker(state, "Dortmund", "Paderborn") is None
    refuse(bigbox, state, "use bonus marker plus_3_actions")
    act(state, "neither post nor ability: all route pieces to the stock")
    # No actions left, but the turn waits: the new marker may still be used.
    assert state.current_player() == 0
    assert legal(state) == ["end the turn", "use bonus marker plus_3_actions"]
    act(state, "use bonus marker plus_3_actions")
    assert turn(state)["actions_left"] == 3
    assert markers(state, 0) == ([], ["plus_3_actions"])


def test_an_additional_post_marker_taken_on_this_route_is_not_usable_on_it(bigbox):
    """p. 9: the Additional Trading Post just taken from the route being created cannot be used in
    that action's step 3 (Hannover is full)."""
    pos = Position(bigbox).route(
        "Bremen", "Hannover", "t0", "t0", "t0", marker="additional_trading_post"
    )
    pos.city("Hannover", "t1", "t2")
    state = pos.state()
    act(state, "create route Bremen–Hannover")
    refuse(bigbox, state, "establish an additional trading post in Hannover with a trader")
    act(state, "neither post nor ability: all route pieces to the stock")
    assert markers(state, 0) == (["additional_trading_post"], [])


def test_an_additional_post_marker_taken_earlier_this_turn_is_usable(bigbox):
    """p. 9 and seed 004: a marker may be used later in the same turn, once the action that took
    it is complete - here the Additional Trading Post in the turn's second Create Route."""
    pos = Position(bigbox).route(
        "Dortmund", "Paderborn", "t0", "t0", "t0", marker="additional_trading_post"
    )
    pos.route("Bremen", "Hannover", "t0", "t0", "t0").city("Hannover", "t1", "t2")
    state = pos.state()
    act(state, "create route Dortmund–Paderborn")
    act(state, "neither post nor ability: all route pieces to the stock")
    act(state, "create route Bremen–Hannover")
    act(state, "establish an additional trading post in Hannover with a trader")
    assert city_posts(state, "Hannover") == (["t1", "t2"], ["t0"])
    assert markers(state, 0) == ([], ["additional_trading_post"])


def test_plus_markers_give_actions_and_using_one_costs_none(bigbox):
    """p. 9, +3/+4 Actions: that many extra actions whatever the Actions ability; p. 6: using a
    marker is not an action."""
    pos = Position(bigbox).player(0, unused=["plus_4_actions"]).to_move(0, actions_left=2)
    state = pos.state()
    act(state, "use bonus marker plus_4_actions")
    assert turn(state)["actions_left"] == 6
    assert markers(state, 0) == ([], ["plus_4_actions"])
    refuse(bigbox, state, "use bonus marker plus_4_actions")  # once only


# ---------------------------------------------------------------- bonus markers: each type
def test_exchange_trading_posts_requires_owning_one_of_them(bigbox):
    """p. 9, Exchange Trading Posts example: red swaps with blue in Perleberg, although its
    Privilege is not black and its trader goes to a round space. One of the two must be yours."""
    pos = (
        Position(bigbox)
        .city("Perleberg", "t2", "t0", "m1")
        .player(0, unused=["exchange_trading_posts"])
    )
    pos.city("Hamburg", "t1", "t2").city("Minden", "t0", "t3", additional=())
    state = pos.state()
    act(state, "use bonus marker exchange_trading_posts")
    offered = set(legal(state))
    assert offered == {
        "exchange the posts on spaces 1 and 2 of Perleberg",
        "exchange the posts on spaces 2 and 3 of Perleberg",
        "exchange the posts on spaces 1 and 2 of Minden",
    }
    act(state, "exchange the posts on spaces 2 and 3 of Perleberg")
    assert city_posts(state, "Perleberg") == (["t2", "m1", "t0"], [])
    assert markers(state, 0) == ([], ["exchange_trading_posts"])
    assert turn(state)["actions_left"] == 2


def test_exchange_never_moves_additional_posts(bigbox):
    """p. 9, Additional Trading Post: the Exchange marker cannot be applied to additional posts."""
    pos = Position(bigbox).city("Hannover", "t1", "t2", additional=("t0",))
    state = pos.player(0, unused=["exchange_trading_posts"]).state()
    assert "use bonus marker exchange_trading_posts" not in legal(state)


def test_swap_kontor_of_2009_needs_no_ownership(original):
    """Seed 001, bonus markers ('Ανταλλαγή Kontor'): swap two pieces in adjacent houses of a city;
    the Greek text does not require owning one (RULES.md §11)."""
    pos = (
        Position(original).city("Hamburg", "t1", "t2").player(0, unused=["exchange_trading_posts"])
    )
    state = pos.state()
    act(state, "use bonus marker exchange_trading_posts")
    assert legal(state) == ["exchange the posts on spaces 1 and 2 of Hamburg"]
    act(state, "exchange the posts on spaces 1 and 2 of Hamburg")
    assert city_posts(state, "Hamburg") == (["t2", "t1", None], [])


def test_move_three_opponents_tradesmen_with_a_swap(bigbox):
    """p. 10, Move 3 Tradesmen: up to 3 opponents' pieces (of any owners) from routes to free
    points; swapping is allowed; nothing is displaced; own pieces are not moved."""
    pos = Position(bigbox).route("Hamburg", "Lübeck", "t1", "m2", None)
    pos.route("Bremen", "Hamburg", "t0", "t3", None, None)
    pos.player(0, unused=["move_tradesmen"])
    state = pos.state()
    act(state, "use bonus marker move_tradesmen")
    assert set(legal(state)) == {
        "pick up the piece on Hamburg–Lübeck #1",
        "pick up the piece on Hamburg–Lübeck #2",
        "pick up the piece on Bremen–Hamburg #2",
    }
    act(state, "pick up the piece on Hamburg–Lübeck #1", "pick up the piece on Hamburg–Lübeck #2")
    act(state, "stop picking up")
    assert "put the held piece on Bremen–Hamburg #1" not in legal(state)  # no displacing
    refuse(bigbox, state, "put the held piece on Bremen–Hamburg #2")
    act(state, "put the held piece on Hamburg–Lübeck #2", "put the held piece on Hamburg–Lübeck #1")
    assert route_points(state, "Hamburg", "Lübeck") == ["m2", "t1", None]
    assert state.current_player() == 0
    assert turn(state)["actions_left"] == 2
    assert markers(state, 0) == ([], ["move_tradesmen"])


def test_move_three_opponents_tradesmen_stops_at_three(bigbox):
    """p. 10, Move 3 Tradesmen: 'a total of up to 3' pieces; after the third only drops remain."""
    pos = Position(bigbox).route("Bremen", "Hamburg", "t1", "t2", "t3", "t1")
    pos.player(0, unused=["move_tradesmen"])
    state = pos.state()
    act(state, "use bonus marker move_tradesmen")
    act(state, "pick up the piece on Bremen–Hamburg #1", "pick up the piece on Bremen–Hamburg #2")
    act(state, "pick up the piece on Bremen–Hamburg #3")
    assert not [t for t in legal(state) if t.startswith("pick up")]
    assert all(t.startswith("put the held piece") for t in legal(state))


def test_remove_three_tradesmen_of_2009_go_to_their_owners_supplies(original):
    """Seed 001, bonus markers ('αφαίρεση τριών Εμπόρων'): take any 3 tradesmen off routes, never
    from cities, back to their owners; RULES.md §11 Decision: other players' pieces, to their
    personal supplies."""
    pos = Position(original).route("Bremen", "Hamburg", "t1", "m2", "t0", "t1")
    pos.route("Hamburg", "Lübeck", "t3").city("Hamburg", "t1")
    pos.player(0, unused=["remove_tradesmen"])
    state = pos.state()
    before = [supply(state, p) for p in range(4)]
    act(state, "use bonus marker remove_tradesmen")
    assert set(legal(state)) == {
        "remove the piece on Bremen–Hamburg #1",
        "remove the piece on Bremen–Hamburg #2",
        "remove the piece on Bremen–Hamburg #4",
        "remove the piece on Hamburg–Lübeck #1",
    }
    act(state, "remove the piece on Bremen–Hamburg #1", "remove the piece on Bremen–Hamburg #2")
    assert "stop removing" in legal(state)
    act(state, "remove the piece on Bremen–Hamburg #4")
    assert state.current_player() == 0 and not doc(state)["stack"]
    assert route_points(state, "Bremen", "Hamburg") == [None, None, "t0", None]
    assert route_points(state, "Hamburg", "Lübeck") == ["t3", None, None]
    assert supply(state, 1) == (before[1][0] + 2, before[1][1])
    assert supply(state, 2) == (before[2][0], before[2][1] + 1)
    assert city_posts(state, "Hamburg") == (["t1", None, None], [])
    assert markers(state, 0) == ([], ["remove_tradesmen"])


# ---------------------------------------------------------------- end of the game
def test_twenty_prestige_mid_turn_ends_the_game_after_the_action(bigbox):
    """p. 8: 20+ PP on the track ends the game during Create Route; the active player completes
    that action, the remaining actions are lost, no more turns."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t0", "t0", "t0")
    pos.city("Dortmund", "m0").player(0, track=19, actions=2).to_move(0, actions_left=3)
    state = pos.state()
    act(state, "create route Dortmund–Paderborn")
    assert track(state)[0] == 20
    assert not state.is_terminal() and state.current_player() == 0
    act(state, "neither post nor ability: all route pieces to the stock")
    assert state.is_terminal()
    assert state.legal_actions() == []
    assert turn(state)["actions_left"] == 2  # lost
    assert state.returns()[0] == sum(state.score_breakdown()[0].values())


def test_twenty_prestige_of_another_player_also_ends_the_game(bigbox):
    """p. 8: 'it need not be that player's turn' - the controller of an end city reaches 20."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t0", "t0", "t0")
    pos.city("Paderborn", "t1").player(1, track=19)
    state = pos.state()
    act(state, "create route Dortmund–Paderborn")
    assert track(state) == [0, 20, 0, 0]
    act(state, "neither post nor ability: all route pieces to the stock")
    assert state.is_terminal()


def test_nineteen_prestige_does_not_end_the_game(bigbox):
    """p. 8: the trigger is 20 or more; 18 + 1 leaves the turn going."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t0", "t0", "t0")
    pos.player(0, track=18).city("Dortmund", "m0")
    state = pos.state()
    act(
        state,
        "create route Dortmund–Paderborn",
        "neither post nor ability: all route pieces to the stock",
    )
    assert not state.is_terminal() and state.current_player() == 0


def test_drawing_from_an_empty_marker_supply_ends_the_game(bigbox):
    """p. 8 and p. 9: if no marker can be drawn to replace the one taken, the game ends after this
    action, and the marker just taken can never be used (it still scores)."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t0", "t0", "t0", marker="plus_4_actions")
    pos.marker_supply = []
    state = pos.to_move(0, actions_left=2).state()
    act(state, "create route Dortmund–Paderborn")
    assert not state.is_terminal()
    refuse(bigbox, state, "use bonus marker plus_4_actions")
    act(state, "neither post nor ability: all route pieces to the stock")
    assert state.is_terminal()
    assert turn(state)["markers_to_place"] == []
    assert state.score_breakdown()[0]["C"] == 1


def test_the_tenth_completed_city_ends_the_game(bigbox):
    """p. 7 and p. 8: the post that completes the 10th city ends the game after this action."""
    pos = Position(bigbox).route("Hamburg", "Lübeck", "t0", "t0", "t0")
    pos.player(0, privilege=2).player(3, book=1).to_move(0, actions_left=3)
    full = {
        "Brunswiek": ("t1",),
        "Duisburg": ("t2",),
        "Stade": ("m3",),
        "Goslar": ("t1", "t2"),
        "Hildesheim": ("t2", "t3"),
        "Halle": ("t3", "t1"),
        "Hannover": ("t1", "t3"),
        "Warburg": ("t2", "t3"),
        "Coellen": ("t3", "t2"),
    }
    for name, posts in full.items():
        pos.city(name, *posts)
    pos.city("Lübeck", "t1")
    state = pos.state()
    assert doc(state)["completed_cities"] == 9
    act(state, "create route Hamburg–Lübeck", "establish a trading post in Lübeck with a trader")
    assert doc(state)["completed_cities"] == 10
    assert state.is_terminal()

    # The 9th completed city does not end it.
    del pos.cities["Coellen"]
    state = pos.state()
    act(state, "create route Hamburg–Lübeck", "establish a trading post in Lübeck with a trader")
    assert doc(state)["completed_cities"] == 9
    assert not state.is_terminal() and turn(state)["actions_left"] == 2


# ---------------------------------------------------------------- East-West connection
def east_west_position(game) -> Position:
    """Player 0 lacks only Stendal on the chain Arnheim-Kampen-Osnabrück-Bremen-Hannover-Lüneburg-
    Perleberg-Stendal; player 1 holds that whole chain, player 2 Arnheim-Münster-Minden-Paderborn-
    Hildesheim-Goslar-Magdeburg-Stendal, player 3 Arnheim-Münster-Minden-Brunswiek-Stendal."""
    pos = Position(game).route("Perleberg", "Stendal", "t0", "t0", "t0")
    pos.player(0, privilege=2, book=1).player(1, book=3)
    pos.city("Arnheim", "t3", "m1", "t2", "t0").city("Stendal", "t3", "m1", "t2")
    pos.city("Kampen", "m1", "t0").city("Osnabrück", "t1", "t0").city("Bremen", "m1", "t0")
    pos.city("Hannover", "t1", "t0").city("Lüneburg", "m0", "t1").city("Perleberg", "t1", "t0")
    pos.city("Münster", "m3", "t2").city("Minden", "t3", "t2").city("Brunswiek", "t3")
    pos.city("Paderborn", "t2").city("Hildesheim", "t2").city("Goslar", "t2")
    pos.city("Magdeburg", "m2")
    return pos


@pytest.mark.parametrize(("before", "award"), [([], 7), ([3], 4), ([3, 1], 2), ([3, 1, 2], 0)])
def test_east_west_awards_7_4_2_in_order(bigbox, before, award):
    """p. 7, East-West Connection: a chain of own posts between Stendal and Arnheim scores 7 PP for
    the first player, 4 for the second, 2 for the third (position in the cities and control do not
    matter). Player 0 completes it by establishing in Stendal's pink space."""
    pos = east_west_position(bigbox)
    pos.east_west = list(before)
    state = pos.state()
    act(state, "create route Perleberg–Stendal")
    # Step 1: Perleberg tie -> player 0's rightmost post; Stendal 3-way tie -> player 2's.
    assert track(state) == [1, 0, 1, 0]
    act(state, "establish a trading post in Stendal with a trader")
    assert city_posts(state, "Stendal") == (["t3", "m1", "t2", "t0"], [])
    assert track(state) == [1 + award, 0, 1, 0]
    assert doc(state)["east_west"] == (before + [0] if award else before)


def test_east_west_awards_follow_the_order_of_play(bigbox):
    """p. 7: the 2nd and 3rd players to complete the connection score 4 and 2, in play order.
    Player 3 was first; player 0 then closes its chain in Stendal, player 2 a turn later in
    Magdeburg (player 1 lacks Perleberg here)."""
    pos = east_west_position(bigbox)
    pos.east_west = [3]
    pos.city("Perleberg", "t0").city("Magdeburg")
    pos.route("Magdeburg", "Stendal", "m2", "t2", "t2")
    state = pos.state()
    act(
        state, "create route Perleberg–Stendal", "establish a trading post in Stendal with a trader"
    )
    assert track(state) == [1 + 4, 0, 1, 0]
    act(state, "end the turn", "end the turn")
    assert state.current_player() == 2
    act(state, "create route Magdeburg–Stendal")
    act(state, "establish a trading post in Magdeburg with a merchant")
    assert track(state) == [5 + 1, 0, 1 + 2, 0]  # Stendal's 4-way tie: player 0's rightmost post
    assert doc(state)["east_west"] == [3, 0, 2]


def test_east_west_scores_each_player_once(bigbox):
    """p. 7 (RULES.md §4 3a): each player scores the East-West connection at most once; a later
    post on the chain (Lübeck, with its coin) gives no second award."""
    pos = east_west_position(bigbox)
    pos.city("Stendal", "t3", "m1", "t2", "t0").route("Perleberg", "Stendal", "t0", "t0", "t0")
    pos.route("Hamburg", "Lübeck", "t0", "t0", "t0").east_west = [0]
    state = pos.state()
    act(state, "create route Hamburg–Lübeck", "establish a trading post in Lübeck with a trader")
    assert track(state) == [1, 0, 0, 0]  # the coin only
    assert doc(state)["east_west"] == [0]


# ---------------------------------------------------------------- final scoring A-F
def scoring_position(game, markers_held: int = 0) -> Position:
    keys = ["additional_trading_post", "exchange_trading_posts", "develop_ability"]
    pool = [k for k in keys for _ in range(2)] + ["plus_3_actions"] * 2 + ["plus_4_actions"] * 2
    pool += ["move_tradesmen"] * 2 + ["additional_trading_post"] * 2 + ["exchange_trading_posts"]
    held = pool[:markers_held]
    pos = Position(game).player(
        0,
        track=13,
        keys=4,
        actions=5,
        privilege=3,
        book=3,
        bank=3,
        unused=held[::2],
        used=held[1::2],
    )
    pos.player(1, book=1)
    pos.special_space(0, "m0").special_space(3, "m0")
    pos.city("Hamburg", "t0").city("Lübeck", "t1", "t0").city("Bremen", "m1", "t0")
    pos.city("Hannover", "t1", "t1", additional=("t0", "t0"))
    pos.city("Osnabrück", "t1", additional=("t0", "t0"))
    pos.finished()
    return pos


def test_final_scoring_categories_a_to_f(bigbox):
    """p. 8: A track; B 4 PP per fully developed ability except Keys; C markers by the table;
    D special prestige (7 + 11); E 2 PP per controlled city, additional posts counting (Osnabrück:
    2 additional posts beat 1; Hannover: 2-2, the rightmost post decides); F posts in the largest
    network x Keys (Hamburg, Lübeck, Bremen, Hannover 2, Osnabrück 2 = 7 posts x 4)."""
    state = scoring_position(bigbox, markers_held=5).state()
    assert state.is_terminal()
    scores = state.score_breakdown()[0]
    assert scores == {"A": 13, "B": 16, "C": 6, "D": 18, "E": 8, "F": 28}
    assert state.returns()[0] == 89
    assert state.score_breakdown()[1]["E"] == 2  # Hannover
    assert state.winners() == [0]


@pytest.mark.parametrize(
    ("held", "pp"),
    [
        (0, 0),
        (1, 1),
        (2, 3),
        (3, 3),
        (4, 6),
        (5, 6),
        (6, 10),
        (7, 10),
        (8, 15),
        (9, 15),
        (10, 21),
        (11, 21),
    ],
)
def test_final_scoring_c_bonus_marker_table(bigbox, held, pp):
    """p. 8, C: 1 -> 1, 2-3 -> 3, 4-5 -> 6, 6-7 -> 10, 8-9 -> 15, 10+ -> 21; used or not."""
    state = scoring_position(bigbox, markers_held=held).state()
    assert state.score_breakdown()[0]["C"] == pp


def test_final_scoring_b_counts_keys_as_nothing(bigbox):
    """p. 8, B: 4 PP per fully developed ability, except the Keys (Chaves da Cidade)."""
    state = Position(bigbox).player(0, keys=4).player(1, bank=3, book=2).state()
    assert [s["B"] for s in state.score_breakdown()] == [0, 4, 0, 0]


# ---------------------------------------------------------------- winners
def test_big_box_tie_goes_to_fewest_developed_actions(bigbox):
    """p. 8: on a tie, the tied player who developed Actions least wins."""
    pos = Position(bigbox).player(0, track=10, actions=1).player(1, track=10, actions=2)
    pos.finished()
    state = pos.state()
    assert state.returns() == [10, 10, 0, 0]
    assert state.winners() == [0]


def test_big_box_tie_then_goes_to_most_network_points(bigbox):
    """p. 8: still tied, the most network points wins."""
    pos = Position(bigbox).player(0, track=12).player(1, track=9).city("Hamburg", "t1")
    pos.finished()
    state = pos.state()
    assert state.returns() == [12, 12, 0, 0]  # player 1: 9 + 2 (Hamburg) + 1 (network)
    assert state.winners() == [1]


def test_big_box_tie_otherwise_shared(bigbox):
    """p. 8: if still tied, the tied players share the victory."""
    pos = Position(bigbox).player(0, track=12, actions=1).player(2, track=12, actions=1)
    pos.finished()
    state = pos.state()
    assert state.winners() == [0, 2]


def test_original_edition_shares_every_tie(original):
    """Seed 001, end of the rules: 'in case of a tie there is more than one winner'."""
    pos = Position(original).player(0, track=10, actions=1).player(1, track=10, actions=2)
    pos.finished()
    state = pos.state()
    assert state.returns() == [10, 10, 0, 0]
    assert state.winners() == [0, 1]


# ---------------------------------------------------------------- the turn
def test_end_of_turn_marker_placement_restrictions(bigbox):
    """p. 6 step 2 and p. 9: at the end of the turn each drawn marker goes on a route with no
    marker, no pieces, and a vacant space in one of its two cities."""
    pos = Position(bigbox).to_move(0, actions_left=1, plate=("develop_ability",))
    pos.route("Bremen", "Osnabrück", marker="move_tradesmen")  # has a marker
    pos.route("Hamburg", "Lübeck", None, "t1", None)  # has a piece
    pos.city("Dortmund", "m1", "t2", "t3").city("Duisburg", "t1")  # both cities complete
    state = pos.state()
    act(state, "end the turn")
    assert state.current_player() == 0
    offered = routes_offered(state, "place the drawn marker on")
    assert "Bremen–Osnabrück" not in offered
    assert "Hamburg–Lübeck" not in offered
    assert "Dortmund–Duisburg" not in offered
    assert {"Arnheim–Duisburg", "Dortmund–Paderborn", "Coellen–Warburg"} <= offered
    refuse(bigbox, state, "place the drawn marker on Dortmund–Duisburg")
    act(state, "place the drawn marker on Arnheim–Duisburg")
    assert route_marker(state, "Arnheim", "Duisburg") == "develop_ability"
    assert state.current_player() == 1
    assert turn(state)["actions_left"] == 2
    assert turn(state)["markers_to_place"] == []


def test_ending_the_turn_early(bigbox):
    """Seed 001 (actions): 'players need not perform all the actions available'."""
    pos = Position(bigbox).player(1, actions=2)
    state = pos.state()
    assert "end the turn" in legal(state)
    act(state, "place trader on Hamburg–Lübeck #1", "end the turn")
    assert state.current_player() == 1
    assert turn(state)["actions_left"] == 3
    assert route_points(state, "Hamburg", "Lübeck") == ["t0", None, None]


def test_income_with_bank_all_takes_the_whole_stock(bigbox):
    """p. 5, A: with Bank at 'all' (C) every piece in the general stock may be hired; fewer if you
    wish; with Bank 3 at most 3; fewer when the stock has fewer."""
    pos = Position(bigbox).player(0, bank=3, book=1, stock=(12, 2))
    state = pos.state()
    assert "income: 12 traders, 2 merchants" in legal(state)
    assert "income: 5 traders, 1 merchants" in legal(state)
    act(state, "income: 12 traders, 2 merchants")
    assert stock(state, 0) == (0, 0)
    assert supply(state, 0) == (14, 2)
    assert not [t for t in legal(state) if t.startswith("income")]  # Decision: no empty income

    state = Position(bigbox).player(0, book=1, stock=(9, 2)).state()
    offered = [t for t in legal(state) if t.startswith("income")]
    assert "income: 3 traders, 0 merchants" in offered
    assert "income: 1 traders, 2 merchants" in offered
    assert "income: 4 traders, 0 merchants" not in offered
    refuse(bigbox, state, "income: 3 traders, 1 merchants")

    state = Position(bigbox).player(0, stock=(2, 0)).state()
    assert [t for t in legal(state) if t.startswith("income")] == [
        "income: 1 traders, 0 merchants",
        "income: 2 traders, 0 merchants",
    ]


def test_move_swaps_a_trader_and_a_merchant(bigbox):
    """p. 5, D details: with 2 moves a trader and a merchant may swap places; opponents' pieces
    cannot be displaced; the Book (2) limits the pieces moved."""
    pos = Position(bigbox).route("Hamburg", "Lübeck", "t0", "t1", None)
    pos.route("Bremen", "Hamburg", "m0", "t0", None, None)
    state = pos.state()
    act(state, "move own tradesmen")
    assert set(legal(state)) == {
        "pick up the piece on Hamburg–Lübeck #1",
        "pick up the piece on Bremen–Hamburg #1",
        "pick up the piece on Bremen–Hamburg #2",
    }
    act(state, "pick up the piece on Hamburg–Lübeck #1", "pick up the piece on Bremen–Hamburg #1")
    assert all(t.startswith("put the held piece") for t in legal(state))  # Book 2 reached
    refuse(bigbox, state, "put the held piece on Hamburg–Lübeck #2")
    act(state, "put the held piece on Bremen–Hamburg #1", "put the held piece on Hamburg–Lübeck #1")
    assert route_points(state, "Hamburg", "Lübeck") == ["m0", "t1", None]
    assert route_points(state, "Bremen", "Hamburg") == ["t0", "t0", None, None]
    assert state.current_player() == 0 and turn(state)["actions_left"] == 1


# ---------------------------------------------------------------- more of the same rules
def test_setup_supplies_stock_and_tavern_markers(bigbox, original):
    """p. 4: seat i (clockwise from the start player) has 4 + i traders and the merchant in its
    supply, 7 - i traders in the stock; the 3 gold start markers lie on the 3 taverns, the other 12
    face down. Seed 001 (setup): the taverns get one Remove 3, one Swap Kontor, one Additional."""
    state = bigbox.new_initial_state(3)
    assert [supply(state, p) for p in range(4)] == [(5, 1), (6, 1), (7, 1), (8, 1)]
    assert [stock(state, p) for p in range(4)] == [(6, 0), (5, 0), (4, 0), (3, 0)]
    taverns = [("Bremen", "Osnabrück"), ("Goslar", "Hildesheim"), ("Lüneburg", "Perleberg")]
    on_taverns = sorted(route_marker(state, a, b) for a, b in taverns)
    assert on_taverns == ["additional_trading_post", "exchange_trading_posts", "move_tradesmen"]
    assert len(doc(state)["marker_supply"]) == 12
    assert state.current_player() == 0 and turn(state)["actions_left"] == 2

    three = load("original-hanseatic-23p", 3).new_initial_state(5)
    assert [supply(three, p) for p in range(3)] == [(5, 1), (6, 1), (7, 1)]
    assert [stock(three, p) for p in range(3)] == [(6, 0), (5, 0), (4, 0)]

    state = original.new_initial_state(3)
    on_taverns = sorted(route_marker(state, a, b) for a, b in taverns)
    assert on_taverns == ["additional_trading_post", "exchange_trading_posts", "remove_tradesmen"]
    assert len(doc(state)["marker_supply"]) == 13


def test_a_tavern_route_played_from_the_start(bigbox):
    """pp. 4-6 played out: player 0 fills the Bremen-Osnabrück tavern route over two turns, creates
    it, takes the start marker, establishes in Osnabrück; the marker drawn at creation is placed at
    the end of the turn, so 3 markers lie on the board when the next turn begins."""
    state = bigbox.new_initial_state(11)
    tavern_marker = route_marker(state, "Bremen", "Osnabrück")
    drawn = doc(state)["marker_supply"][0]
    act(state, "place trader on Bremen–Osnabrück #1", "place trader on Bremen–Osnabrück #2")
    assert state.current_player() == 1 and turn(state)["actions_left"] == 2
    for _ in range(3):
        act(state, "end the turn")
    assert state.current_player() == 0
    act(state, "place trader on Bremen–Osnabrück #3", "create route Bremen–Osnabrück")
    assert track(state) == [0, 0, 0, 0]
    assert turn(state)["markers_to_place"] == [drawn]
    stock_before = stock(state, 0)
    act(state, "establish a trading post in Osnabrück with a trader")
    assert city_posts(state, "Osnabrück") == (["t0", None, None], [])
    assert stock(state, 0) == (stock_before[0] + 2, stock_before[1])
    assert markers(state, 0) == ([tavern_marker], [])
    # No actions left and no usable marker: the turn ends with placing the drawn marker.
    assert state.current_player() == 0
    assert all(t.startswith("place the drawn marker") for t in legal(state))
    act(state, "place the drawn marker on Bremen–Osnabrück")
    assert state.current_player() == 1
    assert sum(1 for r in doc(state)["routes"] if r["marker"]) == 3


def test_create_route_needs_every_point_held_by_the_player(bigbox):
    """p. 5, E: only if all the route's connection points hold your pieces; p. 5, C: you displace
    opponents only."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t0", "t1", "t0")
    pos.route("Hamburg", "Lübeck", "t0", "t0", None)
    state = pos.state()
    refuse(bigbox, state, "create route Dortmund–Paderborn")
    refuse(bigbox, state, "create route Hamburg–Lübeck")
    refuse(bigbox, state, "displace trader on Dortmund–Paderborn #1")
    assert "displace trader on Dortmund–Paderborn #2" in legal(state)


def test_develop_offers_only_the_abilities_of_the_end_cities(bigbox):
    """p. 7, 3b: the ability pictured on one of the two end cities (Lübeck: Bank; Hamburg: none)."""
    pos = Position(bigbox).route("Hamburg", "Lübeck", "t0", "t0", "t0")
    state = pos.state()
    act(state, "create route Hamburg–Lübeck")
    developing = [t for t in legal(state) if t.startswith("develop")]
    assert developing == ["develop bank"]
    act(state, "develop bank")
    assert doc(state)["player_state"][0]["abilities"]["bank"] == 1
    assert "income: 5 traders, 0 merchants" in legal(state)


def test_coins_of_the_three_player_side(bigbox):
    """p. 7: on the 3-player side six cities carry a coin, among them Stade and Warburg."""
    game = load("bigbox-hanseatic-3p", 3)
    pos = Position(game).route("Hamburg", "Stade", "m0", "t0", "t0")
    state = pos.state()
    act(state, "create route Hamburg–Stade", "establish a trading post in Stade with a merchant")
    assert track(state) == [1, 0, 0]
    pos = Position(game).route("Coellen", "Warburg", "t0", "t0", "t0", "t0").player(0, privilege=1)
    state = pos.state()
    act(state, "create route Coellen–Warburg", "establish a trading post in Warburg with a trader")
    assert track(state) == [1, 0, 0]


def test_an_empty_marker_supply_matters_only_when_a_marker_is_taken(bigbox):
    """p. 8: the game ends when a replacement must be drawn from an empty supply - creating a route
    without a marker draws nothing."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t0", "t0", "t0")
    pos.marker_supply = []
    state = pos.state()
    act(state, "create route Dortmund–Paderborn")
    act(state, "neither post nor ability: all route pieces to the stock")
    assert not state.is_terminal() and state.current_player() == 0


def test_two_markers_taken_in_a_turn_are_both_placed_at_its_end(bigbox):
    """p. 9: at the end of the turn, one new marker for each marker taken this turn, placed after
    any +3/+4 markers were played; each on a route without a marker."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", "t0", "t0", "t0", marker="plus_3_actions")
    pos.route("Hamburg", "Lübeck", "t0", "t0", "t0", marker="develop_ability")
    pos.marker_supply = ["move_tradesmen", "plus_4_actions"]
    state = pos.state()
    act(
        state,
        "create route Dortmund–Paderborn",
        "neither post nor ability: all route pieces to the stock",
    )
    act(
        state,
        "create route Hamburg–Lübeck",
        "neither post nor ability: all route pieces to the stock",
    )
    assert turn(state)["markers_to_place"] == ["move_tradesmen", "plus_4_actions"]
    assert state.current_player() == 0 and turn(state)["actions_left"] == 0
    act(state, "use bonus marker plus_3_actions")
    assert turn(state)["actions_left"] == 3
    act(state, "end the turn", "place the drawn marker on Dortmund–Paderborn")
    assert state.current_player() == 0
    refuse(bigbox, state, "place the drawn marker on Dortmund–Paderborn")
    act(state, "place the drawn marker on Hamburg–Lübeck")
    assert route_marker(state, "Dortmund", "Paderborn") == "move_tradesmen"
    assert route_marker(state, "Hamburg", "Lübeck") == "plus_4_actions"
    assert state.current_player() == 1
    assert doc(state)["marker_supply"] == []


def test_a_marker_without_a_legal_route_is_set_aside(bigbox):
    """RULES.md §4 Decision (unplaceable_marker = out_of_game): when no route may take a drawn
    marker, it leaves the game."""
    pos = Position(bigbox).to_move(0, actions_left=2, plate=("develop_ability",))
    initial = doc(bigbox.new_initial_state(0))
    for i, entry in enumerate(initial["routes"]):
        a, b = entry["cities"]
        pos.route(a, b, f"t{i % 4}")
    state = pos.state()
    act(state, "end the turn")
    assert doc(state)["markers_out_of_game"] == ["develop_ability"]
    assert state.current_player() == 1


def test_additional_post_completes_the_east_west_connection(bigbox):
    """p. 9: an additional post counts as any other post, so it can close the East-West chain
    (Stendal full, player 0 lacks only Stendal)."""
    pos = east_west_position(bigbox).player(0, unused=["additional_trading_post"])
    pos.city("Stendal", "t3", "m1", "t2", "t1")
    state = pos.state()
    act(state, "create route Perleberg–Stendal")
    act(state, "establish an additional trading post in Stendal with a trader")
    assert city_posts(state, "Stendal") == (["t3", "m1", "t2", "t1"], ["t0"])
    # Step 1: Perleberg tie -> player 0's rightmost post; Stendal: player 1 holds two posts.
    assert track(state) == [1 + 7, 1, 0, 0]
    assert doc(state)["east_west"] == [0]


def test_east_west_award_reaching_twenty_ends_the_game(bigbox):
    """p. 7: if the East-West award brings someone to 20+ PP the game ends after this action."""
    pos = east_west_position(bigbox).player(0, track=12)
    state = pos.state()
    act(
        state, "create route Perleberg–Stendal", "establish a trading post in Stendal with a trader"
    )
    assert track(state)[0] == 20
    assert state.is_terminal()


def test_extras_come_from_the_stock_while_it_holds_any_piece(bigbox):
    """p. 5, C details: 'If your opponent has no more tradesmen (comerciantes: traders or merchants)
    in the general stock, he may use those of his personal supply'; seed 001 likewise ('if he does
    not have enough in the general stock, he may take from his personal supply'); RULES.md §4: 'If
    the general stock is empty, take from the personal supply'. With a merchant in the stock, the
    extra piece comes from the stock (a merchant) or is declined; a trader from the supply is not an
    option while the stock still holds a piece."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", None, "t1", None)
    pos.player(0, supply=(5, 0)).player(1, stock=(0, 1))
    state = pos.state()
    assert supply(state, 1) == (10, 0)
    act(state, "displace trader on Dortmund–Paderborn #2")
    act(state, "place the displaced piece on Dortmund–Duisburg #1")
    assert set(legal(state)) == {"take an extra merchant", "decline further extra pieces"}


def test_the_displacer_chooses_which_pieces_pay_the_cost(bigbox):
    """p. 5, C: the cost is paid with pieces (traders or merchants) from the personal supply to the
    general stock; with both kinds at hand the displacer chooses."""
    pos = Position(bigbox).route("Dortmund", "Paderborn", None, "m1", None)
    pos.player(0, supply=(3, 1), book=1)
    state = pos.state()
    stock_before = stock(state, 0)
    act(state, "displace trader on Dortmund–Paderborn #2")
    assert state.current_player() == 0
    assert legal(state) == [
        "pay the displacement cost with 0 merchants",
        "pay the displacement cost with 1 merchants",
    ]
    act(state, "pay the displacement cost with 1 merchants")
    assert supply(state, 0) == (1, 0)
    assert stock(state, 0) == (stock_before[0] + 1, stock_before[1] + 1)
    assert state.current_player() == 1


def test_a_displaced_piece_with_no_free_point_anywhere_goes_to_the_supply(bigbox):
    """RULES.md §4 Decision (displaced_piece_without_point = personal_supply): every connection
    point of the board is taken, so the displaced trader goes to its owner's personal supply and no
    extra piece can be placed."""
    initial = doc(bigbox.new_initial_state(0))
    pos = Position(bigbox)
    for p in range(4):
        pos.player(p, keys=4, actions=5, privilege=3, book=3, bank=3)
    i = 0
    for entry in initial["routes"]:
        pieces = []
        for _ in entry["points"]:
            pieces.append(("m" if i < 8 else "t") + str(i % 4))
            i += 1
        pos.route(*entry["cities"], *pieces)
    state = pos.to_move(0, actions_left=2).state()
    assert route_points(state, "Dortmund", "Paderborn")[1] == "t1"
    before = supply(state, 1)
    act(state, "displace trader on Dortmund–Paderborn #2")  # paid with p0's only merchant
    assert supply(state, 0) == (0, 0)
    assert supply(state, 1) == (before[0] + 1, before[1])
    assert state.current_player() == 0 and turn(state)["actions_left"] == 1
    assert route_points(state, "Dortmund", "Paderborn")[1] == "t0"
