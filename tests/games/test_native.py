"""The native backend (compiler/targets/native, hansa/native.py): built with the system C
compiler, checked decision for decision against the Python backend (docs/native.md)."""

from __future__ import annotations

import json
import os
import random
import shutil

import pytest
from hansa.compiler.errors import HansaError
from hansa.play.differential import compare_from, compare_game, verify
from play_support import needs_c_compiler
from playthrough_support import PLAYTHROUGHS as PLAYTHROUGH_FILES
from playthrough_support import first_mismatch, module_digest
from playthrough_support import play as playthrough

import hansa
from hansa.native import installed_spec, model_of, native_game

pytestmark = needs_c_compiler

# Every built game the native target supports (the others are refused, test below).
NATIVE_GAMES = [
    "bigbox-britannia-3p",
    "bigbox-britannia-45p",
    "bigbox-eastern",
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
    "catch-up-hanseatic-45p",
    "city-bonus-hanseatic-45p",
    "draw-three-hanseatic-45p",
    "last-round-hanseatic-45p",
    "shared-control-hanseatic-45p",
    "first-link-hanseatic-45p",  # places, networks and per-player state in words (#33)
    "hinterland-hanseatic-45p",
    "merchant-once-hanseatic-45p",
    "catch-up-order-hanseatic-45p",  # a turn order rule (#33)
    "bigbox-hanseatic-3p-favour",
    "bigbox-hanseatic-45p-favour",
    "bigbox-hanseatic-3p-missions-favour",
    "bigbox-hanseatic-45p-missions-favour",
]
# Per built game: greedy agents playing a random decision now and then (short games that use
# every rule), plus one uniformly random game and one random by action kind (~20-40k decisions
# each, mostly moving pieces); `hansa verify` cycles through the three policies, for as many
# games as one asks (the suite keeps to what fits CI's time: 30 games × 50 here).
GREEDY_GAMES = 50
# One game of each family plays both backends side by side, comparing everything after every
# decision (rule counters and observation tensors too); every game, these included, is played
# on the native backend alone against the Python backend's recorded playthroughs of the same
# games (tests/playthrough_support.py): playing the Python side again each run adds nothing the
# record does not hold, and cost five minutes.
LIVE_GAMES = [
    "bigbox-hanseatic-45p",  # the Big Box
    "bigbox-britannia-45p",  # Britannia's board
    "bigbox-eastern",  # the Eastern board
    "original-hanseatic-2p",  # the 2009 edition, its 2-player variant and pawn
    "bigbox-hanseatic-45p-missions-favour",  # both modules
    "last-round-hanseatic-45p",  # a house rule in words (end timing)
]
PLAYTHROUGHS = [("greedy", 1000 + i) for i in range(GREEDY_GAMES)] + [
    ("uniform", 7),
    ("kinds", 7),
]


@pytest.fixture(scope="module")
def base():
    return hansa.load_game("bigbox-hanseatic-45p", 4, backend="native")


@pytest.mark.parametrize("name", LIVE_GAMES)
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


@pytest.mark.parametrize("name", NATIVE_GAMES)
def test_the_native_backend_replays_the_python_backends_recorded_playthroughs(name):
    """The games of the live test above, for every game: played on the native backend alone and
    compared with the Python backend's recorded playthroughs (tests/golden/playthroughs/)."""
    native = hansa.load_game(name, backend="native")
    path = PLAYTHROUGH_FILES / f"{name}.json"
    if os.environ.get("HANSA_REGEN_GOLDEN"):
        python = hansa.Game(native.module, native.players)
        record = {
            "game": name,
            "module_sha256": module_digest(native.module),
            "playthroughs": [playthrough(python, seed, policy) for policy, seed in PLAYTHROUGHS],
        }
        path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    assert path.exists(), f"no recorded playthroughs for {name}: run with HANSA_REGEN_GOLDEN=1"
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["module_sha256"] == module_digest(native.module), (
        f"{name}'s rule module changed since its playthroughs were recorded: record them again "
        "with HANSA_REGEN_GOLDEN=1 (tests/playthrough_support.py)"
    )
    assert [(p["policy"], p["seed"]) for p in record["playthroughs"]] == PLAYTHROUGHS
    for recorded in record["playthroughs"]:
        replayed = playthrough(native, recorded["seed"], recorded["policy"])
        assert first_mismatch(recorded, replayed) is None, first_mismatch(recorded, replayed)
    greedy = record["playthroughs"][:GREEDY_GAMES]
    assert sum(p["decisions"] for p in greedy) > 200 * GREEDY_GAMES
    assert all(p["decisions"] > 5_000 for p in record["playthroughs"][GREEDY_GAMES:])


