"""The greedy policy in C (compiler/targets/native/templates/greedy.c.j2): on a native state a
GreedyAgent's C twin decides, and it decides as the Python policy does on the Python state,
decision for decision, in every family of games (markers tried on copies, step-3 choices checked
against the score, Emperor's Favour tiles, the 2-player pawn, countries, permanent markers,
mission cards, a draw-three-keep-one house rule, forbids); a whole greedy game in one call
(`greedy_playout`) is the same game; the C winners and the C redraw of hidden information are
the Python backend's."""

from __future__ import annotations

import random

import pytest
from hansa.play.differential import verify
from hansa.play.greedy import GreedyAgent, native_playout
from hansa.play.mcts import MCTSAgent
from play_support import needs_c_compiler

import hansa

pytestmark = needs_c_compiler

# (game, players, seeds): one family of rules each; the seeds are whole greedy games
FAMILIES = [
    ("bigbox-hanseatic-45p", 4, (3,)),
    ("bigbox-hanseatic-3p-missions-favour", 3, (1,)),
    ("bigbox-britannia-45p", 5, (2,)),
    ("bigbox-eastern", 3, (4,)),
    ("original-hanseatic-2p", 2, (5,)),
    ("draw-three-hanseatic-45p", 4, (6,)),
    ("no-bullying-hanseatic-45p", 4, (7,)),
    ("guild-charter-hanseatic-45p", 5, (8,)),
]


def _games(name: str, players: int):
    native = hansa.load_game(name, players=players, backend="native")
    return hansa.Game(native.module, players), native


def _greedy_game(name: str, players: int, seed: int) -> tuple[int, list[int]]:
    """Play one greedy game on both backends side by side: (decisions, returns); fails at the
    first decision the two policies make differently."""
    python, native = _games(name, players)
    py, nat = python.new_initial_state(seed), native.new_initial_state(seed)
    on_python = [GreedyAgent(seed * 16 + p) for p in range(players)]
    on_native = [GreedyAgent(seed * 16 + p) for p in range(players)]
    decisions = 0
    while not py.is_terminal():
        legal = py.legal_actions()
        assert nat.legal_actions() == legal
        mine = on_python[py.current_player()].step(py, legal)
        theirs = on_native[nat.current_player()].step(nat, legal)
        assert theirs == mine, f"{name} seed {seed}, decision {decisions}"
        py.apply_action(mine)
        nat.apply_action(theirs)
        decisions += 1
    assert nat.is_terminal()
    assert nat.returns() == py.returns()
    return decisions, py.returns()


