"""The native backend (compiler/targets/native, hansa/native.py): built with the system C
compiler, checked decision for decision against the Python backend (docs/native.md)."""

from __future__ import annotations

import random
import shutil

import pytest
from hansa.compiler.errors import HansaError
from hansa.play.differential import compare_game, verify

import hansa
from hansa.native import model_of, native_game

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None and shutil.which("gcc") is None,
    reason="no C compiler: the native backend cannot be built here",
)

# Every built game the native target supports (the others are refused, test below).
NATIVE_GAMES = [
    "bigbox-hanseatic-3p",
    "bigbox-hanseatic-3p-missions",
    "bigbox-hanseatic-45p-missions",
    "guild-charter-hanseatic-45p",
    "original-hanseatic-23p",
    "original-hanseatic-2p",
    "original-hanseatic-45p",
    "bigbox-hanseatic-45p",
    "large-hamburg-hanseatic-45p",
    "harbour-master-hanseatic-45p",
    "last-seat-book-hanseatic-45p",
    "no-bullying-hanseatic-45p",
    "no-compensation-hanseatic-45p",
    "short-hanseatic-45p",
    "stock-tiebreak-hanseatic-45p",
    "three-full-abilities-hanseatic-45p",
]
# Per built game: greedy agents playing a random decision now and then (short games that use
# every rule), plus one uniformly random game and one random by action kind (~20-40k decisions
# each, mostly moving pieces); `hansa verify` cycles through the three policies.
GREEDY_GAMES = 200


@pytest.fixture(scope="module")
def base():
    return hansa.load_game("bigbox-hanseatic-45p", 4, backend="native")


@pytest.mark.parametrize("name", NATIVE_GAMES)
def test_both_backends_agree_on_every_decision_of_seeded_random_games(name):
    native = hansa.load_game(name, backend="native")
    python = hansa.Game(native.module, native.players)
    result = verify(python, native, GREEDY_GAMES, seed=1000, policy="greedy")
    assert result.divergence is None, result.divergence.report()
    assert result.games == GREEDY_GAMES and result.decisions > 200 * GREEDY_GAMES
    for policy in ("uniform", "kinds"):
        result = verify(python, native, 1, seed=7, policy=policy)
        assert result.divergence is None, result.divergence.report()
        assert result.decisions > 5_000


def test_the_setup_draw_reproduces_the_python_random_module(base):
    """The start markers and the face-down supply come from CPython's Mersenne Twister."""
    python = hansa.Game(base.module, 4)
    for seed in list(range(150)) + [2**32 + 5, 2**40 + 17, 12345678901]:
        assert base.new_initial_state(seed).to_dict() == python.new_initial_state(seed).to_dict()


def test_api_is_the_python_backends(base):
    python = hansa.Game(base.module, 4)
    state, twin = base.new_initial_state(3), python.new_initial_state(3)
    rng = random.Random(3)
    for _ in range(300):
        action = rng.choice(twin.legal_actions())
        assert state.action_to_string(action) == twin.action_to_string(action)
        state.apply_action(action)
        twin.apply_action(action)
    assert state.current_player() == twin.current_player()
    assert state.score_breakdown() == twin.score_breakdown()
    assert state.to_json() == twin.to_json()
    assert state.observation(1) == twin.observation(1)
    assert list(state.observation_tensor(0)) == list(twin.observation_tensor(0))
    assert state.legal_actions_mask() == twin.legal_actions_mask()
    loaded = base.state_from_json(twin.to_json())
    assert loaded == state and loaded.legal_actions() == twin.legal_actions()


def test_an_illegal_action_raises_the_python_message_and_changes_nothing(base):
    python = hansa.Game(base.module, 4)
    state, twin = base.new_initial_state(5), python.new_initial_state(5)
    before = state.to_json()
    for bad in (999_999, -1, True, "x", 570):
        with pytest.raises(HansaError) as native_error:
            state.apply_action(bad)
        with pytest.raises(HansaError) as python_error:
            twin.apply_action(bad)
        assert native_error.value.message == python_error.value.message
    assert state.to_json() == before