def test_a_native_game_that_leaves_its_recorded_playthrough_says_where(base):
    python = hansa.Game(base.module, base.players)
    recorded = playthrough(python, 7, "kinds")
    other = playthrough(base, 8, "kinds")
    assert "before decision 0" in first_mismatch(recorded, other)
    assert first_mismatch(recorded, playthrough(base, 7, "kinds")) is None


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


def test_the_state_crosses_between_backends_field_by_named_field(base):
    """Both sides read the exchanged fields by the names of compiler/targets/native/fields.py:
    each named field holds what the Python state holds under that name, and a tuple of another
    length is refused with the count."""
    from hansa.compiler.targets.native.fields import FIELD_INDEX, FIELD_NAMES

    from hansa.native import fields_of

    state = base.new_initial_state(6)
    base.random_steps(state, 700, seed=4)
    fields = state._export()
    assert len(fields) == len(FIELD_NAMES)
    py = state.to_python()
    assert fields == fields_of(py, base.module.N_MARKER_TYPES)
    for name in ("pt", "post", "filled", "supply", "track", "rmark"):
        assert fields[FIELD_INDEX[name]] == list(getattr(py, name))
    assert fields[FIELD_INDEX["scalars"]][1] == py.player
    with pytest.raises(ValueError, match=f"{len(FIELD_NAMES)} fields expected"):
        base.ext.load(base.state_type, fields[:-1])


def test_random_steps_make_the_same_decisions_on_both_backends(base):
    """`random_steps` is one seeded stream on both backends (SplitMix64, multiply-shift index):
    from the same position with the same seed they play the same game, countries included."""
    britannia = hansa.load_game("bigbox-britannia-45p", 4, backend="native")
    for native in (base, britannia):
        python = hansa.Game(native.module, 4)
        for seed in (0, 5, 2**64 - 1):
            here, there = python.new_initial_state(seed % 97), native.new_initial_state(seed % 97)
            made = python.random_steps(here, 2500, seed=seed)
            assert native.random_steps(there, 2500, seed=seed) == made == 2500
            assert here.to_json() == there.to_json()
            assert here.random_steps(10**9, seed=3) == there.random_steps(10**9, seed=3)
            assert here.is_terminal() and here.returns() == there.returns()
            assert here.random_steps(5) == there.random_steps(5) == 0  # over: nothing to do


@pytest.mark.parametrize(
    "steps, seed", [(-1, 0), (True, 0), (2.0, 0), (1, -1), (1, 2**64), (1, "x")]
)
def test_random_steps_refuse_what_they_cannot_take_on_both_backends(base, steps, seed):
    python = hansa.Game(base.module, 4)
    for game in (python, base):
        state = game.new_initial_state(1)
        before = state.to_json()
        with pytest.raises(HansaError, match="random steps|seed"):
            state.random_steps(steps, seed)
        assert state.to_json() == before


def test_the_search_with_random_rollouts_plays_them_natively_with_the_same_choices(base):
    """`mcts:rollout=random` plays each iteration's rollout with the state's `random_steps`: on the
    native backend in C, with the choices of the Python backend."""
    from hansa.play.greedy import GreedyAgent
    from hansa.play.mcts import MCTSAgent

    python = hansa.Game(base.module, 4)
    chosen = {}
    for label, game, backend in (
        ("python", python, "python"),
        ("native copy", python, "native"),
        ("native game", base, "python"),
    ):
        state = game.new_initial_state(3)
        greedy = [GreedyAgent(p) for p in range(4)]
        for _ in range(40):
            state.apply_action(greedy[state.current_player()].step(state, state.legal_actions()))
        search = MCTSAgent(seed=1, iterations=8, rollout="random", backend=backend)
        choices = []
        while len(choices) < 2:
            legal = state.legal_actions()
            if state.current_player() == 0 and len(legal) > 1:
                choices.append(search.step(state, legal))
                action = choices[-1]
            else:
                action = greedy[state.current_player()].step(state, legal)
            state.apply_action(action)
        chosen[label] = choices
    assert chosen["python"] == chosen["native copy"] == chosen["native game"]


