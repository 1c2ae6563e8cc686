"""The Eastern and Britannia boards' rules (Big Box rule book, seed 000, pp. 12-14), played through
the public game API in the style of test_scenarios_rulebook.py.

"p. 12" is the Eastern Hanseatic League page (green cities, Waren, sea routes, the four permanent
markers); "p. 13" Britannia's countries and permissions; "p. 14" Britannia's permanent markers and
the country-majority scoring with its worked example. Games: `bigbox-eastern` (4 players) and
`bigbox-britannia-45p` (4 players), `bigbox-britannia-3p` where the 3-player side differs. The
Britannia scenarios run on both backends (the native one built with the system C compiler).
"""

from __future__ import annotations

import pytest
from play_support import NO_C_COMPILER, NO_C_COMPILER_REASON
from scenario_support import (
    Position,
    act,
    doc,
    legal,
    load,
    markers,
    refuse,
    route_points,
    stock,
    supply,
    track,
)

import hansa

EASTERN = "bigbox-eastern"
BRITANNIA = "bigbox-britannia-45p"
DECLINE = "decline (further extra pieces, or the permanent marker)"
NO_POST = "neither post nor ability: all route pieces to the stock"


@pytest.fixture(scope="module")
def eastern():
    return load(EASTERN, 4)


def on_backend(name: str, players: int, backend: str):
    """The game on the Python backend, or on the native one (skipped without a C compiler)."""
    if backend == "python":
        return load(name, players)
    if NO_C_COMPILER:
        pytest.skip(NO_C_COMPILER_REASON)
    return hansa.load_game(name, players, backend="native")


@pytest.fixture(scope="module", params=["python", "native"])
def britannia(request):
    return on_backend(BRITANNIA, 4, request.param)


def green_posts(state, name: str) -> list[str]:
    for entry in doc(state)["cities"]:
        if entry["name"] == name:
            assert entry.get("green") is True
            return entry["posts"]
    raise KeyError(name)


def completed(state) -> int:
    return doc(state)["completed_cities"]


def offered_routes(state, prefix: str) -> set[str]:
    found = set()
    for text in legal(state):
        if text.startswith(prefix):
            found.add(text[len(prefix) :].strip().rsplit(" #", 1)[0])
    return found


# ------------------------------------------------------------------------------ sea routes (p. 12)


def test_a_trader_cannot_go_on_a_ship_point(eastern):
    """p. 12, sea routes: ship points have only circles for merchants, no squares for traders."""
    state = Position(eastern).player(0, supply=(5, 1)).state()
    names = legal(state)
    assert "place trader on Stralsund–Malmö #1" in names  # a house point
    assert "place merchant on Stralsund–Malmö #2" in names
    refuse(eastern, state, "place trader on Stralsund–Malmö #2")
    refuse(eastern, state, "place trader on Stralsund–Malmö #3")


def test_displacing_on_a_ship_point_needs_a_merchant_and_the_displaced_trader_avoids_ships(
    eastern,
):
    """p. 12 with p. 7: a merchant on a ship point can be displaced only by a merchant; a
    displaced trader goes to house points only."""
    pos = Position(eastern).route("Stralsund", "Malmö", None, "m1").player(0, supply=(6, 1))
    pos.route("Wismar", "Stralsund", "t2", "m2", "m2").route("Lübeck", "Wismar", "t2", "t2", "t2")
    pos.player(2, book=1)
    state = pos.state()
    assert "displace merchant on Stralsund–Malmö #2" in legal(state)
    refuse(eastern, state, "displace trader on Stralsund–Malmö #2")
    pos = Position(eastern).route("Wismar", "Stralsund", "t1").player(0, supply=(6, 0))
    state = pos.state()
    act(state, "displace trader on Wismar–Stralsund #1")
    places = [n for n in legal(state) if n.startswith("place the displaced piece")]
    assert places
    for name in places:
        route, number = name.rsplit(" on ", 1)[1].rsplit(" #", 1)
        kind = "house"
        if route == "Stralsund–Malmö" and number in ("2", "3"):
            kind = "ship"
        if route == "Wismar–Stralsund" and number in ("2", "3"):
            kind = "ship"
        assert kind == "house", name


# ---------------------------------------------------------------------------- green cities (p. 12)


