"""The 2009 edition's 2-player variant (`original-hanseatic-2p`), played through the public API.

Source: seed 001 (the Argentum 2009 rule book, Greek; its text has no page numbers), the last
section, "Παιχνίδι δύο παικτών" (game for two players), cited by its phrases:
- "Το ταμπλό χωρίζεται σε περιοχές. Τα σύνορα είναι οι εμπορικοί δρόμοι και τέσσερις στρατιώτες"
  (the board is split into regions; the borders are the routes and four soldiers);
- "Οι παίκτες μπορούν να μετακινήσουν το πιόνι πάνω από δύο σύνορα ... πριν την πρώτη τους
  ενέργεια ή μετά την τελευταία, χωρίς κόστος" (move the pawn across up to two borders before the
  first action or after the last, free);
- "οποιαδήποτε άλλη στιγμή της σειράς τους, αλλά ξοδεύοντας έτσι μια ενέργειά τους" (at any other
  time of the turn, spending an action);
- "Εισαγωγή ..., Αφαίρεση ... και Δημιουργία Εμπορικού Δρόμου, μπορούν να εκτελεστούν μόνο όταν το
  πιόνι βρίσκεται στην περιοχή η οποία έχει ως σύνορο τον δρόμο" (Place, Displace and Create Route
  only when the pawn is in a region the route borders); "Δεν υπάρχουν περιορισμοί για την ενέργεια
  Μετακίνηση" (no restriction on Move);
- "ο ένας παίκτης τοποθετεί το πιόνι σε οποιαδήποτε περιοχή ... Ο άλλος παίκτης παίζει πρώτος" (one
  player places the pawn in any region; the other plays first).

Regions (numbered by the compiler; `hansa render original-hanseatic-2p` draws them) used below:
WEST = {Arnheim, Dortmund, Duisburg, Münster} (routes Arnheim–Duisburg, Arnheim–Münster,
Dortmund–Duisburg; the soldier Münster–Dortmund), SOUTH = {Dortmund, Minden, Münster, Paderborn}
(one border, the soldier, from WEST), NORTH_WEST = {Bremen, Minden, Münster, Osnabrück} (two
borders from WEST), MIDDLE = {Bremen, Hannover, Minden} (three borders from WEST).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hansa.compiler.board.regions import board_regions
from hansa.compiler.project import load_project
from hansa.compiler.rules.resolve import resolve
from scenario_support import Position, act, doc, legal, load, refuse, route_points, supply

import hansa

GAME = "original-hanseatic-2p"
SPEC = Path(__file__).resolve().parents[2] / "spec"
PAY = "move the pawn any distance (costs an action)"


@pytest.fixture(scope="module")
def two():
    return load(GAME, 2)


@pytest.fixture(scope="module")
def regions():
    project = load_project([SPEC])
    rules = resolve("original_2009_2p", project.rulesets)
    return board_regions(project.boards["hanseatic_3p"], rules.pawn.soldiers)


def region(regions, *cities: str) -> int:
    found = [r for r in range(regions.count) if set(regions.cities[r]) == set(cities)]
    assert len(found) == 1
    return found[0]


@pytest.fixture(scope="module")
def named(regions):
    """Region numbers and the names of the decisions moving the pawn there."""
    ids = {
        "WEST": region(regions, "Arnheim", "Dortmund", "Duisburg", "Münster"),
        "SOUTH": region(regions, "Dortmund", "Minden", "Münster", "Paderborn"),
        "NORTH_WEST": region(regions, "Bremen", "Minden", "Münster", "Osnabrück"),
        "MIDDLE": region(regions, "Bremen", "Hannover", "Minden"),
    }
    return {name: (r, f"pawn to {regions.label(r)}") for name, r in ids.items()}


def pawn(state) -> dict:
    return doc(state)["pawn"]


def turn(state) -> dict:
    return doc(state)["turn"]


def pawn_moves(state) -> list[str]:
    return [t for t in legal(state) if t.startswith("pawn to")]


def test_the_other_player_places_the_pawn_and_the_first_starts(two, regions, named):
    """'one player places the pawn in any region; the other player plays first'."""
    state = two.new_initial_state(seed=4)
    assert state.current_player() == 1
    assert legal(state) == [f"pawn to {regions.label(r)}" for r in range(regions.count)]
    assert pawn(state) == {"region": None, "free_move": "before_first_action"}
    west, to_west = named["WEST"]
    act(state, to_west)
    assert state.current_player() == 0
    assert turn(state)["actions_left"] == 2
    assert pawn(state) == {"region": west, "free_move": "before_first_action"}
    assert "end the turn" in legal(state)


def test_placing_outside_the_pawns_region_is_illegal(two, named):
    """'Place ... only when the pawn is in the region the route borders'."""
    west, _ = named["WEST"]
    state = Position(two).pawn_in(west).state()
    places = {t for t in legal(state) if t.startswith("place trader")}
    assert places == {
        f"place trader on {route} #{i}"
        for route, n in (("Arnheim–Duisburg", 3), ("Arnheim–Münster", 3), ("Dortmund–Duisburg", 2))
        for i in range(1, n + 1)
    }
    refuse(two, state, "place trader on Bremen–Hamburg #1")
    act(state, "place trader on Arnheim–Münster #2")
    assert route_points(state, "Arnheim", "Münster") == [None, "t0", None]


def test_displacing_needs_the_pawn_but_the_displaced_owner_does_not(two, named):
    """'Displace ... only when the pawn is in the region the route borders'. The displaced owner's
    piece goes to a route next to it wherever the pawn is (the book restricts the turn player's
    actions only; docs/two-player.md, Decision)."""
    west, _ = named["WEST"]
    pos = Position(two).pawn_in(west)
    pos.route("Dortmund", "Duisburg", "t1", "t1").route("Bremen", "Minden", "t1")
    state = pos.player(0, supply=(5, 0)).state()  # traders only: the cost is paid without asking
    refuse(two, state, "displace trader on Bremen–Minden #1")
    act(state, "displace trader on Dortmund–Duisburg #1")
    assert state.current_player() == 1
    assert "place the displaced piece on Dortmund–Paderborn #1" in legal(state)  # not in WEST


def test_create_route_only_on_a_route_bordering_the_pawn(two, named):
    """'Create Route only when the pawn is in the region the route borders'."""
    west, _ = named["WEST"]
    pos = Position(two).pawn_in(west)
    pos.route("Arnheim", "Münster", "t0", "t0", "t0").route("Bremen", "Hannover", "t0", "t0", "t0")
    pos.player(0, supply=(0, 1))
    state = pos.state()
    creates = [t for t in legal(state) if t.startswith("create route")]
    assert creates == ["create route Arnheim–Münster"]
    refuse(two, state, "create route Bremen–Hannover")


def test_free_move_across_up_to_two_borders_before_the_first_action(two, named):
    """'move the pawn across up to two borders ... before the first action ..., free'."""
    west, _ = named["WEST"]
    south, to_south = named["SOUTH"]
    _, to_north_west = named["NORTH_WEST"]
    _, to_middle = named["MIDDLE"]
    state = Position(two).pawn_in(west).state()
    free = pawn_moves(state)
    assert to_south in free and to_north_west in free  # one and two borders
    assert to_middle not in free  # three borders: only the paid move
    assert PAY in legal(state)
    act(state, to_south)
    assert turn(state)["actions_left"] == 2  # free
    assert pawn(state) == {"region": south, "free_move": "used"}
    assert pawn_moves(state) == []  # one free move per turn
    assert "place trader on Dortmund–Paderborn #1" in legal(state)  # the new region's routes
    assert "place trader on Arnheim–Duisburg #1" not in legal(state)


def test_a_paid_move_mid_turn_costs_an_action_and_goes_anywhere(two, named):
    """'at any other time of the turn, spending one of their actions'."""
    west, _ = named["WEST"]
    middle, to_middle = named["MIDDLE"]
    state = Position(two).pawn_in(west).state()
    act(state, "place trader on Arnheim–Münster #1")
    assert turn(state)["actions_left"] == 1
    act(state, PAY)
    assert state.current_player() == 0 and turn(state)["actions_left"] == 0
    assert to_middle in legal(state)  # three borders away
    act(state, to_middle)
    assert pawn(state) == {"region": middle, "free_move": "after_last_action"}
    # No actions left, but the free move after the last action is still open: the turn waits.
    assert state.current_player() == 0
    assert "end the turn" in legal(state) and pawn_moves(state)
    act(state, "end the turn")
    assert state.current_player() == 1
    assert pawn(state) == {"region": middle, "free_move": "before_first_action"}


def test_the_free_move_after_the_last_action_ends_the_turn(two, named):
    """'... or after the last (action), free': a free move after acting makes that action the
    last one (docs/two-player.md, Decision), so the turn passes."""
    west, _ = named["WEST"]
    south, to_south = named["SOUTH"]
    state = Position(two).pawn_in(west).state()
    act(state, "place trader on Arnheim–Münster #1")
    assert to_south in pawn_moves(state)  # free, and also reachable by paying
    act(state, to_south)
    assert state.current_player() == 1
    assert pawn(state) == {"region": south, "free_move": "before_first_action"}
    assert turn(state)["actions_left"] == 2


def test_paying_before_the_first_action_keeps_the_free_move(two, named):
    """A paid move is an action at any time (Decision: also to a region the free move reaches);
    the free move then stays open, as one after the last action."""
    west, to_west = named["WEST"]
    _south, to_south = named["SOUTH"]
    middle, to_middle = named["MIDDLE"]
    state = Position(two).pawn_in(west).state()
    act(state, PAY)
    assert legal(state) == pawn_moves(state) and {to_south, to_middle} <= set(legal(state))
    assert "pawn to outer region" in legal(state) and len(legal(state)) == 10  # all but WEST
    act(state, to_middle)
    assert turn(state)["actions_left"] == 1
    assert pawn(state) == {"region": middle, "free_move": "after_last_action"}
    act(state, "place trader on Bremen–Hannover #1")
    assert state.current_player() == 0  # no actions left, but the free move is open
    assert to_south in pawn_moves(state)  # two borders from MIDDLE
    assert to_west not in pawn_moves(state)  # three


def test_move_ignores_the_pawn(two, named):
    """'There are no restrictions for the Move action'."""
    west, _ = named["WEST"]
    pos = Position(two).pawn_in(west).route("Bremen", "Hamburg", "t0")
    state = pos.state()
    act(state, "move own tradesmen", "pick up the piece on Bremen–Hamburg #1")
    act(state, "put the held piece on Hannover–Minden #2")
    assert route_points(state, "Hannover", "Minden") == [None, "t0", None]
    assert turn(state)["actions_left"] == 1


def test_bonus_markers_ignore_the_pawn(two, named):
    """The book restricts three actions; a bonus marker is no action (docs/two-player.md)."""
    west, _ = named["WEST"]
    pos = Position(two).pawn_in(west).route("Bremen", "Hamburg", "t1", "t1")
    state = pos.player(0, unused=["remove_tradesmen"]).state()
    before = supply(state, 1)
    act(state, "use bonus marker remove_tradesmen", "remove the piece on Bremen–Hamburg #1")
    act(state, "stop removing")
    assert supply(state, 1) == (before[0] + 1, before[1])


def test_pawn_json_round_trip_and_errors(two, named):
    west, _ = named["WEST"]
    state = Position(two).pawn_in(west, "after_last_action").to_move(0, 1).state()
    text = state.to_json()
    assert two.state_from_json(text).to_json() == text
    bad = Position(two).pawn_in(99)
    with pytest.raises(hansa.HansaError, match="pawn.region"):
        bad.state()
    with pytest.raises(hansa.HansaError, match="unplaced only at setup"):
        Position(two).pawn_in(None).state()
    with pytest.raises(hansa.HansaError, match="pawn.free_move"):
        Position(two).pawn_in(west, "twice").state()


def test_make_position_sets_the_pawn(two, named):
    from hansa.play.positions import make_position

    west, _ = named["WEST"]
    edits = {
        "pawn": {"region": west, "free_move": "used"},
        "turn": {"player": 0, "actions_left": 2},
    }
    state = make_position(two, edits)
    assert pawn(state) == {"region": west, "free_move": "used"}
    assert state.current_player() == 0
    assert pawn_moves(state) == [] and PAY in legal(state)


def test_games_without_the_pawn_have_no_pawn_field():
    state = load("original-hanseatic-23p", 3).new_initial_state(seed=1)
    assert "pawn" not in doc(state)
    assert not [t for t in legal(state) if "pawn" in t]


def test_greedy_brings_the_pawn_to_the_route_it_can_create(two, named, regions):
    """The greedy agent moves the pawn for free when the route is near, and pays when it is far."""
    from hansa.play.greedy import GreedyAgent

    west, _ = named["WEST"]
    south, to_south = named["SOUTH"]
    _middle, to_middle = named["MIDDLE"]
    near = Position(two).pawn_in(west).route("Dortmund", "Paderborn", "t0", "t0", "t0")
    state = near.player(0, supply=(3, 1)).state()
    agent = GreedyAgent(1)
    assert state.action_to_string(agent.step(state, state.legal_actions())) == to_south
    far = Position(two).pawn_in(west).route("Bremen", "Hannover", "t0", "t0", "t0")
    state = far.player(0, supply=(3, 1), actions=1).state()  # 3 actions
    act(state, "place trader on Arnheim–Münster #1")  # a free move would now end the turn
    assert state.action_to_string(agent.step(state, state.legal_actions())) == PAY
    act(state, PAY)
    bremen_hannover = [r.cities for r in load_project([SPEC]).boards["hanseatic_3p"].routes].index(
        ("Bremen", "Hannover")
    )
    bordering = {f"pawn to {regions.label(g)}" for g in regions.route_regions[bremen_hannover]}
    assert to_middle in bordering
    assert state.action_to_string(agent.step(state, state.legal_actions())) in bordering


@pytest.mark.parametrize("free_borders", [0, 1, 3])
def test_a_house_rule_changes_the_free_move(tmp_path, free_borders):
    """`free_borders N` compiles and plays: N = 0 leaves only paid moves (and no decision waits for
    a free move after the last action)."""
    from hansa.play.agents import RandomAgent

    spec = tmp_path / "duel.hansa"
    spec.write_text(
        f"rules duel extends original_2009_2p {{\n    pawn free_borders {free_borders}\n}}\n"
        "game duel-2p = duel on hanseatic_3p players 2\n",
        encoding="utf-8",
    )
    game = hansa.compile_game(str(spec), 2, spec_dir=str(SPEC))
    state = game.new_initial_state(seed=1)
    act(state, legal(state)[1])  # the setup placement
    free = pawn_moves(state)
    assert len(free) == {0: 0, 1: 3, 3: 10}[free_borders]  # region 1 has 3 neighbours
    agent = RandomAgent(3)
    for _ in range(400):
        if state.is_terminal():
            break
        state.apply_action(agent.step(state, state.legal_actions()))
    text = state.to_json()
    assert game.state_from_json(text).to_json() == text