def refused_spec(folder) -> str:
    """A copy of spec/ whose Big Box rules make an action that changes nothing legal (the
    native templates implement only `no_op_actions = illegal`)."""
    spec = folder / "spec"
    shutil.copytree(installed_spec(), spec)
    rules = spec / "bigbox_2021.hansa"
    text = rules.read_text(encoding="utf-8")
    assert "option no_op_actions = illegal" in text
    rules.write_text(text.replace("no_op_actions = illegal", "no_op_actions = legal"), "utf-8")
    return str(spec)


def test_a_game_the_native_target_cannot_play_is_refused_naming_the_construct(tmp_path):
    spec = refused_spec(tmp_path)
    game = hansa.compile_game("bigbox-hanseatic-45p", 4, spec_dir=spec)
    with pytest.raises(HansaError) as error:
        native_game(model_of("bigbox-hanseatic-45p", spec), game.module)
    assert "cannot be built natively" in error.value.message
    assert "option_no_op_actions = 'legal'" in error.value.message
    assert game.new_initial_state(0).legal_actions()  # the Python backend plays it


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


def test_the_observation_tensor_is_the_python_backends_for_every_observer(base):
    """The C writer fills the Python codec's layout: equal tensors after every decision of
    random games, for each observer, into numpy arrays, array.array buffers or a new array."""
    numpy = pytest.importorskip("numpy")
    import array

    python = hansa.Game(base.module, 4)
    size = base.observation_tensor_shape()[0]
    rng = random.Random(3)
    for seed in (0, 1):
        state, twin = base.new_initial_state(seed), python.new_initial_state(seed)
        for _ in range(800):
            for observer in range(4):
                expected = twin.observation_tensor(observer)
                assert numpy.array_equal(state.observation_tensor(observer), expected)
                buffer = array.array("f", bytes(4 * size))
                assert state.observation_tensor(observer, buffer) is buffer
                assert numpy.array_equal(numpy.frombuffer(buffer, numpy.float32), expected)
            action = rng.choice(twin.legal_actions())
            state.apply_action(action)
            twin.apply_action(action)
    base.random_steps(state, 10**7, seed=2)
    twin = state.to_python()
    assert state.is_terminal()
    for observer in range(4):  # no decision once the game is over
        assert numpy.array_equal(
            state.observation_tensor(observer), twin.observation_tensor(0 + observer)
        )


def test_the_observation_tensor_refuses_what_the_python_backend_refuses(base):
    numpy = pytest.importorskip("numpy")
    state = base.new_initial_state(1)
    size = base.observation_tensor_shape()[0]
    for observer in (4, -1, True, "0", 1.0, numpy.int64(2)):
        for either in (state, state.to_python()):
            with pytest.raises(HansaError, match="observer must be a player"):
                either.observation_tensor(observer)
    wrong = (
        numpy.zeros(size, numpy.float64),
        numpy.zeros(size + 1, numpy.float32),
        b"x" * 4 * size,
    )
    for out in wrong:
        with pytest.raises(HansaError, match="float32 vector"):
            state.observation_tensor(0, out)
    with pytest.raises(HansaError, match="contiguous"):
        state.observation_tensor(0, numpy.zeros((size, 2), numpy.float32)[:, 0])


def test_the_tensor_writer_of_native_states(base):
    """The adapters' TensorWriter API: write, view and write_home give the Python writer's
    tensors, for native and Python states alike."""
    numpy = pytest.importorskip("numpy")
    writer = base.observation_tensor_writer()
    reference = hansa.Game(base.module, 4).observation_tensor_writer()
    home = numpy.zeros(writer.size, numpy.float32)
    writer.set_home(memoryview(home))
    with pytest.raises(HansaError, match="set once"):
        writer.set_home(home)
    state = base.new_initial_state(4)
    rng = random.Random(4)
    for _ in range(300):
        twin = state.to_python()
        player = state.current_player()
        expected = numpy.array(reference.view(twin, player))
        out = numpy.zeros(writer.size, numpy.float32)
        assert writer.write(state, player, out) is out and numpy.array_equal(out, expected)
        assert numpy.array_equal(numpy.array(writer.view(state, player)), expected)
        writer.write_home(state, player)
        assert numpy.array_equal(home, expected)
        writer.write_home(twin, (player + 1) % 4)  # a Python state: the Python writer's tensor
        assert numpy.array_equal(home, numpy.array(reference.view(twin, (player + 1) % 4)))
        state.apply_action(rng.choice(state.legal_actions()))


