"""The observation tensor's generic encoder (runtime/observation_tensor.py): the same values as the
tensor the generated modules wrote themselves before (kept below as the reference), whether
encoded from nothing or patched by a `TensorWriter` from any earlier state; written into
preallocated buffers; within the bounds the RL adapters declare; blind to hidden information."""

from __future__ import annotations

import functools
import random

import pytest
from hansa.play.agents import RandomAgent
from hansa.play.greedy import GreedyAgent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hansa

np = pytest.importorskip("numpy")

GAMES = sorted(hansa.available_games())


def reference_tensor(module, s, player: int):
    """The tensor as the generated modules encoded it before the encoder moved beside the runtime
    (the template's code, reading the module's tables): the values every layout change is held to.
    """
    m = vars(module)
    n = s.num_players
    k = m["N_MARKER_TYPES"]
    na = m["NA"]
    at = {name: offset for name, offset, _shape, _meaning in module.observation_tensor_layout(n)}
    hot, values = [], []
    for x, code in enumerate(s.pt):
        if code >= 0:
            hot.append(at["points"] + 2 * n * x + (code & 1) * n + ((code >> 1) - player) % n)
    for i, code in enumerate(s.post):
        if code >= 0:
            hot.append(at["city_spaces"] + 2 * n * i + (code & 1) * n + ((code >> 1) - player) % n)
    for c, codes in enumerate(s.extra):
        hot.extend(at["additional_posts"] + n * c + ((code >> 1) - player) % n for code in codes)
    for i, code in enumerate(s.special):
        if code >= 0:
            hot.append(at["special_prestige"] + n * i + ((code >> 1) - player) % n)
    for r, marker in enumerate(s.rmark):
        if marker >= 0:
            hot.append(at["route_markers"] + k * r + marker)
    for p in range(n):
        q = (p - player) % n
        for a in range(na):
            values.append((at["abilities"] + na * q + a, s.level[p * na + a]))
        for kind in (0, 1):
            values.append((at["supply"] + 2 * q + kind, s.supply[2 * p + kind]))
            values.append((at["stock"] + 2 * q + kind, s.stock[2 * p + kind]))
        values.append((at["track"] + q, s.track[p]))
        hot.extend(at["markers_unused"] + k * q + marker for marker in s.unused[p])
        hot.extend(at["markers_used"] + k * q + marker for marker in s.used[p])
    hot.extend(at["east_west"] + (p - player) % n for p in s.ew)
    hot.append(at["turn_player"] + (s.player - player) % n)
    values.append((at["actions_left"], s.actions_left))
    values.append((at["game_ends_after_action"], int(s.ending)))
    face_up = m.get("DISPLAY_SIZE", 0)
    for name, markers in (
        ("markers_taken_this_action", s.fresh),
        ("markers_to_place", s.plate),
        # markers drawn by `draw N keep 1` and not yet kept count with the face-down ones; a
        # display's face-up markers (the first of the supply) have a block of their own
        (
            "marker_supply",
            s.msupply[face_up:]
            + tuple(x for f in s.stack if f[0] == m.get("F_KEEP") for x in f[2]),
        ),
        ("markers_out_of_game", s.out),
        ("marker_display", s.msupply[:face_up]),
    ):
        hot.extend(at[name] + marker for marker in markers)
    values.append((at["completed_cities"], s.completed))
    if "MISSION_CARDS" in m:
        hot.append(at["own_mission"] + s.mission[player])
    if "F_FLIP" in m:
        hot.extend(at["favour_face_up"] + t for t in s.fav_shown)
        for p in range(n):
            base = at["favour_held"] + m["N_FAVOUR"] * ((p - player) % n)
            hot.extend(base + t for t in s.fav_held[p])
        hot.append(at["favour_this_turn"] + s.fav_turn)
    if not s.terminal:
        top = s.stack[-1] if s.stack else (0, s.player)
        kind = top[0]
        hot.append(at["decision"] + kind)
        hot.append(at["deciding_player"] + (top[1] - player) % n)
        numbers, holding = at["frame_numbers"], at["frame_holding"]
        if kind == m["F_PAY"]:
            values.append((numbers, top[2]))
        elif kind == m["F_DISPLACED"]:
            hot.append(at["frame_route"] + top[2])
            if top[3] >= 0:
                hot.append(holding + 2 * ((top[1] - player) % n) + top[3])
            values.append((numbers + 1, top[4]))
        elif kind == m["F_MOVE"]:
            hot.append(at["frame_whose"] + top[2])
            values.append((numbers + 2, top[3]))
            hot.extend(holding + 2 * (((code >> 1) - player) % n) + (code & 1) for code in top[4])
            values.append((numbers + 3, top[5]))
            values.append((numbers + 5, int(top[7])))
        elif kind == m["F_REMOVE"]:
            hot.append(at["frame_whose"] + top[2])
            values.append((numbers + 2, top[4]))
        elif kind == m["F_ROUTE"]:
            hot.append(at["frame_route"] + top[2])
        elif kind == m["F_EXCHANGE"]:
            values.append((numbers + 4, int(top[2])))
        elif kind == m["F_DEVELOP"]:
            hot.append(at["frame_ability"] + (na if top[2] < 0 else top[2]))
        elif kind == m.get("F_FLIP"):
            hot.append(at["frame_tile"] + top[2])
        elif kind == m.get("F_TAKE_STOCK"):
            values.append((at["frame_take"], top[2]))
            hot.extend(at["frame_take"] + 1 + b for b in (0, 1) if top[3] >> b & 1)
    out = np.bincount(hot, minlength=module.observation_tensor_size(n)).astype(np.float32)
    for i, value in values:
        out[i] = value
    return out