def test_a_green_city_takes_no_ordinary_post_and_its_first_post_completes_it(eastern):
    """p. 12, green cities: no post as usual; the Additional Trading Post marker puts one there
    when creating an adjacent route; with the first post the city counts as fully occupied (the
    completed-cities counter moves on)."""
    pos = Position(eastern).route("Anklam", "Belgard", "t0", "t0", "t0")
    pos.player(0, unused=["additional_trading_post"])
    state = pos.state()
    before = completed(state)
    act(state, "create route Anklam–Belgard")
    names = legal(state)
    assert "establish a trading post in Belgard with a trader" not in names
    assert "establish an additional trading post in Belgard with a trader" in names
    act(state, "establish an additional trading post in Belgard with a trader")
    assert green_posts(state, "Belgard") == ["t0"]
    assert completed(state) == before + 1
    assert markers(state, 0) == ([], ["additional_trading_post"])


def test_without_the_marker_a_green_city_takes_no_post(eastern):
    """p. 12: only the two markers put a post in a green city."""
    state = Position(eastern).route("Anklam", "Belgard", "t0", "t0", "t0").state()
    act(state, "create route Anklam–Belgard")
    assert not any("Belgard" in n and "establish" in n for n in legal(state))


def test_the_additional_post_goes_left_of_the_pieces_in_a_green_city(eastern):
    """p. 12: 'adicionar o seu comerciante extra à esquerda de todos os outros'; a second post
    does not complete the city again."""
    pos = Position(eastern).route("Belgard", "Kulm", "t0", "t0", "t0").green_city("Belgard", "t1")
    pos.player(0, unused=["additional_trading_post"])
    state = pos.state()
    before = completed(state)
    act(state, "create route Belgard–Kulm")
    act(state, "establish an additional trading post in Belgard with a trader")
    assert green_posts(state, "Belgard") == ["t0", "t1"]
    assert completed(state) == before


def test_green_cities_score_like_any_city(eastern):
    """p. 12: green cities count for control (creating a route, category E) and the network."""
    pos = Position(eastern).green_city("Belgard", "t1", "t0", "t0").green_city("Waren", "t1")
    pos.route("Belgard", "Danzig", "t2", "t2", "t2", "t2")
    state = pos.state()
    scores = state.score_breakdown()
    assert scores[0]["E"] == 2 and scores[1]["E"] == 2
    assert scores[0]["F"] == 2  # two posts in one city x Keys 1
    pos.to_move(2)
    state = pos.state()
    act(state, "create route Belgard–Danzig")
    assert track(state)[0] == 1  # the controller of Belgard scores


def test_waren_offers_actions_or_bank(eastern):
    """p. 12, Waren: creating one of its 3 routes lets one develop Actions or Bank."""
    state = Position(eastern).route("Havelberg", "Waren", "t0", "t0", "t0").state()
    act(state, "create route Havelberg–Waren")
    names = legal(state)
    assert "develop actions" in names and "develop bank" in names
    assert "develop keys" not in names


# ----------------------------------------------------------------------- permanent markers (p. 12)


def test_develop_privilege_marker_is_used_right_after_creating_its_route(eastern):
    """p. 12: creating the sea route gives its permanent marker's use immediately after the
    action; Privilege develops by the normal rules; the marker is never taken (no PP)."""
    pos = Position(eastern).route("Stralsund", "Malmö", "t0", "m0", "m0").player(0, book=1)
    state = pos.state()
    act(state, "create route Stralsund–Malmö", NO_POST)
    assert legal(state) == ["develop privilege", DECLINE]
    act(state, "develop privilege")
    assert doc(state)["player_state"][0]["abilities"]["privilege"] == 1
    assert markers(state, 0) == ([], [])
    assert state.score_breakdown()[0]["C"] == 0


def test_a_permanent_marker_cannot_be_used_later_in_the_turn(eastern):
    """p. 12: 'imediatamente após o fim dessa ação (e somente nesse momento)'."""
    pos = Position(eastern).route("Stralsund", "Malmö", "t0", "m0", "m0").player(0, book=1)
    state = pos.state()
    act(state, "create route Stralsund–Malmö", NO_POST, DECLINE)
    assert state.current_player() == 0
    names = legal(state)
    assert "end the turn" in names
    assert not any("develop" in n or "permanent" in n for n in names)
    assert doc(state)["stack"] == []