def test_a_vector_writes_each_games_tensor_for_its_deciding_player(base):
    numpy = pytest.importorskip("numpy")
    vector = base.vector(3, seed=11)
    rng = random.Random(11)
    out = numpy.zeros((3, base.observation_tensor_shape()[0]), numpy.float32)
    for _ in range(200):
        assert vector.observation_tensors(out) is out
        for i, player in enumerate(vector.current_players()):
            assert numpy.array_equal(out[i], vector.state(i).to_python().observation_tensor(player))
        masks = vector.masks()
        vector.step([rng.choice(list(numpy.flatnonzero(row))) for row in masks])
    with pytest.raises(HansaError, match="observation tensors"):
        vector.observation_tensors(numpy.zeros((2, 5), numpy.float32))


def test_a_tensor_divergence_is_reported_with_the_block(base):
    """The differential test compares the observation tensors too: a native side whose tensor
    differs in one entry is caught, naming the block."""
    python = hansa.Game(base.module, 4)

    class OffByOne:
        module = base.module

        def new_initial_state(self, seed):
            return Wrapped(base.new_initial_state(seed))

    class Wrapped:
        def __init__(self, state):
            self.state = state

        def __getattr__(self, name):
            return getattr(self.state, name)

        def observation_tensor(self, player, out):
            self.state.observation_tensor(player, out)
            if self.state.actions_left == 1:
                out[base.module.tensor_codec(4).offset["actions_left"]] = 5.0
            return out

    decisions, divergence = compare_game(python, OffByOne(), seed=0, policy="uniform")
    assert divergence is not None
    assert "observation tensors" in divergence.what and "actions_left[0]" in divergence.what
    assert (divergence.python, divergence.native) == (1.0, 5.0)


# A house rule with what the native target added after the built games: the turn-end and
# turn-start hooks and the per-kind quantities (in scoring, an end trigger and a forbid rule).
HOOKS_AND_KINDS = (
    "at turn end: gain 1 PP if merchant posts > trader posts, take 1 trader from the stock\n"
    "at turn start: gain 1 PP if traders in supply = 0\n"
    "forbid place when merchant posts > 2 and trader posts < merchant posts\n"
    "end when some player has trader posts >= 9\n"
    'score H "Merchant houses": 2 PP per city where your merchant posts here > 0\n'
    'score I "Convoys": 1 PP * sum (merchants here + 2 * traders here) over routes'
)


@pytest.fixture(scope="module")
def hooks_and_kinds(tmp_path_factory):
    from variant_support import SPEC, house_rule_text

    path = tmp_path_factory.mktemp("house") / "hooks_and_kinds.hansa"
    path.write_text(house_rule_text(HOOKS_AND_KINDS), encoding="utf-8")
    return hansa.compile_game(str(path), 4, spec_dir=str(SPEC), backend="native")


def test_turn_hooks_and_per_kind_quantities_play_natively(hooks_and_kinds):
    """A house rule, not a built game: 45 games agree decision for decision, 40 random
    (uniform and by kind) and 5 greedy (its scoring in words, read at every decision, is slow
    on the Python side)."""
    python = hansa.Game(hooks_and_kinds.module, 4)
    for policy, games in (("uniform", 20), ("kinds", 20), ("greedy", 5)):
        result = verify(python, hooks_and_kinds, games, seed=3000, policy=policy)
        assert result.divergence is None, result.divergence.report()
        assert result.games == games and result.decisions > 100 * games
    # the hooks act: the turn-end take moves traders from the stock as the turns pass
    state = hooks_and_kinds.new_initial_state(5)
    stock = list(state.to_python().stock)
    hooks_and_kinds.random_steps(state, 60, seed=5)
    assert state.to_python().stock != stock


# A house rule with every after hook and what each reads of its action, effects on other
# players (each other player, each player where …, one player, the players with the most or
# fewest of a number), `forbid use marker` and control by a quantity in words.
AFTER_HOOKS_AND_OTHERS = (
    "after income: gain 1 PP if traders taken now = 0,\n"
    "    each other player gains 1 PP if pieces taken now > 3\n"
    "after place: the player with the most posts loses 1 PP if pieces in supply = 0\n"
    "after displace: the displaced player gains 1 PP if displaced piece is a merchant,\n"
    "    each player where track PP < your track PP takes 1 trader from the stock\n"
    "after use marker: gain 2 PP if marker used is plus_4_actions,\n"
    "    the player with the fewest track PP receives marker plus_3_actions\n"
    "after create_route: gain 1 PP per city where post established here and coins > 0,\n"
    "    gain 1 PP if additional posts established now > 0,\n"
    "    gain 1 PP if special prestige taken now > 0,\n"
    "    the last seat develops book if posts established now = 0\n"
    "forbid use marker when marker used is plus_3_actions and track PP > 3\n"
    "control goes to most merchant posts here"
)
# City-control ties to nobody, read by `controlled cities`, and an effect on the player with the
# most of them.
NOBODY_ON_A_TIE = (
    "control goes to nobody on a tie\n"
    "at turn start: the player with the most controlled cities gains 1 PP if you are the first seat"
)
# End triggers in words timed after the turn and after the round.
TIMED_ENDS = (
    "end when some player has posts >= 9 after round | some player has controlled cities >= 3"
    " after turn"
)