def written(writer, state, player: int):
    """The writer's tensor of `state` for `player`, in a new array."""
    return writer.write(state, player, np.empty(writer.size, np.float32))


def positions(game, seed: int, random_decisions: int, greedy_decisions: int) -> list:
    """Positions of a random game and of a greedy one (posts, markers, cities: the late game)."""
    found = []
    for agents, decisions in (
        ([RandomAgent(seed)] * game.num_players(), random_decisions),
        ([GreedyAgent(p) for p in range(game.num_players())], greedy_decisions),
    ):
        state = game.new_initial_state(seed)
        for _ in range(decisions):
            if state.is_terminal():
                break
            agent = agents[state.current_player()]
            state.apply_action(agent.step(state, state.legal_actions()))
            found.append(state.clone())
        seed += 1
    return found


@pytest.mark.parametrize("name", GAMES)
def test_encoder_and_writer_give_the_reference_tensor(name):
    game = hansa.load_game(name, max(hansa.load_game(name).info.player_counts))
    states = positions(game, 3, 100, 300)
    writer = game.observation_tensor_writer()
    assert len(states) > 300  # 100 random decisions, then most of a greedy game
    for i, state in enumerate(states):
        player = state.current_player() if i % 2 else i % game.num_players()
        player = player if player >= 0 else 0
        expected = reference_tensor(game.module, state, player)
        assert np.array_equal(written(writer, state, player), expected)
        if i % 5 == 0:
            for other in range(game.num_players()):
                expected = reference_tensor(game.module, state, other)
                assert np.array_equal(state.observation_tensor(other), expected)


@functools.cache
def _short_games(name: str) -> list:
    return positions(hansa.load_game(name), 11, 60, 60)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(GAMES),
    order=st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, 4), st.sampled_from(["write", "home"])),
        min_size=1,
        max_size=30,
    ),
)
def test_writer_is_exact_for_any_sequence_of_states(name, order):
    """Jumps between games, back in time, between observers, into a buffer or the writer's home:
    the writer patches from whatever it wrote last and still gives the encoder's tensor."""
    game = hansa.load_game(name)
    states = _short_games(name)
    writer = game.observation_tensor_writer()
    home = np.zeros(writer.size, np.float32)
    writer.set_home(home)
    for index, player, how in order:
        state = states[index % len(states)]
        player %= game.num_players()
        if how == "home":
            writer.write_home(state, player)
            assert np.array_equal(home, state.observation_tensor(player))
        else:
            assert np.array_equal(written(writer, state, player), state.observation_tensor(player))


def test_tensors_are_written_into_preallocated_buffers():
    game = hansa.load_game("bigbox-hanseatic-45p", 4)
    state = positions(game, 5, 80, 0)[-1]
    size = game.observation_tensor_shape()[0]
    out = np.full(size, 7.0, np.float32)
    assert state.observation_tensor(2, out) is out
    assert np.array_equal(out, reference_tensor(game.module, state, 2))
    writer = game.observation_tensor_writer()
    rows = np.full((3, size), 7.0, np.float32)
    row = rows[1]
    assert writer.write(state, 1, row) is row
    writer.write(state, 0, memoryview(rows[2]))
    assert np.array_equal(rows[1], state.observation_tensor(1))
    assert np.array_equal(rows[2], state.observation_tensor(0))
    assert (rows[0] == 7.0).all()
    view = writer.view(state, 3)
    assert np.array_equal(np.frombuffer(view, np.float32), state.observation_tensor(3))
    for wrong in (np.zeros(size, np.float64), np.zeros(size - 1, np.float32), [0.0] * size):
        with pytest.raises(hansa.HansaError, match="float32 vector of"):
            writer.write(state, 0, wrong)
        with pytest.raises(hansa.HansaError, match="float32 vector of"):
            state.observation_tensor(0, wrong)


@pytest.mark.parametrize("name", GAMES)
def test_tensor_values_stay_within_the_declared_bounds(name):
    game = hansa.load_game(name)
    high = np.asarray(game.observation_tensor_high(), np.float32)
    assert high.shape == game.observation_tensor_shape()
    writer = game.observation_tensor_writer()
    for state in positions(game, 2, 100, 300):
        for player in range(game.num_players()):
            tensor = written(writer, state, player)
            assert (tensor >= 0).all() and (tensor <= high).all()


@pytest.mark.parametrize(
    "name", ["bigbox-hanseatic-3p-missions", "bigbox-hanseatic-45p-favour", "bigbox-hanseatic-45p"]
)
def test_writer_reveals_no_hidden_information(name):
    """A writer primed with one position and then given the same position with the other players'
    secret cards and the face-down order redrawn writes the same tensor for the player (and the
    redrawing did change the hidden part)."""
    game = hansa.load_game(name)
    rng = random.Random(4)
    for state in positions(game, 8, 40, 120)[::20]:
        for player in range(game.num_players()):
            writer = game.observation_tensor_writer()
            before = written(writer, state, player)
            other = state.clone()
            for _ in range(10):
                other.resample_hidden(rng, player)
                if other.to_dict() != state.to_dict():
                    break
            assert np.array_equal(written(writer, other, player), before)
            assert np.array_equal(written(writer, state, player), before)