@pytest.mark.parametrize("name,players,seeds", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_the_c_policy_decides_as_the_python_policy(name, players, seeds):
    for seed in seeds:
        decisions, returns = _greedy_game(name, players, seed)
        assert decisions > 100 and max(returns) > 10  # a real game, played to its end


def test_a_greedy_playout_is_the_game_the_agents_play_step_by_step():
    """One call plays the whole game: the decisions, the end position and each agent's
    generator afterwards are those of the agents deciding one by one."""
    native = hansa.load_game("bigbox-hanseatic-45p-favour", players=4, backend="native")
    one_by_one, in_one_call = native.new_initial_state(11), native.new_initial_state(11)
    stepping = [GreedyAgent(p) for p in range(4)]
    playing = [GreedyAgent(p) for p in range(4)]
    made = 0
    while not one_by_one.is_terminal():
        legal = one_by_one.legal_actions()
        one_by_one.apply_action(stepping[one_by_one.current_player()].step(one_by_one, legal))
        made += 1
    assert native_playout(in_one_call, playing, 10**6) == made
    assert in_one_call == one_by_one
    for a, b in zip(stepping, playing, strict=True):
        assert a.native_twin(native.ext).words() == b.native_twin(native.ext).words()


def test_a_greedy_playout_stops_at_its_cap_and_leaves_python_states_alone():
    native = hansa.load_game("bigbox-hanseatic-45p", players=4, backend="native")
    state = native.new_initial_state(2)
    agents = [GreedyAgent(p) for p in range(4)]
    assert native_playout(state, agents, 25) == 25
    assert not state.is_terminal()
    python = hansa.load_game("bigbox-hanseatic-45p", players=4).new_initial_state(2)
    assert native_playout(python, agents, 25) is None
    assert python == hansa.load_game("bigbox-hanseatic-45p", players=4).new_initial_state(2)


def test_verify_compares_the_greedy_decisions_of_both_policies():
    python, native = _games("bigbox-hanseatic-3p-missions", 3)
    result = verify(python, native, 2, seed=0, policy="greedy")
    assert result.divergence is None and result.games == 2 and result.decisions > 200


def test_an_agent_moving_between_backends_carries_its_generator():
    """An agent plays one backend at a time: back on a Python state, it draws on where its C
    twin stopped, with nothing of the native game remembered."""
    native = hansa.load_game("bigbox-hanseatic-45p", players=4, backend="native")
    mover = GreedyAgent(9)
    state = native.new_initial_state(3)
    for _ in range(40):
        state.apply_action(mover.step(state, state.legal_actions()))
    words = mover.native_twin(native.ext).words()
    position = state.to_python()
    fresh = GreedyAgent(0)
    fresh.rng.setstate((3, words, None))
    legal = position.legal_actions()
    assert mover.step(position, legal) == fresh.step(position.clone(), legal)
    assert mover.rng.getstate() == fresh.rng.getstate()
    assert mover._native is None


def test_the_c_policy_refuses_what_is_not_a_position_of_its_game():
    native = hansa.load_game("bigbox-hanseatic-45p", players=4, backend="native")
    state = native.new_initial_state(0)
    twin = GreedyAgent(0).native_twin(native.ext)
    with pytest.raises(TypeError):
        twin.step(hansa.load_game("bigbox-hanseatic-45p", players=4).new_initial_state(0), [0])
    with pytest.raises(ValueError):
        twin.step(state, [])
    with pytest.raises(ValueError):
        twin.step(state, [10**6])
    with pytest.raises(ValueError):
        native.ext.Greedy((1, 2, 3))
    with pytest.raises(ValueError):
        native.ext.greedy_playout(state, (twin,), 10)  # one agent per player
    assert state == native.new_initial_state(0)  # nothing was changed


def test_native_winners_follow_the_tie_break_chain():
    """At setup every player has 0 PP: the chain decides. In the Big Box nobody differs on its
    steps and the victory is shared; the stock tie-break house rule's quantity in words (fewest
    pieces in the general stock) then picks the seats with the smallest stock, in C as in
    Python."""
    for name in ("bigbox-hanseatic-45p", "stock-tiebreak-hanseatic-45p"):
        native = hansa.load_game(name, players=4, backend="native")
        state = native.new_initial_state(0)
        assert state.winners() == state.to_python().winners()
    shared = hansa.load_game("bigbox-hanseatic-45p", players=4, backend="native")
    stock = hansa.load_game("stock-tiebreak-hanseatic-45p", players=4, backend="native")
    assert shared.new_initial_state(0).winners() == [0, 1, 2, 3]
    assert stock.new_initial_state(0).winners() != [0, 1, 2, 3]


@pytest.mark.parametrize(
    "name,players",
    [("bigbox-hanseatic-45p-missions", 4), ("draw-three-hanseatic-45p", 4)],
)
def test_native_resampling_draws_what_the_python_backend_draws(name, players):
    """The face-down markers, the markers others drew and hold, and others' mission cards are
    redrawn in C from the caller's generator exactly as on the Python backend, which is left
    in the same state."""
    native = hansa.load_game(name, players=players, backend="native")
    rng = random.Random(1)
    state = native.new_initial_state(1)
    compared = 0
    while not state.is_terminal() and compared < 60:
        state.apply_action(rng.choice(state.legal_actions()))
        for observer in (None, 0, players - 1):
            mine, theirs = state.clone(), state.to_python()
            a, b = random.Random(compared), random.Random(compared)
            mine.resample_hidden(a, observer)
            theirs.resample_hidden(b, observer)
            assert mine.to_python().to_dict() == theirs.to_dict()
            assert a.getstate() == b.getstate()
            compared += 1


def test_a_native_search_chooses_as_the_python_search():
    """MCTS rollouts in one C call choose what the Python rollouts choose (the same seed)."""
    python = hansa.load_game("bigbox-hanseatic-3p-missions", players=3)
    state = python.new_initial_state(4)
    for _ in range(30):
        state.apply_action(GreedyAgent(0).step(state, state.legal_actions()))
    choices = []
    for backend in ("python", "native"):
        agent = MCTSAgent(seed=2, iterations=12, backend=backend, reuse=True, stop=True)
        choices.append(agent.step(state.clone(), state.legal_actions()))
    assert choices[0] == choices[1]


@pytest.mark.parametrize(
    "name,players",
    [
        ("bigbox-hanseatic-45p-missions-favour", 5),
        ("bigbox-eastern", 5),
        ("bigbox-britannia-45p", 5),
        ("original-hanseatic-2p", 2),
    ],
)
def test_every_position_of_greedy_games_loads_natively(name, players):
    """A search copies the real position into a native state at each of its decisions: every
    position of a greedy game with the most players loads (a move frame holding the fifth
    player's pieces, codes up to 9; a special prestige point taken by such a merchant)."""
    native = hansa.load_game(name, players=players, backend="native")
    python = hansa.Game(native.module, players)
    for seed in range(2):
        state = python.new_initial_state(seed)
        agents = [GreedyAgent(seed * 8 + p) for p in range(players)]
        while not state.is_terminal():
            copy = native.from_python(state)
            assert copy.to_python().to_dict() == state.to_dict()
            state.apply_action(agents[state.current_player()].step(state, state.legal_actions()))


def test_a_move_holding_the_fifth_players_pieces_loads_natively():
    native = hansa.load_game("bigbox-hanseatic-45p", players=5, backend="native")
    python = hansa.Game(native.module, 5)
    rng = random.Random(3)
    state = python.new_initial_state(3)
    held = 0
    while not state.is_terminal():
        if state.held_pieces():
            assert native.from_python(state).held_pieces() == state.held_pieces()
        held = max([held, *state.held_pieces()])
        state.apply_action(rng.choice(state.legal_actions()))
    assert held >= 8  # the fifth player's pieces were held by a move


def test_bench_measures_the_greedy_policy_on_both_backends(capsys):
    """`hansa bench --backend python,native` measures greedy decisions through the API on each
    backend and whole greedy games in one call natively, as ratios in one run."""
    import json

    from play_support import run_cli

    code, out, _err = run_cli(
        capsys, "bench", "bigbox-hanseatic-3p", "--backend", "python,native", "--seconds", "0.2",
        "--json",
    )  # fmt: skip
    assert code == 0
    figures = json.loads(out)[0]
    native = figures["backends"]["native"]
    assert native["greedy_decisions_per_second_cpu"] > 0
    assert native["greedy_playout_decisions_per_second_cpu"] > 0
    assert figures["greedy_ratio"] > 1 and figures["greedy_playout_ratio"] > 1