def test_a_clone_is_independent(base):
    state = base.new_initial_state(9)
    base.random_steps(state, 200, seed=1)
    copy = state.clone()
    assert copy == state
    base.random_steps(copy, 50, seed=2)
    assert copy != state
    assert base.state_from_json(state.to_json()) == state


def test_native_playouts_end_games_with_their_results(base):
    results = base.playouts(3, seed=4)
    assert len(results) == 3
    for result in results:
        assert result["length"] > 100 and result["end"]
        assert set(result["end"]) <= {"track_pp", "completed_cities", "marker_supply_empty"}
        assert len(result["returns"]) == 4 and max(result["returns"]) > 0
    assert base.playouts(3, seed=4) == results  # seeded: the same games again
    with pytest.raises(HansaError, match="policy"):
        base.playouts(1, policy="greedy")


def test_random_steps_leave_a_position_the_python_backend_accepts(base):
    """Native random play (the rollout loop) reaches positions whose JSON the checked loader of
    the Python backend reads back unchanged, and the Python rule step agrees from there."""
    python = hansa.Game(base.module, 4)
    state = base.new_initial_state(11)
    for seed in range(8):
        base.random_steps(state, 1500, seed=seed)
        twin = python.state_from_json(state.to_json())
        assert twin.to_json() == state.to_json()
        assert twin.legal_actions() == state.legal_actions()
        if state.is_terminal():
            assert twin.returns() == state.returns() and twin.winners() == state.winners()
            break


def test_a_game_the_native_target_cannot_play_is_refused_naming_the_construct():
    module = hansa.load_game("bigbox-britannia-45p").module
    with pytest.raises(HansaError) as error:
        native_game(model_of("bigbox-britannia-45p", "spec"), module)
    assert "cannot be built natively" in error.value.message
    assert "countries" in error.value.message and "britannia_45p.hansa" in error.value.message
    assert hansa.load_game("bigbox-britannia-45p").new_initial_state(0).legal_actions()


def test_without_a_c_compiler_one_clear_message_and_python_still_plays(monkeypatch, tmp_path):
    monkeypatch.setenv("HANSA_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CC", raising=False)
    from hansa.compiler.targets.native import build

    monkeypatch.setattr(build, "_LOADED", {})
    with pytest.raises(HansaError, match="needs a C compiler"):
        hansa.load_game("bigbox-hanseatic-3p", backend="native")
    assert not list(tmp_path.iterdir())
    assert hansa.load_game("bigbox-hanseatic-3p").new_initial_state(0).legal_actions()


def test_a_divergence_is_reported_with_the_decision_and_both_sides(base):
    python = hansa.Game(base.module, 4)

    class Shifted:  # a "backend" whose setup draws another seed's markers
        module = base.module

        def new_initial_state(self, seed):
            return base.new_initial_state(seed + 1)

    decisions, divergence = compare_game(python, Shifted(), seed=0)
    assert divergence is not None and divergence.decision == 0
    text = divergence.report()
    assert "decision 0" in text and "python:" in text and "native:" in text


def test_hansa_verify_command(capsys):
    from hansa.cli import main

    assert main(["verify", "bigbox-hanseatic-3p", "-n", "1", "--seed", "7"]) == 0
    assert "1 games" in capsys.readouterr().out


def test_numpy_integers_are_actions(base):
    numpy = pytest.importorskip("numpy")
    state = base.new_initial_state(2)
    action = state.legal_actions()[-1]
    state.apply_action(numpy.int64(action))
    twin = hansa.Game(base.module, 4).new_initial_state(2)
    twin.apply_action(action)
    assert state.to_json() == twin.to_json()


