"""Emperor's Favour (Big Box rule book p. 11): tiles face up, one taken at the start of a turn
instead of the turn's actions by flipping 2 unused bonus markers of the player's choice; each
tile's effect in play, the triggered sixth tile (a piece from the stock whenever another player
takes Income) and triggered tiles as house rules; random and greedy games."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from scenario_support import (
    Position,
    act,
    doc,
    legal,
    markers,
    refuse,
    route_points,
    stock,
    supply,
    track,
)
from variant_support import variant

import hansa

TAKE = "take favour tile {!r} (flip 2 unused markers; no actions)"
FLIP = "flip bonus markers {} and {} for the favour tile"


@pytest.fixture(scope="module")
def favour():
    return hansa.load_game("bigbox-hanseatic-45p-favour", players=4)


def with_favour(position: Position, face_up=None, held=None, this_turn="may_take"):
    """The position's state with the favour display and tiles held set."""
    data = position.to_dict()
    game = position.game
    n = len(data["player_state"])
    data["favour"] = {
        "face_up": list(face_up if face_up is not None else game.module.FAVOUR_NAMES),
        "held": held or [[] for _ in range(n)],
        "this_turn": this_turn,
    }
    return game.state_from_json(data)


def test_setup_shows_as_many_random_tiles_as_players():
    """p. 11: "Select random tiles equal to the number of players and place them face up"."""
    game = hansa.load_game("bigbox-hanseatic-3p-favour", players=3)
    shown = {tuple(doc(game.new_initial_state(seed))["favour"]["face_up"]) for seed in range(12)}
    assert all(len(tiles) == 3 for tiles in shown) and len(shown) > 1
    assert all(set(tiles) <= set(game.module.FAVOUR_NAMES) for tiles in shown)
    start = doc(game.new_initial_state(0))
    assert start["favour"]["held"] == [[], [], []]
    assert start["favour"]["this_turn"] == "may_take"


def test_taking_a_tile_gives_up_the_actions_and_flips_two_markers(favour):
    """p. 11: at the start of the turn, give up all actions and flip 2 unused markers (they still
    score: they stay in the used pile); the tile leaves the display; the turn passes on."""
    pos = Position(favour).player(0, unused=["plus_3_actions", "move_tradesmen", "develop_ability"])
    state = with_favour(pos.to_move(0))
    before = state.score_breakdown()[0]["C"]
    act(state, TAKE.format("City PP"))
    assert doc(state)["stack"][-1] == {"frame": "flip_markers", "player": 0, "tile": "City PP"}
    act(state, FLIP.format("develop_ability", "plus_3_actions"))
    after = doc(state)
    assert after["turn"]["player"] == 1
    assert after["favour"]["held"][0] == ["City PP"]
    assert "City PP" not in after["favour"]["face_up"]
    unused, used = markers(state, 0)
    assert unused == ["move_tradesmen"] and sorted(used) == ["develop_ability", "plus_3_actions"]
    assert state.score_breakdown()[0]["C"] == before  # flipped markers still score
    assert after["player_state"][0]["parameters"]["city_pp"] == 4


def test_no_tile_with_fewer_than_two_unused_markers_or_after_acting(favour):
    """p. 11: a tile needs 2 unused markers and is taken only at the start of the turn."""
    one = with_favour(Position(favour).player(0, unused=["plus_3_actions"]).to_move(0))
    assert not [a for a in legal(one) if a.startswith("take favour")]
    two = with_favour(
        Position(favour).player(0, unused=["plus_3_actions", "move_tradesmen"]).to_move(0)
    )
    assert TAKE.format("More actions") in legal(two)
    act(two, "income: 1 traders, 0 merchants")
    assert not [a for a in legal(two) if a.startswith("take favour")]
    assert doc(two)["favour"]["this_turn"] == "acted"
    marker = with_favour(
        Position(favour).player(0, unused=["plus_3_actions", "move_tradesmen"]).to_move(0)
    )
    act(marker, next(a for a in legal(marker) if "plus_3_actions" in a))
    assert not [a for a in legal(marker) if a.startswith("take favour")]


