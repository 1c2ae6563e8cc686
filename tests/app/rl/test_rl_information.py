"""The information-state tensor (hansa/rl/infostate.py) and the per-seat views of the new surfaces:
the tensor is a function of the information-state string (histories a player cannot tell apart,
drawn again by `resample_from_infostate`, give the same tensor; histories it can tell apart give
different ones), it has a fixed size, and no tensor, picture, text or global state a seat can read
while the game runs changes when only what that seat may not see changes."""

from __future__ import annotations

import random

import pytest

import hansa

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install -e '.[rl]')")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")
pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed")

import numpy as np  # noqa: E402

from hansa.rl.infostate import HISTORY, layout_of  # noqa: E402
from hansa.rl.openspiel import register  # noqa: E402

# a game with secret cards, one with face-up tiles, and one with `draw N keep 1`
GAMES = ("bigbox-hanseatic-3p-missions", "bigbox-hanseatic-45p-favour", "draw-three-hanseatic-45p")


def short(name: str) -> str:
    return register()[name]


@pytest.mark.parametrize("name", GAMES)
def test_indistinguishable_histories_give_the_same_tensor(name):
    """At every decision of a game, each player's tensor is unchanged when what it cannot see is
    drawn again, and equal information-state strings always come with equal tensors."""
    game = pyspiel.load_game(short(name), {"rng_seed": 4})
    state = game.new_initial_state()
    rng = random.Random(4)
    by_string: dict[str, list[float]] = {}
    redrawn = 0
    while not state.is_terminal() and len(state.history()) < 160:
        for player in range(game.num_players()):
            text = state.information_state_string(player)
            tensor = state.information_state_tensor(player)
            assert len(tensor) == game.information_state_tensor_size()
            assert by_string.setdefault(text, tensor) == tensor
            sampler = pyspiel.UniformProbabilitySampler(len(state.history()), 0, 1)
            other = state.resample_from_infostate(player, sampler)
            assert other.information_state_string(player) == text
            assert other.information_state_tensor(player) == tensor
            redrawn += str(other) != str(state)
        state.apply_action(rng.choice(state.legal_actions()))
    assert redrawn > 100  # the hidden part really was drawn again


def test_distinguishable_histories_give_different_tensors():
    """Two games from one setup that part at a decision: every player tells them apart, in the
    string and the tensor — also when the positions come together again (the window remembers)."""
    game = pyspiel.load_game(short("bigbox-hanseatic-45p"), {"players": 4, "rng_seed": 1})
    first = game.new_initial_state()
    for _ in range(3):
        first.apply_action(first.legal_actions()[0])
    second = first.clone()
    legal = first.legal_actions()
    first.apply_action(legal[0])
    second.apply_action(legal[1])
    for player in range(4):
        assert first.information_state_string(player) != second.information_state_string(player)
        assert first.information_state_tensor(player) != second.information_state_tensor(player)
        through_cpp = pyspiel.State.information_state_tensor(first, player)  # pyspiel's path
        assert list(through_cpp) == first.information_state_tensor(player)
    start = game.new_initial_state()
    deals = [game.new_initial_state() for _ in range(6)]  # other setups: other tavern markers
    text = start.information_state_string(0)
    other = next(d for d in deals if d.information_state_string(0) != text)
    assert start.information_state_tensor(0) != other.information_state_tensor(0)


def test_the_tensor_has_a_fixed_size_and_a_documented_layout():
    game = hansa.load_game("bigbox-hanseatic-45p", 4)
    layout = layout_of(game)
    names = [block["name"] for block in layout.blocks()]
    assert names == ["observation", "setup_route_markers", "decisions", "history"]
    assert layout.blocks()[-1]["shape"] == (HISTORY, layout.entry)
    state = pyspiel.load_game(short("bigbox-hanseatic-45p"), {"players": 4}).new_initial_state()
    rng = random.Random(0)
    for _ in range(3 * HISTORY):
        state.apply_action(rng.choice(state.legal_actions()))
    tensor = np.asarray(state.information_state_tensor(1))
    assert tensor.shape == (layout.size,)
    assert (tensor <= layout.high()).all() and (tensor >= 0).all()
    window = tensor[layout.history_offset :].reshape(HISTORY, layout.entry)
    assert window[:, 0].sum() == HISTORY and tensor[layout.count_offset] == 3 * HISTORY
    newest = state.history()[-1]
    kind = layout.kind_of[newest]
    assert window[0, 1 + 4 + kind] == 1 and window[0, -1] == layout.index_of[newest]
    assert tensor[: layout.obs_size].tolist() == state.observation_tensor(1)


