"""Rules in words: the six house rules of spec/house/ written in the expression language build into
generated/ and change the outcome of a position compared with the Big Box they extend."""

from __future__ import annotations

import pytest
from scenario_support import Position, act, doc, legal, stock, track

import hansa


def game(name: str, players: int = 4):
    return hansa.load_game(name, players=players)


@pytest.fixture(scope="module")
def bigbox():
    return game("bigbox-hanseatic-45p")


def test_guild_charter_gives_a_pp_per_controlled_city(bigbox):
    """`bonus "Guild charter" count 2 when used: gain 1 PP per city you control`: two charters
    lie in the supply; using one gives its owner 1 PP for each city they control."""
    house = game("guild-charter-hanseatic-45p")
    supply_markers = doc(house.new_initial_state(3))["marker_supply"]
    assert supply_markers.count("guild_charter") == 2
    assert "guild_charter" not in doc(bigbox.new_initial_state(3))["marker_supply"]
    state = (
        Position(house)
        .city("Hannover", "t0")  # controlled by player 0
        .city("Bremen", "t1", "t0")  # tie: the rightmost post (player 0) controls it
        .city("Minden", "t2")  # player 2's
        .player(0, unused=["guild_charter"], track=3)
        .state()
    )
    assert "use bonus marker Guild charter" in legal(state)
    act(state, "use bonus marker Guild charter")
    assert track(state) == [5, 0, 0, 0]
    assert doc(state)["player_state"][0]["markers"]["used"] == ["guild_charter"]
    # It still counts as a collected marker in category C, like every marker.
    assert state.score_breakdown()[0]["C"] == 1


def test_harbour_master_scores_coin_cities_with_a_post(bigbox):
    """`replace score G "Harbour master": 2 PP per city where coins > 0 and your posts here > 0`:
    player 1 has posts in two coin cities (Groningen, Halle) and one without coins (Hannover);
    the new category gives 4 PP and turns a tie into player 1's win."""
    outcomes = []
    for g in (bigbox, game("harbour-master-hanseatic-45p")):
        state = (
            Position(g)
            .city("Groningen", "t1")
            .city("Halle", "t1")
            .city("Hannover", "t0", "t0")
            .city("Minden", "t0")
            .player(1, track=2)
            .state()
        )
        breakdown = state.score_breakdown()
        outcomes.append((breakdown[1].get("G"), breakdown[0].get("G"), state.winners()))
    assert outcomes[0] == (None, None, [0])
    assert outcomes[1] == (4, 0, [1])


def test_game_ends_at_three_fully_developed_abilities(bigbox):
    """`end when some player has at least 3 fully developed abilities`: developing Keys fully
    (Actions and Privilege are full already) ends the game after that action."""
    ended = []
    for g in (bigbox, game("three-full-abilities-hanseatic-45p")):
        state = (
            Position(g)
            .route("Halle", "Quedlinburg", "t0", "t0", "t0", "t0")
            .player(0, actions=5, privilege=3, keys=3)
            .state()
        )
        act(state, "create route Halle–Quedlinburg", "develop keys")
        ended.append(state.is_terminal())
    assert ended == [False, True]


def test_last_seat_starts_with_the_book_developed(bigbox):
    """`at setup: develop book if you are the last seat`: the last seat's Book is at level 1 and
    its merchant is in the supply; nobody else's changes."""
    for players in (4, 5):
        base = doc(game("bigbox-hanseatic-45p", players).new_initial_state(9))
        house = doc(game("last-seat-book-hanseatic-45p", players).new_initial_state(9))
        books = [ps["abilities"]["book"] for ps in house["player_state"]]
        assert books == [0] * (players - 1) + [1]
        assert [ps["abilities"]["book"] for ps in base["player_state"]] == [0] * players
        last_base = base["player_state"][-1]["supply"]["merchants"]
        assert house["player_state"][-1]["supply"]["merchants"] == last_base + 1
        assert house["player_state"][:-1] == base["player_state"][:-1]


def test_no_displacing_a_player_behind_you(bigbox):
    """`forbid displace when track PP of the victim < your track PP`: player 0 (5 PP) may not
    displace player 1 (2 PP) but may still displace player 2 (8 PP)."""
    legal_by_game = []
    for g in (bigbox, game("no-bullying-hanseatic-45p")):
        state = (
            Position(g)
            .route("Bremen", "Hannover", "t1")
            .route("Hamburg", "Lübeck", "t2")
            .player(0, track=5)
            .player(1, track=2)
            .player(2, track=8)
            .state()
        )
        displace = [text for text in legal(state) if text.startswith("displace")]
        legal_by_game.append(
            (
                any("Bremen" in text for text in displace),
                any("Hamburg" in text for text in displace),
            )
        )
    assert legal_by_game == [(True, True), (False, True)]


def test_stock_tiebreak_gives_a_tie_to_the_smaller_stock(bigbox):
    """`tiebreak …, fewest pieces in stock, shared`: four players with nothing scored tie in
    every earlier step; the one with the fewest pieces in the general stock wins."""
    results = []
    for g in (bigbox, game("stock-tiebreak-hanseatic-45p")):
        pos = Position(g)
        for p, traders in enumerate((10, 6, 11, 9)):
            pos.player(p, stock=(traders, 0))
        state = pos.state()
        assert [stock(state, p)[0] for p in range(4)] == [10, 6, 11, 9]
        results.append(state.winners())
    assert results == [[0, 1, 2, 3], [1]]