def test_one_tile_per_turn(favour):
    """p. 11: "You may only acquire 1 Emperor's Favour tile per turn"; the turn ends with it."""
    pos = Position(favour).player(
        0, unused=["plus_3_actions", "move_tradesmen", "develop_ability", "plus_4_actions"]
    )
    state = with_favour(pos.to_move(0, actions_left=2))
    act(state, TAKE.format("More actions"))
    assert not [a for a in legal(state) if a.startswith("take favour")]  # the flip comes first
    act(state, FLIP.format("plus_3_actions", "plus_4_actions"))
    assert doc(state)["turn"]["player"] == 1
    with pytest.raises(hansa.HansaError):
        with_favour(pos.to_move(0, actions_left=2), this_turn="taken")


def test_each_parameter_tile_in_a_position(favour):
    """p. 11: +1 action every turn; 2 pieces when a trader is displaced; 4 PP per controlled city;
    7 PP per fully developed ability — for the tile's holder only."""
    unused = ["plus_3_actions", "move_tradesmen"]
    for tile, name, value in (
        ("More actions", "extra_actions_per_turn", 1),
        ("Trader compensation", "trader_compensation", 2),
        ("City PP", "city_pp", 4),
        ("Full ability PP", "full_track_pp", 7),
    ):
        state = with_favour(Position(favour).player(0, unused=unused).to_move(0))
        act(state, TAKE.format(tile))
        params = [p["parameters"] for p in doc(state)["player_state"]]
        assert params[0][name] == value and params[1][name] != value
    state = with_favour(Position(favour).player(0, unused=unused).to_move(0))
    act(state, TAKE.format("More actions"))
    while doc(state)["turn"]["player"] != 0:
        act(state, "end the turn")
    assert doc(state)["turn"]["actions_left"] == 3  # Actions 2 + 1
    city = with_favour(Position(favour).player(0, unused=unused).city("Hamburg", "t0").to_move(0))
    before = city.score_breakdown()[0]["E"]
    act(city, TAKE.format("City PP"))
    assert (before, city.score_breakdown()[0]["E"]) == (2, 4)


def test_full_ability_tile_keeps_the_keys_exception(favour):
    """p. 11: "7 PP (instead of 4) for each fully developed ability" — instead of the 4 that an
    ability scores, so category B's exception stands: a full Keys track scores nothing, with or
    without the tile. Keys and Book full: B is 4 without the tile, 7 with it (not 14)."""
    unused = ["plus_3_actions", "move_tradesmen"]
    full = {"keys": 4, "book": 3}  # every piece off both tracks
    without = with_favour(Position(favour).player(0, unused=unused, **full).to_move(0))
    assert without.score_breakdown()[0]["B"] == 4
    state = with_favour(Position(favour).player(0, unused=unused, **full).to_move(0))
    act(state, TAKE.format("Full ability PP"))
    assert state.score_breakdown()[0]["B"] == 7
    keys_only = with_favour(Position(favour).player(0, unused=unused, keys=4).to_move(0))
    act(keys_only, TAKE.format("Full ability PP"))
    assert keys_only.score_breakdown()[0]["B"] == 0


def test_a_house_rule_adds_a_seventh_tile():
    """A tile is a few spec words: `favour "Merchant's purse": your control PP becomes 2`."""
    game = variant(
        'favour "More actions": your extra actions becomes 1\n'
        'favour "Merchant\'s purse": your control PP becomes 2'
    )
    assert game.module.FAVOUR_NAMES == ("More actions", "Merchant's purse")
    pos = Position(game).player(0, unused=["plus_3_actions", "move_tradesmen"]).to_move(0)
    state = with_favour(pos)
    act(state, TAKE.format("Merchant's purse"))
    assert doc(state)["player_state"][0]["parameters"]["control_pp"] == 2
    rng = random.Random(3)
    state = game.new_initial_state(3)
    for _ in range(300):  # it plays: a legal decision in every position reached
        state.apply_action(rng.choice(state.legal_actions()))