def test_move_two_tradesmen_of_anyone_with_swaps(eastern):
    """p. 12, 'Mover 2 comerciantes': two pieces of oneself and/or opponents on routes, swaps
    allowed."""
    pos = Position(eastern).route("Wismar", "Stralsund", "t0", "m0", "m0").player(0, book=1)
    pos.route("Lübeck", "Wismar", "t1", "t2")
    state = pos.state()
    act(state, "create route Wismar–Stralsund", NO_POST)
    assert legal(state) == [DECLINE, "use the permanent marker of the route just created"]
    act(state, "use the permanent marker of the route just created")
    act(state, "pick up the piece on Lübeck–Wismar #1", "pick up the piece on Lübeck–Wismar #2")
    act(state, "put the held piece on Lübeck–Wismar #2", "put the held piece on Lübeck–Wismar #1")
    assert route_points(state, "Lübeck", "Wismar") == ["t2", "t1", None]


def test_post_in_a_green_city_from_the_supply_goes_right_of_the_pieces_there(eastern):
    """p. 12: a piece from the personal supply, in a green city of one's choice, always to the
    right of the pieces already there (so it is the highest-valued post)."""
    pos = Position(eastern).route("Malmö", "Visby", "t0", "m0", "t0").green_city("Belgard", "t1")
    state = pos.state()
    act(state, "create route Malmö–Visby", NO_POST)
    names = legal(state)
    for city in ("Belgard", "Waren", "Dresden"):
        assert f"establish a post in green city {city} with a trader" in names
    traders = supply(state, 0)[0]
    act(state, "establish a post in green city Belgard with a trader")
    assert green_posts(state, "Belgard") == ["t1", "t0"]
    assert supply(state, 0)[0] == traders - 1
    # one post each: the rightmost (player 0's) decides control
    assert state.score_breakdown()[0]["E"] == 2


def test_place_two_of_the_routes_pieces_instead_of_returning_them(eastern):
    """p. 12, 'Colocar 2 comerciantes': two of this route's pieces go on free points instead of
    the general stock; the rest go to the stock."""
    state = Position(eastern).route("Danzig", "Malmö", "t0", "t0", "t0", "m0").state()
    traders, merchants = stock(state, 0)
    act(state, "create route Danzig–Malmö", NO_POST)
    names = legal(state)
    assert DECLINE in names
    assert "put a trader of the created route on Lübeck–Wismar #1" in names
    assert not any(n.startswith("put a trader") and "Danzig–Malmö" in n for n in names)
    act(state, "put a trader of the created route on Lübeck–Wismar #1")
    act(state, "put a merchant of the created route on Stralsund–Malmö #2")
    assert route_points(state, "Lübeck", "Wismar")[0] == "t0"
    assert route_points(state, "Stralsund", "Malmö")[1] == "m0"
    assert route_points(state, "Danzig", "Malmö") == [None] * 4
    assert stock(state, 0) == (traders + 2, merchants)


def test_no_bonus_marker_is_placed_on_a_sea_route(eastern):
    """p. 12: no bonus marker may go on a sea route (each has its permanent marker)."""
    pos = Position(eastern).to_move(0, actions_left=0, plate=("develop_ability",))
    state = pos.state()
    assert doc(state)["stack"][-1]["frame"] == "place_markers"
    offered = offered_routes(state, "place the drawn marker on")
    assert "Anklam–Belgard" in offered
    for sea in ("Stralsund–Malmö", "Wismar–Stralsund", "Malmö–Visby", "Danzig–Malmö"):
        assert sea not in offered


def test_eastern_east_west_and_special_prestige(eastern):
    """p. 12: the East-West connection links Lübeck and Danzig (the sea routes are its shortest
    way); the special prestige is won in Königsberg."""
    pos = Position(eastern).city("Lübeck", "t0").city("Wismar", "t0").city("Stralsund", "t0")
    pos.route("Danzig", "Malmö", "t0", "t0", "t0", "m0").city("Malmö", "m1", "t0")
    state = pos.state()
    act(state, "create route Danzig–Malmö", "establish a trading post in Danzig with a trader")
    assert doc(state)["east_west"] == [0]
    state = Position(eastern).route("Danzig", "Königsberg", "m0", "t0", "t0", "t0").state()
    act(state, "create route Danzig–Königsberg")
    assert "take special prestige space 1 (7 PP)" in legal(state)


# ------------------------------------------------------------------ countries, permissions (p. 13)


def test_place_in_wales_needs_a_permission(britannia):
    """p. 13: in Wales and Scotland Place and Displace need a permission; England is free."""
    state = Position(britannia).player(0, supply=(6, 1)).state()
    names = legal(state)
    assert "place trader on Bristol–Salisbury #1" in names
    refuse(britannia, state, "place trader on Cardiff–Montgomery #1")
    refuse(britannia, state, "place trader on Carlisle–Falkirk #1")