def _house_game(tmp_path_factory, name: str, body: str):
    from variant_support import SPEC, house_rule_text

    path = tmp_path_factory.mktemp("house") / f"{name}.hansa"
    path.write_text(house_rule_text(body), encoding="utf-8")
    return hansa.compile_game(str(path), 4, spec_dir=str(SPEC), backend="native")


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("after_hooks", AFTER_HOOKS_AND_OTHERS),
        ("nobody_on_a_tie", NOBODY_ON_A_TIE),
        ("timed_ends", TIMED_ENDS),
    ],
)
def test_after_hooks_effects_on_others_and_control_rules_play_natively(
    name, body, tmp_path_factory
):
    """House rules, not built games: 18 games agree decision for decision (uniform, by kind and
    greedy: random games are long here, and only greedy play meets the forbid), and every rule
    of them applied in those games (the Python module's counts)."""
    native = _house_game(tmp_path_factory, name, body)
    python = hansa.Game(native.module, 4)
    before = list(python.module.RULE_FIRED)
    for policy, games in (("uniform", 3), ("kinds", 3), ("greedy", 12)):
        result = verify(python, native, games, seed=3000, policy=policy)
        assert result.divergence is None, result.divergence.report()
        assert result.games == games
    fired = [n - b for n, b in zip(python.module.RULE_FIRED, before, strict=True)]
    hooks = [source[0] for source in python.module.RULE_SOURCES]
    assert all(n for n, hook in zip(fired, hooks, strict=True) if hook != "end"), fired
    if "end" in hooks:  # every random game ends by a timed trigger, later than its action
        for seed in range(4):
            state = native.new_initial_state(seed)
            native.random_steps(state, 10**6, seed=seed)
            assert state.end_conditions_met()
            assert state.to_dict()["turn"]["game_ends_after"] in ("turn", "round")


def test_hansa_play_and_simulate_give_the_same_results_on_both_backends(capsys):
    import json

    from hansa.cli import main

    outputs = {}
    for backend in ("python", "native"):
        assert (
            main(["play", "bigbox-hanseatic-3p", "--seed", "3", "--json", "--backend", backend])
            == 0
        )
        played = json.loads(capsys.readouterr().out)
        command = ["simulate", "original-hanseatic-2p", "-n", "4", "--jobs", "2", "--seed", "1"]
        assert main([*command, "--agents", "greedy,random", "--json", "--backend", backend]) == 0
        report = json.loads(capsys.readouterr().out)
        report.pop("cost")  # CPU and wall seconds: the one part that varies by run
        outputs[backend] = (played, report)
    assert outputs["python"] == outputs["native"]
    assert outputs["native"][0]["finished"] and outputs["native"][1]["games"] == 4


def test_hansa_play_on_the_native_backend_names_a_refused_construct(capsys, tmp_path):
    from hansa.cli import main

    command = ["play", "bigbox-hanseatic-3p", "--spec", refused_spec(tmp_path)]
    assert main([*command, "--backend", "native"]) == 1
    error = capsys.readouterr().err
    assert "cannot be built natively" in error and "no_op_actions" in error
    assert error.count("\n") == 1 and "Traceback" not in error
    assert main([*command, "--seed", "1", "--json"]) == 0  # python plays