def offered_routes(state) -> set[str]:
    """The routes named by the displaced owner's placement choices."""
    prefix = "place the displaced piece on "
    return {t[len(prefix) :].rsplit(" #", 1)[0] for t in legal(state) if t.startswith(prefix)}


def test_displace_anywhere_tile_lets_the_holder_use_any_free_point(favour):
    """p. 11: "Displaced pieces may be placed on any free points" — the holder's displaced pieces
    are no longer bound to the nearest routes; other players' still are (p. 5)."""
    adjacent = {
        "Dortmund–Duisburg",
        "Hildesheim–Paderborn",
        "Minden–Paderborn",
        "Paderborn–Warburg",
    }
    pos = Position(favour).route("Dortmund", "Paderborn", None, "t1", None).player(0, supply=(5, 0))
    pos.player(1, unused=["plus_3_actions", "move_tradesmen"])
    state = with_favour(pos.to_move(1))
    act(state, TAKE.format("Displace anywhere"))
    assert doc(state)["player_state"][1]["parameters"]["displacement_reach"] == 1
    while doc(state)["turn"]["player"] != 0:
        act(state, "end the turn")
    act(state, "displace trader on Dortmund–Paderborn #2")
    offered = offered_routes(state)
    assert adjacent < offered and "Emden–Groningen" in offered
    act(state, "place the displaced piece on Emden–Groningen #1")
    assert route_points(state, "Emden", "Groningen")[0] == "t1"
    act(state, "take an extra trader")
    assert "Emden–Groningen" in offered_routes(state)  # the extra piece too
    # Without the tile (the same position, no parameter): only the adjacent routes.
    plain = with_favour(pos.to_move(0))
    assert doc(plain)["player_state"][1]["parameters"]["displacement_reach"] == 0
    act(plain, "displace trader on Dortmund–Paderborn #2")
    assert offered_routes(plain) == adjacent
    refuse(favour, plain, "place the displaced piece on Emden–Groningen #1")


# ---- the sixth tile: a piece from the stock whenever another player takes Income (p. 11)
STOCK_TILE = "Stock on income"
TRADER = "take a trader from the general stock to the personal supply"
MERCHANT = "take a merchant from the general stock to the personal supply"
DECLINE = "take no (further) piece from the general stock"


def holder_position(favour, holder=2, stock=(5, 1)):
    """Player 0 to move with 3 actions; `holder` holds the stock tile and has `stock`."""
    pos = Position(favour).player(holder, stock=stock)
    held = [[] for _ in range(4)]
    held[holder] = [STOCK_TILE]
    face_up = [t for t in favour.module.FAVOUR_NAMES if t != STOCK_TILE]
    return with_favour(pos.to_move(0, actions_left=3), face_up=face_up, held=held)


def test_stock_tile_holder_takes_a_trader_when_another_player_takes_income(favour):
    """p. 11: "Whenever another player takes the Income action, you may take 1 tradesman from the
    general stock and put it in your personal supply" — a decision of the holder inside the
    income taker's turn; play then returns to the income taker."""
    state = holder_position(favour)
    before = (supply(state, 2), stock(state, 2), supply(state, 0))
    act(state, "income: 1 traders, 0 merchants")
    assert state.current_player() == 2
    assert doc(state)["stack"] == [
        {"frame": "take_from_stock", "player": 2, "left": 1, "kinds": ["trader", "merchant"]}
    ]
    assert sorted(legal(state)) == sorted([DECLINE, TRADER, MERCHANT])
    act(state, TRADER)
    assert supply(state, 2) == (before[0][0] + 1, before[0][1])
    assert stock(state, 2) == (before[1][0] - 1, before[1][1])
    assert supply(state, 0) == (before[2][0] + 1, before[2][1])
    assert state.current_player() == 0 and doc(state)["turn"]["actions_left"] == 2
    act(state, "income: 1 traders, 0 merchants")  # every Income, not once per turn
    assert state.current_player() == 2
    act(state, MERCHANT)
    assert supply(state, 2) == (before[0][0] + 1, before[0][1] + 1)
    assert state.current_player() == 0