def test_a_second_place_in_wales_with_one_permission_is_illegal(britannia):
    """p. 13, Cardiff: the rightmost post allows one Place or one Displace in Wales, once per
    turn; England stays free."""
    pos = Position(britannia).city("Cardiff", "t0").player(0, supply=(6, 1))
    state = pos.state()
    act(state, "place trader on Cardiff–Montgomery #1")
    assert doc(state)["turn"]["permissions_used"] == ["Cardiff"]
    refuse(britannia, state, "place trader on Cardiff–Montgomery #2")
    refuse(britannia, state, "place trader on Cardiff–Pembroke #1")
    act(state, "place trader on Bristol–Salisbury #1")  # England: no permission needed
    assert "place trader on Carlisle–Falkirk #1" not in legal(state)  # no Scottish permission


def test_the_permission_serves_one_displace_instead(britannia):
    """p. 13: the permission is for one Place OR one Displace."""
    pos = Position(britannia).city("Cardiff", "t0").player(0, supply=(6, 0))
    pos.route("Cardiff", "Montgomery", "t1").route("Cardiff", "Pembroke", "t2")
    state = pos.state()
    act(state, "displace trader on Cardiff–Montgomery #1")
    while doc(state)["stack"]:  # the displaced player places the piece (and extras)
        state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 0
    refuse(britannia, state, "displace trader on Cardiff–Pembroke #1")
    refuse(britannia, state, "place trader on Cardiff–Montgomery #2")


def test_cardiff_and_london_give_two_actions_outside_england(britannia):
    """p. 13, 'Pontos de atenção': the rightmost posts in Cardiff and London allow two actions
    outside England in a turn (twice in Wales, or once in Wales and once in Scotland)."""
    pos = Position(britannia).city("Cardiff", "t0").city("London", "t1", "t0")
    pos.player(0, supply=(6, 1)).to_move(0, actions_left=3)
    state = pos.state()
    act(state, "place trader on Cardiff–Montgomery #1", "place trader on Cardiff–Pembroke #1")
    assert sorted(doc(state)["turn"]["permissions_used"]) == ["Cardiff", "London"]
    refuse(britannia, state, "place trader on Cardiff–Montgomery #2")
    state = pos.state()
    act(state, "place trader on Carlisle–Falkirk #1")  # London's permission, in Scotland
    act(state, "place trader on Cardiff–Montgomery #1")  # Cardiff's, in Wales
    refuse(britannia, state, "place trader on Cardiff–Pembroke #1")


def test_permissions_are_renewed_each_turn(britannia):
    """p. 13: once per turn — the next turn the permission serves again."""
    pos = Position(britannia).city("Cardiff", "t0").player(0, supply=(6, 1))
    state = pos.state()
    act(state, "place trader on Cardiff–Montgomery #1", "end the turn")
    for _ in range(3):  # the three other players end their turns at once
        act(state, "end the turn")
    assert state.current_player() == 0
    act(state, "place trader on Cardiff–Montgomery #2")


def test_a_displaced_welsh_piece_cannot_be_re_placed_in_scotland(britannia):
    """p. 13: displaced pieces go only to adjacent routes of their own country or England. The
    Isle of Man is in Wales and Scotland: from Conway-Isle of Man (Welsh) the Scottish route
    Carlisle-Isle of Man is adjacent but not allowed."""
    pos = Position(britannia).city("Cardiff", "t0").player(0, supply=(6, 0))
    pos.route("Conway", "Isle of Man", None, None, "t1")
    state = pos.state()
    act(state, "displace trader on Conway–Isle of Man #3")
    offered = offered_routes(state, "place the displaced piece on")
    assert offered == {"Chester–Conway", "Conway–Montgomery"}
    assert not any("Carlisle–Isle of Man" in n for n in legal(state))


def test_a_displaced_english_piece_stays_in_england(britannia):
    """p. 13: own country or England: an English piece goes to English routes only."""
    pos = Position(britannia).route("Cardiff", "Oxford", "t1").player(0, supply=(6, 0))
    state = pos.state()
    act(state, "displace trader on Cardiff–Oxford #1")
    offered = offered_routes(state, "place the displaced piece on")
    assert "Cardiff–Coventry" in offered and "London–Oxford" in offered
    assert "Cardiff–Montgomery" not in offered and "Cardiff–Pembroke" not in offered