def _views(environment, agent: str, player: int) -> list:
    """Everything a seat of a PettingZoo environment can read."""
    return [
        environment.observe(agent)["observation"].tobytes(),
        environment.information_state(agent).tobytes(),
        environment.state().tobytes(),
    ]


@pytest.mark.parametrize("name", GAMES)
def test_no_new_surface_reveals_hidden_information(name):
    """Per seat: the observation, the information-state tensor, PettingZoo's global state, the
    picture and the text board are the same when what the seat may not see is drawn again (the
    face-down order, the others' cards, another player's drawn markers); a public change shows."""
    from hansa.rl.pettingzoo import env

    players = max(hansa.load_game(name).info.player_counts)
    pictures = env(name, players, render_mode="rgb_array")
    texts = env(name, players, render_mode="ansi")
    for environment in (pictures, texts):
        environment.reset(seed=8)
    rng = np.random.default_rng(8)
    redrawn = 0
    for step in range(60):
        for p, agent in enumerate(pictures.possible_agents):
            before = _views(pictures, agent, p)
            frame, text = pictures.render(), texts.render()
            hidden = pictures.hansa_state.clone()
            pictures.hansa_state.resample_hidden(random.Random(step * 7 + p), p)
            redrawn += pictures.hansa_state != hidden
            texts.hansa_state = pictures.hansa_state
            assert _views(pictures, agent, p) == before
            assert np.array_equal(pictures.render(), frame) and texts.render() == text
            pictures.hansa_state = hidden  # back to the game as it was dealt
            texts.hansa_state = hidden.clone()
        observation = pictures.observe(pictures.agent_selection)
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        pictures.step(action)
        texts.step(action)
        assert "seed" not in texts.render()
    assert redrawn > 0


def test_pettingzoo_state_is_the_public_position_and_hansa_state_the_game():
    from hansa.rl.pettingzoo import env

    environment = env("bigbox-hanseatic-3p-missions", 3)
    with pytest.raises(AssertionError, match="reset"):
        environment.state()
    environment.reset(seed=2)
    state = environment.state()
    assert environment.state_space.contains(state)
    tensor = environment.hansa_state.observation_tensor(0)
    layout = {b["name"]: b for b in environment.game.observation_tensor_layout()}
    mission = layout["own_mission"]
    secret = slice(mission["offset"], mission["offset"] + int(np.prod(mission["shape"])))
    assert tensor[secret].any() and not state[secret].any()  # nobody's card in the global state
    rest = np.ones(len(state), bool)
    rest[secret] = False
    assert np.array_equal(state[rest], tensor[rest])
    assert environment.hansa_state.to_json()  # the whole game API under its new name
    with pytest.raises(hansa.HansaError, match="no agent 'player_7'"):
        environment.information_state("player_7")


def test_gymnasium_information_state_follows_the_observer():
    from hansa.rl.gymnasium import HansaGymEnv, HansaVectorEnv

    single = HansaGymEnv("bigbox-hanseatic-45p", 4, seat=2, opponents="random")
    observation, _ = single.reset(seed=3)
    tensor = single.information_state()
    assert single.information_state_space.contains(tensor)
    assert np.array_equal(tensor[: len(observation["observation"])], observation["observation"])
    layout = layout_of(single.game)
    assert tensor[layout.count_offset] == single._game.decisions  # the others played first
    vector = HansaVectorEnv("bigbox-hanseatic-45p", 2, 4, seat=None)
    observations, _ = vector.reset(seed=3)
    rows = vector.information_state()
    assert rows.shape == (2, layout.size)
    assert np.array_equal(rows[:, : layout.obs_size], observations["observation"])