def test_stock_tile_holder_may_decline(favour):
    """p. 11: "you *may* take": declining leaves supply and stock as they were."""
    state = holder_position(favour)
    before = (supply(state, 2), stock(state, 2))
    act(state, "income: 1 traders, 0 merchants", DECLINE)
    assert (supply(state, 2), stock(state, 2)) == before
    assert state.current_player() == 0 and not doc(state)["stack"]


def test_stock_tile_offers_only_kinds_in_the_stock_and_nothing_from_an_empty_one(favour):
    """A tradesman "from the general stock": only kinds there; an empty stock offers no decision."""
    traders_only = holder_position(favour, stock=(3, 0))
    act(traders_only, "income: 1 traders, 0 merchants")
    assert sorted(legal(traders_only)) == sorted([DECLINE, TRADER])
    empty = holder_position(favour, stock=(0, 0))
    act(empty, "income: 1 traders, 0 merchants")
    assert empty.current_player() == 0 and not doc(empty)["stack"]
    assert doc(empty)["turn"]["actions_left"] == 2


def test_stock_tile_does_not_trigger_on_the_holders_own_income(favour):
    """p. 11: "another player": the holder's own Income offers nothing more."""
    state = holder_position(favour, holder=0)
    before = stock(state, 0)
    act(state, "income: 1 traders, 0 merchants")
    assert state.current_player() == 0 and not doc(state)["stack"]
    assert stock(state, 0) == (before[0] - 1, before[1])


def test_last_action_income_lets_the_holder_decide_before_the_turn_passes(favour):
    """The holder's decision comes after the income taker's last action, before the turn ends."""
    state = holder_position(favour)
    state = with_favour(
        Position(favour).to_move(3, actions_left=1),
        face_up=[t for t in favour.module.FAVOUR_NAMES if t != STOCK_TILE],
        held=[[], [], [STOCK_TILE], []],
    )
    act(state, "income: 1 traders, 0 merchants")
    assert state.current_player() == 2 and doc(state)["turn"]["player"] == 3
    act(state, TRADER)
    assert doc(state)["turn"]["player"] == 0


def test_stock_tile_frame_round_trips_and_is_validated(favour):
    """The pending choice is part of the state JSON, the observation and the information state."""
    state = holder_position(favour)
    act(state, "income: 1 traders, 0 merchants")
    again = favour.state_from_json(state.to_json())
    assert again.to_json() == state.to_json() and again.current_player() == 2
    assert again.legal_actions() == state.legal_actions()
    for observer in range(4):
        seen = state.observation(observer)
        assert seen["stack"][0]["frame"] == "take_from_stock" and seen["current_player"] == 2
        assert "take_from_stock" in state.information_state_string(observer)
    data = state.to_dict()
    data["stack"][0]["kinds"] = []
    with pytest.raises(hansa.HansaError, match="kinds"):
        favour.state_from_json(data)
    data["stack"][0]["kinds"] = ["trader", "trader"]
    with pytest.raises(hansa.HansaError, match="twice"):
        favour.state_from_json(data)
    data["stack"][0]["kinds"] = ["trader"]
    data["stack"][0]["left"] = 0
    with pytest.raises(hansa.HansaError, match="left"):
        favour.state_from_json(data)


def test_observation_tensor_shows_tiles_relative_to_the_observer(favour):
    """The face-up tiles and who holds which are in the tensor; holders rotate with the observer."""
    import numpy as np

    state = holder_position(favour)
    names = favour.module.FAVOUR_NAMES
    tile = names.index(STOCK_TILE)
    layout = {b["name"]: b for b in favour.observation_tensor_layout()}

    def block(observer, name):
        entry = layout[name]
        size = int(np.prod(entry["shape"]))
        tensor = state.observation_tensor(observer)
        return tensor[entry["offset"] : entry["offset"] + size].reshape(entry["shape"])

    assert list(block(0, "favour_face_up")) == [0.0 if t == tile else 1.0 for t in range(6)]
    for observer, owner in ((2, 0), (0, 2), (3, 3)):
        held = block(observer, "favour_held")
        assert held[owner][tile] == 1.0 and held.sum() == 1.0
    act(state, "income: 1 traders, 0 merchants")
    assert list(block(1, "frame_take")) == [1.0, 1.0, 1.0]