def test_the_rl_adapters_give_the_same_episodes_on_both_backends():
    """`backend="native"` in the Gymnasium and PettingZoo adapters: the same seeds and actions
    give the same observations, masks and rewards as the Python backend."""
    numpy = pytest.importorskip("numpy")
    gym = pytest.importorskip("hansa.rl.gymnasium")
    pz = pytest.importorskip("hansa.rl.pettingzoo")
    envs = [gym.HansaGymEnv("bigbox-hanseatic-3p", seat=0, backend=b) for b in ("python", "native")]
    observations = [env.reset(seed=5)[0] for env in envs]
    rng = random.Random(5)
    for _ in range(25):
        assert (observations[0]["observation"] == observations[1]["observation"]).all()
        assert (observations[0]["action_mask"] == observations[1]["action_mask"]).all()
        action = rng.choice(list(numpy.flatnonzero(observations[0]["action_mask"])))
        steps = [env.step(action) for env in envs]
        observations = [step[0] for step in steps]
        assert steps[0][1:4] == steps[1][1:4]
        if steps[0][2]:
            break
    pairs = [pz.env("bigbox-hanseatic-3p", backend=b) for b in ("python", "native")]
    for env in pairs:
        env.reset(seed=3)
    for _ in range(20):
        seen = [env.observe(env.agent_selection) for env in pairs]
        assert (seen[0]["observation"] == seen[1]["observation"]).all()
        action = rng.choice(list(numpy.flatnonzero(seen[0]["action_mask"])))
        for env in pairs:
            env.step(action)
        assert pairs[0].rewards == pairs[1].rewards


def test_agents_play_the_same_games_on_both_backends(base):
    """The greedy agent and the search agent, given native states, decide as on Python states."""
    from hansa.play.greedy import GreedyAgent
    from hansa.play.mcts import MCTSAgent

    python = hansa.Game(base.module, 4)
    for make in (lambda p: GreedyAgent(p), lambda p: MCTSAgent(p, iterations=4, rollout="random")):
        states = [python.new_initial_state(21), base.new_initial_state(21)]
        agents = [[make(p) for p in range(4)] for _ in states]
        for _ in range(40 if isinstance(agents[0][0], GreedyAgent) else 2):
            chosen = [
                agents[i][s.current_player()].step(s, s.legal_actions())
                for i, s in enumerate(states)
            ]
            assert chosen[0] == chosen[1]
            for s in states:
                s.apply_action(chosen[0])
        assert states[0].to_json() == states[1].to_json()


def test_a_vector_of_games_steps_like_single_states(base):
    numpy = pytest.importorskip("numpy")
    vector = base.vector(3, seed=40)
    singles = [base.new_initial_state(40 + i) for i in range(3)]
    rng = random.Random(1)
    for _ in range(400):
        masks = vector.masks()
        for i, state in enumerate(singles):
            assert list(numpy.flatnonzero(masks[i])) == state.legal_actions()
        actions = [rng.choice(s.legal_actions()) for s in singles]
        done, returns = vector.step(actions)
        for i, state in enumerate(singles):
            state.apply_action(actions[i])
            assert bool(done[i]) == state.is_terminal()
        assert vector.current_players() == [s.current_player() for s in singles]
        assert vector.state(1) == singles[1]
    with pytest.raises(HansaError, match="illegal action"):
        vector.step([999_999] * 3)
    assert vector.state(1) == singles[1]


def test_a_finished_game_of_the_vector_reports_its_returns_and_starts_again(base):
    pytest.importorskip("numpy")
    vector = base.vector(1, seed=8)
    single = base.new_initial_state(8)
    rng = random.Random(8)
    while True:
        action = rng.choice(single.legal_actions())
        single.apply_action(action)
        done, returns = vector.step([action])
        if done[0]:
            break
    assert single.is_terminal() and returns[0] == single.returns()
    assert vector.state(0) == base.new_initial_state(9)


def test_a_position_that_does_not_fit_the_native_state_is_one_clear_error(base):
    """The Python loader bounds a move decision's picks by the Book; a position built in code
    past that bound is refused by the native loader too, with one HansaError."""
    python = hansa.Game(base.module, 4)
    state = python.new_initial_state(1)
    state.apply_action(next(a for a in state.legal_actions() if a >= base.module.A_PLACE))
    state.apply_action(base.module.A_MOVE)
    frame = list(state.stack[0])
    frame[3] = 60  # 60 picks to come
    state.stack[0] = tuple(frame)
    with pytest.raises(HansaError, match="does not fit the native state"):
        base.from_python(state)