def test_move_keeps_english_pieces_in_england_and_welsh_ones_in_wales_or_england(britannia):
    """p. 13, Move: pieces in England only to England; from Wales to Wales or England."""
    pos = Position(britannia).route("Bristol", "Salisbury", "t0").player(0, book=0)
    state = pos.state()
    act(state, "move own tradesmen", "pick up the piece on Bristol–Salisbury #1")
    act(state, "stop picking up") if "stop picking up" in legal(state) else None
    drops = offered_routes(state, "put the held piece on")
    assert "Cardiff–Oxford" in drops and "Cardiff–Montgomery" not in drops
    state = Position(britannia).route("Cardiff", "Montgomery", "t0").state()
    act(state, "move own tradesmen", "pick up the piece on Cardiff–Montgomery #1")
    act(state, "stop picking up") if "stop picking up" in legal(state) else None
    drops = offered_routes(state, "put the held piece on")
    assert "Cardiff–Pembroke" in drops and "Cardiff–Oxford" in drops
    assert "Carlisle–Falkirk" not in drops


def test_move_3_marker_stays_within_a_country(britannia):
    """p. 13, Move 3 Tradesmen limits: a piece stays in the country it is in (England too)."""
    pos = Position(britannia).route("Cardiff", "Montgomery", "t1")
    pos.player(0, unused=["move_tradesmen"])
    state = pos.state()
    act(state, "use bonus marker move_tradesmen", "pick up the piece on Cardiff–Montgomery #1")
    drops = offered_routes(state, "put the held piece on")
    assert "Cardiff–Pembroke" in drops
    assert "Cardiff–Oxford" not in drops  # England is not its country


def test_no_bonus_marker_on_welsh_scottish_or_permanent_sea_routes(britannia):
    """p. 13: no bonus marker on a sea route holding a permanent marker, nor on a Welsh or
    Scottish route; a sea route without one (Chester-Carlisle) may take one."""
    state = Position(britannia).to_move(0, actions_left=0, plate=("develop_ability",)).state()
    offered = offered_routes(state, "place the drawn marker on")
    assert "Bristol–Salisbury" in offered and "Chester–Carlisle" in offered
    for name in (
        "Canterbury–Calais",
        "Calais–Southampton",
        "Cardiff–Montgomery",
        "Dunbar–Edinburgh",
    ):
        assert name not in offered


def test_london_offers_privilege_and_the_game_ends_at_the_eighth_city(britannia):
    """p. 13: London develops Privilege; the game ends after the Create Route action that
    completes an 8th city (instead of the 10th)."""
    state = Position(britannia).route("Cambridge", "London", "t0", "t0", "t0").state()
    act(state, "create route Cambridge–London")
    assert "develop privilege" in legal(state)
    pos = Position(britannia)
    for city in ("Bristol", "Dunbar", "Durham", "Glasgow", "Ipswich", "Lancaster", "Richmond"):
        pos.city(city, "t1" if city != "Bristol" else "m1")
    pos.route("Conway", "Montgomery", "t0", "t0", "t0").city("Conway", "t2").player(0, privilege=1)
    state = pos.state()
    assert completed(state) == 7
    act(state, "create route Conway–Montgomery", "establish a trading post in Conway with a trader")
    assert completed(state) == 8 and state.is_terminal()


# ----------------------------------------------------------- Britannia permanent markers (p. 14)


def test_place_two_pieces_from_the_stock_in_wales_or_scotland(britannia):
    """p. 14, 'Colocar 2 comerciantes': two own pieces from the general stock (else the personal
    supply, else the board) on free points in Wales and/or Scotland."""
    pos = Position(britannia).route("Calais", "Southampton", "t0", "m0", "m0").player(0, book=1)
    state = pos.state()
    traders = stock(state, 0)[0]
    act(state, "create route Calais–Southampton", NO_POST)
    names = legal(state)
    assert "put an own trader on Cardiff–Montgomery #1" in names
    assert "put an own trader on Carlisle–Falkirk #1" in names
    assert not any(n.startswith("put an own") and "Bristol" in n for n in names)
    act(
        state,
        "put an own trader on Cardiff–Montgomery #1",
        "put an own trader on Carlisle–Falkirk #1",
    )
    assert stock(state, 0)[0] == traders + 1 - 2  # the route's trader returned, two taken
    assert route_points(state, "Carlisle", "Falkirk")[0] == "t0"
    assert doc(state)["stack"] == []