# ---- the choice of the 2 markers to flip (p. 11: "flipping 2 of your unused bonus markers")
def test_taker_chooses_which_two_unused_markers_flip(favour):
    """Only the chosen pair flips; every pair of the player's unused markers is offered (two of a
    kind too), and the tile's effect applies once the markers are flipped."""
    unused = ["plus_3_actions", "plus_3_actions", "move_tradesmen", "develop_ability"]
    state = with_favour(Position(favour).player(0, unused=unused).to_move(0))
    act(state, TAKE.format("More actions"))
    assert state.current_player() == 0
    assert sorted(legal(state)) == sorted(
        FLIP.format(a, b)
        for a, b in (
            ("develop_ability", "plus_3_actions"),
            ("develop_ability", "move_tradesmen"),
            ("plus_3_actions", "plus_3_actions"),
            ("plus_3_actions", "move_tradesmen"),
        )
    )
    assert doc(state)["player_state"][0]["parameters"]["extra_actions_per_turn"] == 0
    again = favour.state_from_json(state.to_json())  # mid-choice round trip
    assert again.to_json() == state.to_json()
    act(state, FLIP.format("plus_3_actions", "move_tradesmen"))
    unused_after, used_after = markers(state, 0)
    assert sorted(unused_after) == ["develop_ability", "plus_3_actions"]
    assert sorted(used_after) == ["move_tradesmen", "plus_3_actions"]
    assert doc(state)["player_state"][0]["parameters"]["extra_actions_per_turn"] == 1
    assert doc(state)["turn"]["player"] == 1


def test_no_choice_when_only_one_pair_can_flip(favour):
    """Exactly 2 unused markers (or 2+ of one type only): they flip without a decision."""
    for unused in (["plus_3_actions", "move_tradesmen"], ["additional_trading_post"] * 3):
        state = with_favour(Position(favour).player(0, unused=unused).to_move(0))
        act(state, TAKE.format("City PP"))
        assert doc(state)["turn"]["player"] == 1
        assert len(markers(state, 0)[0]) == len(unused) - 2


def test_flip_frame_is_validated_on_load(favour):
    """A flip decision belongs to the turn player, for a tile taken this turn."""
    unused = ["plus_3_actions", "move_tradesmen", "develop_ability"]
    state = with_favour(Position(favour).player(0, unused=unused).to_move(0))
    act(state, TAKE.format("City PP"))
    data = state.to_dict()
    data["stack"][0]["tile"] = "More actions"  # not a tile player 0 holds
    with pytest.raises(hansa.HansaError, match="flipped by the turn player"):
        favour.state_from_json(data)
    data = state.to_dict()
    data["favour"]["this_turn"] = "acted"
    with pytest.raises(hansa.HansaError):
        favour.state_from_json(data)


# ---- triggered tiles as a house rule: a second stock tile and a seventh tile
HOUSE_TILES = """\
rules two_stock "Favour with two stock tiles" extends bigbox_favour {
    favour "Second stock" when another player takes income: you may take 2 traders from the stock
    favour "Toll" when another player takes place: gain 1 PP
}
game two-stock-favour = two_stock on hanseatic_45p players 4
"""


def house_game(tmp_path):
    spec = Path(__file__).resolve().parents[2] / "spec"
    folder = tmp_path / "spec"
    folder.mkdir()
    parts = ("bigbox_2021.hansa", "modules/emperors_favour.hansa", "boards/hanseatic_45p.hansa")
    for part in parts + ("boards/hanseatic_3p.hansa",):
        (folder / Path(part).name).write_text((spec / part).read_text("utf-8"), "utf-8")
    (folder / "house.hansa").write_text(HOUSE_TILES, "utf-8")
    return hansa.compile_game("two-stock-favour", 4, spec_dir=str(folder))