def test_hansa_simulate_without_a_c_compiler_is_one_message(monkeypatch, tmp_path, capsys):
    from hansa.compiler.targets.native import build

    from hansa.cli import main

    monkeypatch.setenv("HANSA_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setattr(build, "_LOADED", {})
    command = ["simulate", "bigbox-hanseatic-3p", "-n", "1", "--jobs", "1"]
    assert main([*command, "--backend", "native"]) == 1
    assert "needs a C compiler" in capsys.readouterr().err
    assert main(command) == 0


def test_permanent_markers_and_green_cities_play_natively():
    """The Eastern board's permanent markers (place from the route, develop, a post in a green
    city, move anyone's pieces) and green cities: from positions where a permanent marker's route
    is full of the first player's pieces (an additional-post marker at hand), random play by kind
    (creating routes is favoured) on both backends agrees decision for decision; random play
    from the start seldom fills these sea routes."""
    from scenario_support import Position

    native = hansa.load_game("bigbox-eastern", 3, backend="native")
    python = hansa.Game(native.module, 3)
    m = native.module
    seen = set()
    land = next(
        r
        for r in range(m.N_ROUTES)
        if not any(map(m.POINT_MERCHANT_ONLY.__getitem__, m.ROUTE_POINTS[r]))
    )
    for r in range(m.N_ROUTES):
        if m.ROUTE_PERMANENT[r] < 0:
            continue
        a, b = (m.CITY_NAMES[c] for c in m.ROUTE_CITIES[r])
        pieces = ["m0" if m.POINT_MERCHANT_ONLY[x] else "t0" for x in m.ROUTE_POINTS[r]]
        position = Position(python).player(
            0, book=3, supply=(4, 1), unused=["additional_trading_post"]
        )
        # a piece of another player elsewhere, for the marker that moves anyone's pieces
        position.route(*(m.CITY_NAMES[c] for c in m.ROUTE_CITIES[land]), "t1")
        start = position.route(a, b, *pieces).state()
        for seed in range(10):
            decisions, divergence = compare_from(
                python, native, start, seed, cap=2000, policy="kinds"
            )
            assert divergence is None, divergence.report()
        seen.add(m.PERMANENT_NAMES[m.ROUTE_PERMANENT[r]])
        state = native.from_python(start)
        state.apply_action(m.A_CREATE + r)
        while state.to_python().stack and state.to_python().stack[-1][0] == m.F_ROUTE:
            state.apply_action(m.A_NO_POST)
        assert state.to_python().stack[-1][0] == m.F_PERMANENT  # the marker's decision comes
    assert len(seen) == 4


def britannia_positions(python) -> dict:
    """Positions of a Britannia game (4 players) where the country rules matter."""
    from scenario_support import Position

    positions = {}
    # Cardiff (Wales) and London (Wales and Scotland) granting permissions, pieces on both sides
    # of the borders, a move marker at hand and a Move of up to 5 pieces
    border = Position(python).city("Cardiff", "t0").city("London", "t1", "t0")
    border.route("Cardiff", "Montgomery", "t1", "t2").route("Carlisle", "Falkirk", "t3")
    border.route("Conway", "Isle of Man", "m2", None, "t0").route("Cardiff", "Oxford", "t0", "t1")
    border.route("Carlisle", "Isle of Man", "t1", "m3").route("Dunbar", "Edinburgh", "t0")
    border.route("Bristol", "Salisbury", "t0")
    border.player(0, supply=(4, 1), book=3, unused=["move_tradesmen"])
    positions["permissions and borders"] = border.state()
    # the permanent marker placing in Wales or Scotland, its route full of player 0's pieces
    calais = Position(python).route("Calais", "Southampton", "t0", "m0", "m0")
    calais.route("Cardiff", "Montgomery", "t1").player(0, book=1)
    positions["place in Wales or Scotland"] = calais.state()
    return positions


def test_country_rules_play_natively():
    """Britannia's countries (bigbox-britannia-45p): from positions where permissions, moves
    between countries, displacements beside a border and the permanent marker that places in
    Wales or Scotland matter, random play by kind agrees decision for decision on both backends
    (the scenario tests of test_scenarios_boards.py run on the native backend too)."""
    native = hansa.load_game("bigbox-britannia-45p", 4, backend="native")
    python = hansa.Game(native.module, 4)
    m = native.module
    positions = britannia_positions(python)
    for name, start in positions.items():
        for seed in range(12):
            decisions, divergence = compare_from(
                python, native, start, seed, cap=2000, policy="kinds"
            )
            assert divergence is None, f"{name}: {divergence.report()}"
            assert decisions > 20
    # the same marker when the general stock and the personal supply are empty: a piece of the
    # player's outside Wales and Scotland is lifted and put down there
    state = positions["place in Wales or Scotland"].clone()
    state.apply_action(m.A_CREATE + next(r for r in range(m.N_ROUTES) if m.ROUTE_PERMANENT[r] == 1))
    state.apply_action(m.A_NO_POST)
    assert state.stack[-1][0] == m.F_PERMANENT
    english = [x for x in state.free if not m.ROUTE_PERMIT_BIT[m.POINT_ROUTE[x]]]
    for zone in (state.stock, state.supply):
        for kind in (1, 0):
            while zone[kind]:
                x = next(x for x in english if kind or not m.POINT_MERCHANT_ONLY[x])
                english.remove(x)
                zone[kind] -= 1
                m._put(state, x, kind)
    state._cached = None
    lifts = [a for a in native.from_python(state).legal_actions() if a >= m.A_COUNTRY_LIFT]
    assert lifts and lifts == [a for a in state.legal_actions() if a >= m.A_COUNTRY_LIFT]
    for seed in range(12):
        _decisions, divergence = compare_from(python, native, state, seed, cap=2000, policy="kinds")
        assert divergence is None, divergence.report()


def test_counts_by_country_in_words_play_natively(tmp_path):
    """`posts in COUNTRY`, `cities in COUNTRY` and `routes in COUNTRY` in rules in words: a house
    rule scoring by them builds natively and scores as the Python backend does."""
    from scenario_support import Position

    spec = tmp_path / "spec"
    shutil.copytree(installed_spec(), spec)
    (spec / "house" / "by_country.hansa").write_text(
        'rules by_country "Britannia scoring by country" extends bigbox_2021 {\n'
        '    score H "Wales and Scotland": your posts in wales'
        " + 2 PP per city in scotland where your posts here > 0\n"
        '    score I "Scottish routes": count routes in scotland where your pieces here > 0\n'
        "}\n"
        "game by-country-britannia-45p = by_country on britannia_45p players 4..5\n",
        encoding="utf-8",
    )
    native = hansa.compile_game("by-country-britannia-45p", 4, spec_dir=str(spec), backend="native")
    python = hansa.Game(native.module, 4)
    result = verify(python, native, 30, seed=0, policy="greedy")
    assert result.divergence is None, result.divergence.report()
    position = Position(python).city("Cardiff", "t0").city("Isle of Man", "m0")
    position.city("Glasgow", "t1").route("Dunbar", "Edinburgh", "t1").route(
        "Cardiff", "Pembroke", "t0"
    )
    state = position.state()
    scores = [(row["H"], row["I"]) for row in native.from_python(state).score_breakdown()]
    # player 0: 2 Welsh posts (Isle of Man is Welsh and Scottish) + 2 PP for it in Scotland
    assert scores == [(row["H"], row["I"]) for row in state.score_breakdown()]
    assert scores[:2] == [(4, 0), (2, 1)]


# Other settings of the country rules than Britannia's (board_rules countries / permissions, the
# permanent marker's count and zones): each is a switch of the templates.
COUNTRY_VARIANTS = {
    "other-rules": (
        "    board_rules countries displaced_to anywhere  move same_country"
        "  marker_move own_or_free\n"
        "    board_rules permissions once_per_turn no  actions place\n"
        "    permanent_marker place_2_tradesmen_in_wales_or_scotland ="
        " place_in_countries(count: 3)\n"
        "        from supply, board\n"
    ),
    "moves-anywhere": (
        "    board_rules countries displaced_to own_or_free  move anywhere  marker_move anywhere\n"
        "    board_rules permissions once_per_turn yes  actions displace\n"
    ),
}


@pytest.mark.parametrize("variant", sorted(COUNTRY_VARIANTS))
def test_other_country_rules_play_natively(variant, tmp_path):
    """A Britannia rule set with other country settings builds natively and agrees with the
    Python backend from the start (greedy games) and from the country positions (by kind)."""
    spec = tmp_path / "spec"
    shutil.copytree(installed_spec(), spec)
    (spec / "house" / "variant.hansa").write_text(
        f'rules variant "Britannia, other country rules" extends bigbox_2021 {{\n'
        f"{COUNTRY_VARIANTS[variant]}}}\n"
        "game variant-britannia-45p = variant on britannia_45p players 4..5\n",
        encoding="utf-8",
    )
    native = hansa.compile_game("variant-britannia-45p", 4, spec_dir=str(spec), backend="native")
    python = hansa.Game(native.module, 4)
    result = verify(python, native, 30, seed=0, policy="greedy")
    assert result.divergence is None, result.divergence.report()
    for name, start in britannia_positions(python).items():
        for seed in range(6):
            _decisions, divergence = compare_from(
                python, native, start, seed, cap=2000, policy="kinds"
            )
            assert divergence is None, f"{name}: {divergence.report()}"


def test_the_turn_number_in_words_plays_natively(tmp_path):
    """`turn number` (turns begun, this one included) in rules in words: counted by the native
    state as by the Python one, and read by a turn hook and an end rule."""
    from variant_support import SPEC, house_rule_text

    path = tmp_path / "turns.hansa"
    body = "at turn start: gain 1 PP if turn number <= 6\nend when turn number > 30\n"
    path.write_text(house_rule_text(body), encoding="utf-8")
    native = hansa.compile_game(str(path), 4, spec_dir=str(SPEC), backend="native")
    python = hansa.Game(native.module, 4)
    for policy in ("greedy", "uniform", "kinds"):
        result = verify(python, native, 20, seed=0, policy=policy)
        assert result.divergence is None, result.divergence.report()
    state = native.new_initial_state(3)
    while state.to_python().turns < 4:
        state.apply_action(0)  # end the turn
    assert state.to_python().turns == 4 and state.to_dict()["turn"]["number"] == 4
    assert sum(row["A"] for row in state.score_breakdown()) == 4  # 1 PP each turn start so far
    for result in native.playouts(5, seed=1):  # random play: the 31st turn ends the game
        assert result["end"] == ["turn number > 30"]


# ---- the reads agents make, answered in C (hansa/native.py, glue.c.j2)
def _agent_reads(state, players: int, module) -> dict:
    """Every read an agent makes of a position (runtime/state.py), with arguments on and off the
    C fast path (a negative player, an out-of-range city, a non-bool `additional`)."""
    reads: dict = {}

    def read(key, fn, *args):
        try:
            reads[key] = fn(*args)
        except Exception as error:  # the same exception type and text on both sides
            reads[key] = (type(error).__name__, str(error))

    for name in (
        "point_pieces",
        "space_posts",
        "posts_filled",
        "additional_posts",
        "track_pp",
        "route_markers",
        "route_full_owners",
        "actions_remaining",
        "completed_cities",
        "marker_supply_size",
        "held_pieces",
        "decision_route",
    ):
        read(name, getattr(state, name))
    n_cities, n_abilities = module.N_CITIES, len(module.ABILITY_NAMES)
    for p in [*range(players), -1, players]:
        read(("supply", p), state.personal_supply, p)
        read(("stock", p), state.general_stock, p)
        read(("score", p), state.score_total, p)
        read(("mission", p), state.mission_cities, p)
        read(("unused", p), state.unused_markers, p)
        for a in (*range(n_abilities), n_abilities):
            read(("level", p, a), state.ability_level, p, a)
            read(("value", p, a), state.ability_value, p, a)
        for c in (*range(n_cities), -1):
            for additional in (False, True, 1):
                read(("if post", c, p, additional), state.controller_if_post, c, p, additional)
                read(("score if post", c, p, additional), state.score_if_post, c, p, additional)
    for c in (*range(n_cities), n_cities):
        read(("controller", c), state.city_controller, c)
        read(("posts", c), state.city_posts, c)
    for space in (*range(len(module.SPACE_CITY)), -1):
        read(("exchange", space), state.controller_if_exchange, space)
    return reads


@pytest.mark.parametrize("name", NATIVE_GAMES)
def test_the_reads_agents_make_are_the_python_backends_and_greedy_plays_alike(name):
    """A greedy agent on native states reads the position in C (no Python copy per position):
    every read equals the Python backend's, type included, and greedy games on native states
    are the games on Python states, move for move."""
    from hansa.play.greedy import GreedyAgent

    native = hansa.load_game(name, backend="native")
    python = hansa.Game(native.module, native.players)
    players = native.players
    module = native.module
    for seed in range(2):
        nat, py = native.new_initial_state(seed), python.new_initial_state(seed)
        on_native = [GreedyAgent(seed * 8 + p) for p in range(players)]
        on_python = [GreedyAgent(seed * 8 + p) for p in range(players)]
        decision = 0
        while not py.is_terminal():
            if decision % 37 == 0:
                native_reads = _agent_reads(nat, players, module)
                python_reads = _agent_reads(py, players, module)
                for key, value in python_reads.items():
                    assert native_reads[key] == value, (name, seed, decision, key)
                    assert type(native_reads[key]) is type(value), (name, key)
            legal = py.legal_actions()
            assert nat.legal_actions() == legal
            action = on_python[py.current_player()].step(py, legal)
            assert on_native[nat.current_player()].step(nat, nat.legal_actions()) == action
            py.apply_action(action)
            nat.apply_action(action)
            decision += 1
        assert nat.is_terminal() and nat.returns() == py.returns()