def test_place_two_takes_from_the_supply_then_the_board(britannia):
    """p. 14: with the general stock empty the pieces come from the personal supply; with both
    empty, from the board."""
    pos = Position(britannia).route("Calais", "Southampton", "t0", "m0", "m0")
    pos.route("Bristol", "Salisbury", "t0").player(0, stock=(0, 0), book=1)
    state = pos.state()
    act(state, "create route Calais–Southampton", NO_POST)
    # the route's pieces went to the stock first: they are taken from there
    assert "put an own trader on Cardiff–Montgomery #1" in legal(state)
    pos = Position(britannia).route("Canterbury", "Calais", "t0", "m0", "t0")
    pos.route("Bristol", "Salisbury", "t0").route("Calais", "Southampton", "t3", "m3", "m3")
    pos.player(3, book=1)
    state = pos.state()
    act(state, "create route Canterbury–Calais", NO_POST)
    assert "use the permanent marker of the route just created" in legal(state)


def test_permanent_move_two_stays_within_a_country(britannia):
    """p. 14, 'Mover 2 comerciantes': anyone's pieces, each within its country."""
    pos = Position(britannia).route("Canterbury", "Calais", "t0", "m0", "t0")
    pos.route("Cardiff", "Montgomery", "t1")
    state = pos.state()
    act(state, "create route Canterbury–Calais", NO_POST)
    act(state, "use the permanent marker of the route just created")
    act(state, "pick up the piece on Cardiff–Montgomery #1")
    assert "stop picking up" not in legal(state)  # the only piece to move: put it down
    drops = offered_routes(state, "put the held piece on")
    assert "Cardiff–Pembroke" in drops and "Cardiff–Oxford" not in drops


# ------------------------------------------------------------- country majorities (p. 14)


def wales(pos: Position, owners: dict[str, tuple[str, ...]]) -> Position:
    for city, posts in owners.items():
        pos.city(city, *posts)
    return pos


def test_wales_majority_worked_example(britannia):
    """p. 14 example: two players control 2 Welsh cities each with as many posts in Wales: both
    score (7 + 4) / 2 = 5 (rounded down); the next one gets third place's 2."""
    pos = wales(
        Position(britannia),
        {
            "Conway": ("t0",),
            "Montgomery": ("t0",),
            "Pembroke": ("t1",),
            "Chester": ("t1",),
            "Cardiff": ("t2",),
        },
    )
    scores = pos.state().score_breakdown()
    assert [s["G"] for s in scores] == [5, 5, 2, 0]


def test_majority_ties_go_to_more_posts_in_the_country(britannia):
    """p. 14: tied on cities, more posts in that country wins the higher place."""
    pos = wales(
        Position(britannia),
        {
            "Conway": ("t0", "t0"),
            "Montgomery": ("t0",),
            "Pembroke": ("t1",),
            "Chester": ("t1",),
        },
    )
    assert [s["G"] for s in pos.state().score_breakdown()] == [7, 4, 0, 0]


def test_players_without_a_city_take_places_left_by_posts(britannia):
    """p. 14: after the controllers, players controlling no city there may take the places left,
    the one with more posts there first; without a post there, nothing."""
    pos = wales(
        Position(britannia),
        {"Conway": ("t0",), "Cardiff": ("t0", "t1", "t0", "t2")},
    )
    # player 0 controls both; players 1 and 2 hold a post each (no control); player 3 none
    assert [s["G"] for s in pos.state().score_breakdown()] == [7, 3, 3, 0]


def test_isle_of_man_counts_for_wales_and_scotland(britannia):
    """p. 14: the Isle of Man belongs to both countries and scores for both."""
    state = Position(britannia).city("Isle of Man", "m3").state()
    assert [s["G"] for s in state.score_breakdown()] == [0, 0, 0, 14]


def test_the_three_player_side_has_no_scotland(britannia):
    """p. 13: the 3-player map has only England and Wales; Isle of Man-Carlisle carries the
    move-2 permanent marker there."""
    game = on_backend("bigbox-britannia-3p", 3, getattr(britannia, "backend", "python"))
    state = Position(game).city("Isle of Man", "m2").state()
    assert [s["G"] for s in state.score_breakdown()] == [0, 0, 7]
    pos = Position(game).route("Carlisle", "Isle of Man", "t0", "m0", "m0").player(0, book=1)
    state = pos.route("Bristol", "Salisbury", "t1").state()
    act(state, "create route Carlisle–Isle of Man", NO_POST)
    assert "use the permanent marker of the route just created" in legal(state)
    # with no piece on any route there is nothing to move: the marker offers nothing
    state = pos.route("Bristol", "Salisbury").state()
    act(state, "create route Carlisle–Isle of Man", NO_POST)
    assert doc(state)["stack"] == []