def test_triggered_tiles_as_a_house_rule_decide_clockwise_from_the_actor(tmp_path):
    """Holders of tiles with the same trigger decide in seat order from the acting player
    (clockwise), after the action; a tile may react to another action (the seventh tile)."""
    game = house_game(tmp_path)
    names = game.module.FAVOUR_NAMES
    assert names[-2:] == ("Second stock", "Toll") and len(names) == 8
    held = [[], ["Second stock", "Toll"], [], [STOCK_TILE]]
    face_up = [t for t in names if t not in ("Second stock", "Toll", STOCK_TILE)]
    state = with_favour(Position(game).to_move(2, actions_left=3), face_up=face_up, held=held)
    act(state, "income: 1 traders, 0 merchants")
    assert [f["player"] for f in doc(state)["stack"]] == [1, 3]  # top last: seat 3 first
    assert doc(state)["stack"][0]["kinds"] == ["trader"] and doc(state)["stack"][0]["left"] == 2
    act(state, TRADER)
    assert state.current_player() == 1
    before = supply(state, 1)
    act(state, TRADER, TRADER)  # up to 2 traders, one decision each
    assert supply(state, 1) == (before[0] + 2, before[1])
    assert state.current_player() == 2
    before = track(state)[1]
    place = next(a for a in legal(state) if a.startswith("place trader"))
    act(state, place)
    assert track(state)[1] == before + 1 and state.current_player() == 2
    rng = random.Random(5)
    state = game.new_initial_state(5)
    for step in range(1500):  # it plays, round-trips and replays by action text
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
        if step % 25 == 0:
            assert game.state_from_json(state.to_json()).to_json() == state.to_json()


def test_triggered_tile_text_and_checks(tmp_path):
    """`hansa check` names an unknown trigger action, and the rule prints as written."""
    from hansa.compiler.nodes.expr import trigger_text

    assert trigger_text("another:income") == " when another player takes income"
    bad = HOUSE_TILES.replace("takes place", "takes plaec")
    spec = tmp_path / "bad"
    spec.mkdir()
    (spec / "house.hansa").write_text(bad, "utf-8")
    with pytest.raises(hansa.HansaError, match="unknown action 'plaec'.*place"):
        hansa.compile_game("two-stock-favour", 4, spec_dir=str(spec))


# ---- whole games: random play keeps the invariants; greedy takes tiles and ends normally
FAVOUR_CASES = [("bigbox-hanseatic-3p-favour", 3), ("bigbox-hanseatic-45p-favour", 4)]
FAVOUR_CASES += [("bigbox-hanseatic-45p-favour", 5)]


@pytest.mark.parametrize("name, players", FAVOUR_CASES)
def test_random_play_keeps_the_invariants_with_tiles_and_choices(name, players):
    """Pieces conserved, a legal decision in every position, an exact JSON round trip; with
    players who start with 3 markers, keep them and take a tile half the times one is offered,
    tiles are taken and markers chosen, and the tiles are never lost nor doubled."""
    from variant_support import play_checked

    game = hansa.load_game(name, players=players)
    seen = set()
    for seed in range(4):
        play_checked(game, seed, 1500)
        rng = random.Random(seed)
        data = game.new_initial_state(seed).to_dict()
        for p in range(players):  # three markers each from the supply, to afford tiles
            data["player_state"][p]["markers"]["unused"] = data["marker_supply"][:3]
            del data["marker_supply"][:3]
        state = game.state_from_json(data)
        while not state.is_terminal():
            actions = state.legal_actions()
            assert actions == sorted(actions)  # ids ascending (OpenSpiel; agents bisect them)
            names = [state.action_to_string(a) for a in actions]
            tiles = [a for a, n in zip(actions, names, strict=True) if n.startswith("take favour")]
            # markers kept, not used, so that players can afford tiles
            actions = [
                a for a, n in zip(actions, names, strict=True) if not n.startswith("use bonus")
            ] or actions
            if tiles and len(state.unused_markers(state.current_player())) < 3:
                actions = [a for a in actions if a not in tiles]  # wait for a choice of markers
                tiles = []
            action = rng.choice(tiles if tiles and rng.random() < 0.5 else actions)
            text = state.action_to_string(action)
            seen.update(
                kind
                for kind in ("take favour", "flip bonus", TRADER, MERCHANT)
                if text.startswith(kind)
            )
            state.apply_action(action)
            held = sum(len(state.favour_tiles_held(q)) for q in range(players))
            assert held + len(state.favour_tiles_face_up()) == players
    assert {"take favour", "flip bonus"} <= seen


@pytest.mark.parametrize("name, players", FAVOUR_CASES)
def test_greedy_takes_tiles_and_games_end_normally(name, players):
    """Greedy agents take tiles when they pay, answer every tile decision, and the games end by
    an end condition (not the decision bound) on many seeds."""
    from hansa.play.greedy import GreedyAgent

    game = hansa.load_game(name, players=players)
    taken = 0
    seen = set()
    for seed in range(10):
        state = game.new_initial_state(seed)
        agents = [GreedyAgent(seed * 7 + p) for p in range(players)]
        for _ in range(4000):
            if state.is_terminal():
                break
            action = agents[state.current_player()].step(state, state.legal_actions())
            text = state.action_to_string(action)
            taken += text.startswith("take favour")
            seen.update(kind for kind in ("flip bonus", TRADER, MERCHANT) if text.startswith(kind))
            state.apply_action(action)
        assert state.is_terminal()
    # markers whose use pays are used, so fewer turns start with the two unused a tile needs
    assert taken >= 3, taken
    assert seen & {TRADER, MERCHANT}  # a holder of the stock tile took pieces


def test_greedy_flips_the_markers_least_worth_keeping_and_takes_free_pieces(favour):
    """It keeps the markers whose use it found worth most (it tries each use on a copy at the
    turn decision: here +3 actions, while the others change nothing for it); it takes the
    offered piece."""
    from hansa.play.greedy import GreedyAgent

    unused = ["plus_3_actions", "move_tradesmen", "exchange_trading_posts"]
    state = with_favour(Position(favour).player(0, unused=unused).to_move(0))
    agent = GreedyAgent(0)
    agent.step(state, state.legal_actions())  # the turn decision: it tries its markers' uses
    act(state, TAKE.format("City PP"))
    choice = agent.step(state, state.legal_actions())
    assert state.action_to_string(choice) == FLIP.format("exchange_trading_posts", "move_tradesmen")
    offered = holder_position(favour)
    act(offered, "income: 1 traders, 0 merchants")
    choice = agent.step(offered, offered.legal_actions())
    assert state.action_to_string(choice) != DECLINE


def test_a_logged_favour_game_with_stock_choices_replays(capsys, tmp_path):
    """`hansa play --log` then `hansa replay`: the tiles, the holders' choices inside other
    players' turns and the marker flips replay by their texts."""
    from play_support import run_cli

    path = tmp_path / "favour.jsonl"
    code, _, err = run_cli(
        capsys,
        "play",
        "bigbox-hanseatic-3p-favour",
        "--players",
        "3",
        "--seed",
        "0",
        "--agents",
        "greedy,greedy,greedy",
        "--log",
        str(path),
    )
    assert code == 0, err
    text = path.read_text(encoding="utf-8")
    assert "take favour tile" in text and "from the general stock" in text
    code, out, err = run_cli(capsys, "replay", str(path))
    assert (code, err) == (0, "") and ": ok, " in out


def test_triggers_for_the_holder_itself_or_any_player():
    """`when you take ACTION` reacts to the holder's own action only; `when any player takes
    ACTION` to everyone's, the holder's included."""
    game = variant(
        'favour "Own purse" when you take income: gain 1 PP\n'
        'favour "Any purse" when any player takes income: gain 2 PP'
    )
    held = [["Own purse"], ["Any purse"], [], []]
    for mover, gains in ((0, [1, 2, 0, 0]), (1, [0, 2, 0, 0]), (2, [0, 2, 0, 0])):
        state = with_favour(Position(game).to_move(mover, actions_left=2), face_up=[], held=held)
        before = track(state)
        act(state, "income: 1 traders, 0 merchants")
        assert [a - b for a, b in zip(track(state), before, strict=True)] == gains
